/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A long-running program to control while it runs:
 *   ticker [-t THREADS] [-i MICROSECONDS] [-e TICKS] [-n TICKS] [-b]
 * Each thread emits ust:tick with its number and a sequence number (-e
 * of them in a row, default 1: a steady rate above what a sleep of a
 * few microseconds allows), then sleeps; ust:tock and other:count come from the main thread. "ready" on
 * stdout once every thread runs; SIGTERM or SIGINT ends it normally, as
 * does every thread having emitted TICKS ticks (-n), after printing
 * "emitted THREAD COUNT" per thread. -b blocks SIGURG in every
 * thread (after libust started), as some programs do.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <ust/marker.h>

/* Set by the handler on the main thread, read by the workers: atomic,
 * which a lock-free int is in a signal handler too. */
static int stop;
static long interval_us = 1000;
static unsigned long max_ticks;		/* 0: until SIGTERM */
static unsigned long ticks_per_pause = 1;
static unsigned finished;		/* threads done with their ticks */

static void on_term(int sig)
{
	(void)sig;
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

static void pause_a_while(void)
{
	struct timespec ts = {
		.tv_sec = interval_us / 1000000,
		.tv_nsec = (interval_us % 1000000) * 1000,
	};

	/* A control signal may cut the sleep short; that only speeds it up. */
	nanosleep(&ts, NULL);
}

static void *worker(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg;
	unsigned long *count = calloc(1, sizeof(*count));

	while (count && !__atomic_load_n(&stop, __ATOMIC_RELAXED) &&
	       (!max_ticks || *count < max_ticks)) {
		trace_mark(ust, tick, "thread %u seq %lu", t, *count);
		if (++*count % ticks_per_pause == 0)
			pause_a_while();
	}
	__atomic_add_fetch(&finished, 1, __ATOMIC_RELEASE);
	return count;
}

int main(int argc, char **argv)
{
	unsigned nr_threads = 1, t;
	struct sigaction sa = { .sa_handler = on_term };
	pthread_t *tids;
	int opt, block = 0, n = 0;

	while ((opt = getopt(argc, argv, "t:i:e:n:b")) != -1) {
		switch (opt) {
		case 't':
			nr_threads = (unsigned)atoi(optarg);
			break;
		case 'i':
			interval_us = atol(optarg);
			break;
		case 'e':
			ticks_per_pause = strtoul(optarg, NULL, 10);
			if (!ticks_per_pause)
				ticks_per_pause = 1;
			break;
		case 'n':
			max_ticks = strtoul(optarg, NULL, 10);
			break;
		case 'b':
			block = 1;
			break;
		default:
			fprintf(stderr, "usage: ticker [-t THREADS] [-i MICROSECONDS] [-e TICKS] [-n TICKS] [-b]\n");
			return 2;
		}
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (block) {
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, SIGURG);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
	}
	tids = calloc(nr_threads, sizeof(*tids));
	if (!tids)
		return 1;
	for (t = 0; t < nr_threads; t++) {
		if (pthread_create(&tids[t], NULL, worker, (void *)(uintptr_t)t)) {
			perror("pthread_create");
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED) &&
	       __atomic_load_n(&finished, __ATOMIC_ACQUIRE) < nr_threads) {
		trace_mark(ust, tock, "n %d", n);
		trace_mark(other, count, "n %d name %s", n, "ticker");
		n++;
		pause_a_while();
	}
	for (t = 0; t < nr_threads; t++) {
		void *count;

		pthread_join(tids[t], &count);
		printf("emitted %u %lu\n", t, count ? *(unsigned long *)count : 0);
		free(count);
	}
	free(tids);
	return 0;
}
