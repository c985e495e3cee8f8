/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A library loaded after the trace has been written to disk for a while:
 *   dlopen_late LIBPROBE [pause]
 * Emits main:before 0..99 and prints "ready"; on SIGUSR1 loads the
 * library, has it fire its events, emits main:after and prints "loaded";
 * on SIGTERM unloads it and exits. With "pause", prints "opened" once the
 * library is loaded and waits for SIGUSR1 again before it fires them.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <ust/marker.h>

static int wait_for(int sig)
{
	sigset_t set;
	int got;

	sigemptyset(&set);
	sigaddset(&set, sig);
	return sigwait(&set, &got) == 0 ? got : -1;
}

int main(int argc, char **argv)
{
	void (*work)(unsigned, unsigned long);
	sigset_t set;
	void *lib;
	int i;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: dlopen_late LIBPROBE [pause]\n");
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (i = 0; i < 100; i++)
		trace_mark(main, before, "seq %d", i);
	printf("ready\n");
	fflush(stdout);
	wait_for(SIGUSR1);
	lib = dlopen(argv[1], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	*(void **)&work = dlsym(lib, "libprobe_work");
	if (!work) {
		fprintf(stderr, "dlsym: %s\n", dlerror());
		return 1;
	}
	if (argc == 3) {
		printf("opened\n");
		fflush(stdout);
		wait_for(SIGUSR1);
	}
	work(7, 42);
	trace_mark(main, after, "seq %d", 0);
	printf("loaded\n");
	fflush(stdout);
	wait_for(SIGTERM);
	dlclose(lib);
	return 0;
}
