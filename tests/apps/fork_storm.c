/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fork() from a multithreaded traced program:
 *   fork_storm FORKS EVENTS THREADS
 * THREADS threads emit ust:busy (thread, seq) without pause while the main
 * thread forks FORKS children one after the other; each child emits
 * ust:child (seq 0..EVENTS-1) and exits. Prints "child PID" per child and
 * "emitted THREAD COUNT" per thread; exits 1 if a child failed.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ust/marker.h>

#define MAX_THREADS	64

static volatile int stop;
static int started;
/* Static, not allocated by the threads: a child exits with the parent's
 * heap but without its threads, and LeakSanitizer would count theirs. */
static unsigned long counts[MAX_THREADS];

static void *busy(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg;
	unsigned long *count = &counts[t];

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		trace_mark(ust, busy, "thread %u seq %lu", t, *count);
		if (!(*count)++)
			__atomic_add_fetch(&started, 1, __ATOMIC_RELEASE);
		/* Slow enough that the parent's buffers never fill. */
		if (*count % 64 == 0)
			usleep(200);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int forks = argc > 1 ? atoi(argv[1]) : 50, events = argc > 2 ? atoi(argv[2]) : 100;
	unsigned nr_threads = argc > 3 ? (unsigned)atoi(argv[3]) : 2, t;
	pthread_t *tids = calloc(nr_threads, sizeof(*tids));
	int i, j, status, failed = 0;
	pid_t pid;

	if (!tids || nr_threads > MAX_THREADS)
		return 1;
	/* Nothing buffered to be printed twice by a child's exit(). */
	setvbuf(stdout, NULL, _IONBF, 0);
	for (t = 0; t < nr_threads; t++) {
		if (pthread_create(&tids[t], NULL, busy, (void *)(uintptr_t)t)) {
			perror("pthread_create");
			return 1;
		}
	}
	/*
	 * Fork only once every thread is in its tracing loop: the point is
	 * forking while they trace. (A thread still starting up may hold
	 * ASan's allocator lock, which its runtime does not take across fork:
	 * the child would hang in the leak check at exit.)
	 */
	while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < (int)nr_threads)
		usleep(100);
	for (i = 0; i < forks; i++) {
		pid = fork();
		if (pid < 0) {
			perror("fork");
			failed = 1;
			break;
		}
		if (pid == 0) {
			for (j = 0; j < events; j++)
				trace_mark(ust, child, "seq %d", j);
			exit(0);
		}
		printf("child %d\n", (int)pid);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "fork_storm: child %d failed (status %#x)\n", (int)pid,
				status);
			failed = 1;
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (t = 0; t < nr_threads; t++) {
		pthread_join(tids[t], NULL);
		printf("emitted %u %lu\n", t, counts[t]);
	}
	free(tids);
	return failed;
}
