/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dlclose while every kind of site fires:
 *   dlclose_main LIBPROBE THREADS CYCLES
 * THREADS threads each emit main:seq numbered from 0, hit the program's
 * tracepoint (whose probe is in the library, connected only while it is
 * loaded) and call into the library when it is loaded. The main thread
 * loads and unloads the library CYCLES times. A read-write lock keeps the
 * library's own functions from running while it is unloaded, as any
 * program must; nothing keeps the tracepoint's probe, the control path or
 * libust's registry from racing with the unload. Prints "ready" once the
 * threads run, then "unloaded N" (cycles after which the library was
 * really gone) and "emitted THREAD COUNT" per thread, and exits.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "dlclose_tp.h"

DEFINE_TRACE(dlclose_main_tp);

static pthread_rwlock_t lib_lock;
static void (*lib_work)(unsigned, unsigned long);
static volatile int stop;

static void pause_us(long us)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = us * 1000 };

	nanosleep(&ts, NULL);
}

/* Connected once, to the library's tracepoint whenever it is loaded. */
static void on_libprobe_tp(void *data, unsigned thread, unsigned long seq)
{
	(void)data;
	trace_mark(main, lib_tp, "thread %u seq %lu", thread, seq);
}

static void *worker(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg;
	unsigned long seq;

	for (seq = 0; !stop; seq++) {
		trace_mark(main, seq, "thread %u seq %lu", t, seq);
		trace_dlclose_main_tp(t, seq);
		pthread_rwlock_rdlock(&lib_lock);
		if (lib_work)
			lib_work(t, seq);
		pthread_rwlock_unlock(&lib_lock);
		pause_us(20);
	}
	return (void *)(uintptr_t)seq;
}

int main(int argc, char **argv)
{
	pthread_rwlockattr_t attr;
	unsigned nr_threads, cycles, unloaded = 0, i;
	pthread_t *tids;
	void *lib, *ret;

	if (argc != 4) {
		fprintf(stderr, "usage: dlclose_main LIBPROBE THREADS CYCLES\n");
		return 2;
	}
	nr_threads = (unsigned)atoi(argv[2]);
	cycles = (unsigned)atoi(argv[3]);
	tids = calloc(nr_threads, sizeof(*tids));
	if (!tids)
		return 1;
	/* Writer preference: the loader must not wait for idle readers forever. */
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&lib_lock, &attr);
	register_trace_libprobe_tp(on_libprobe_tp, NULL);
	for (i = 0; i < nr_threads; i++)
		pthread_create(&tids[i], NULL, worker, (void *)(uintptr_t)i);
	printf("ready\n");
	fflush(stdout);
	for (i = 0; i < cycles; i++) {
		lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
		if (!lib) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			return 1;
		}
		pthread_rwlock_wrlock(&lib_lock);
		*(void **)&lib_work = dlsym(lib, "libprobe_work");
		pthread_rwlock_unlock(&lib_lock);
		pause_us(1000 + 1000 * (i % 5));
		pthread_rwlock_wrlock(&lib_lock);
		lib_work = NULL;
		pthread_rwlock_unlock(&lib_lock);
		dlclose(lib);
		lib = dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD);
		if (lib)
			dlclose(lib);
		else
			unloaded++;
	}
	stop = 1;
	printf("unloaded %u\n", unloaded);
	for (i = 0; i < nr_threads; i++) {
		pthread_join(tids[i], &ret);
		printf("emitted %u %lu\n", i, (unsigned long)(uintptr_t)ret);
	}
	unregister_trace_libprobe_tp(on_libprobe_tp, NULL);
	free(tids);
	return 0;
}
