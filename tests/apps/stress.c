/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Traces fast: stress [-t THREADS] [-d SECONDS] [-r RATE] [-p]
 * Each thread emits numbered ust:stress events until SECONDS have passed
 * (default 1) or SIGTERM, as fast as it can or, with -r, at most RATE
 * events a second (so that a test can read the whole trace back). "ready" on stdout once the threads run; with -p,
 * "progress TOTAL" every 50 ms, so that a test can see the program never
 * waits for the consumer; at the end "emitted THREAD COUNT" per thread.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <ust/marker.h>

struct stress_thread {
	pthread_t tid;
	unsigned id;
	unsigned long count;
};

/* Atomic builtins, not volatile: ThreadSanitizer understands them. */
static int stop;
static double rate;

static void on_term(int sig)
{
	(void)sig;
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sleeps while this thread is ahead of RATE; never waits for anything else. */
static void pace(unsigned long n, double start)
{
	struct timespec ms = { 0, 1000 * 1000 };

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED) && n >= rate * (now() - start))
		nanosleep(&ms, NULL);
}

static void *worker(void *arg)
{
	struct stress_thread *st = arg;
	double start = now();
	unsigned long n = 0;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		if (rate > 0 && n % 64 == 0)
			pace(n, start);
		trace_mark(ust, stress, "thread %u seq %lu pad %s", st->id, n,
			   "0123456789abcdef");
		/* Read by main's progress lines while we run. */
		__atomic_store_n(&st->count, ++n, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_term };
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	unsigned nr_threads = 1, t;
	struct stress_thread *threads;
	double seconds = 1, end;
	int opt, progress = 0;

	while ((opt = getopt(argc, argv, "t:d:r:p")) != -1) {
		switch (opt) {
		case 't':
			nr_threads = (unsigned)atoi(optarg);
			break;
		case 'd':
			seconds = atof(optarg);
			break;
		case 'r':
			rate = atof(optarg);
			break;
		case 'p':
			progress = 1;
			break;
		default:
			fprintf(stderr, "usage: stress [-t THREADS] [-d SECONDS] [-r RATE] [-p]\n");
			return 2;
		}
	}
	sigaction(SIGTERM, &sa, NULL);
	threads = calloc(nr_threads, sizeof(*threads));
	if (!nr_threads || !threads)
		return 1;
	for (t = 0; t < nr_threads; t++) {
		threads[t].id = t;
		if (pthread_create(&threads[t].tid, NULL, worker, &threads[t])) {
			perror("pthread_create");
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	end = now() + seconds;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED) && now() < end) {
		nanosleep(&tick, NULL);
		if (progress) {
			unsigned long total = 0;

			for (t = 0; t < nr_threads; t++)
				total += __atomic_load_n(&threads[t].count, __ATOMIC_RELAXED);
			printf("progress %.3f %lu\n", now(), total);
			fflush(stdout);
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (t = 0; t < nr_threads; t++) {
		pthread_join(threads[t].tid, NULL);
		printf("emitted %u %lu\n", t, threads[t].count);
	}
	free(threads);
	return 0;
}
