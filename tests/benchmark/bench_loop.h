/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The timing harness both benchmark workers share, so that UST and
 * LTTng-UST are measured by the same loop: THREADS threads start together
 * at a barrier, each fires COUNT events, and the run reports the wall time
 * from the first start to the last finish.
 *
 * A worker defines bench_fire(kind, i) and includes this file once.
 */
#ifndef BENCH_LOOP_H
#define BENCH_LOOP_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void bench_fire(int kind, uint32_t i);
/* "none" is the empty loop, the baseline of the disabled cost. */
static const char *const bench_kinds[] = { "ints", "string", "mark", "none", NULL };

struct bench_run {
	pthread_barrier_t barrier;
	int kind;
	uint32_t count;
};

static uint64_t bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Threads of this process, from /proc: the footprint check. */
static int bench_threads(void)
{
	char line[256];
	int n = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

static void *bench_thread(void *arg)
{
	struct bench_run *run = arg;
	uint32_t i;

	pthread_barrier_wait(&run->barrier);
	for (i = 0; i < run->count; i++) {
		if (run->kind == 3)
			__asm__ __volatile__("" ::: "memory");
		else
			bench_fire(run->kind, i);
	}
	return NULL;
}

/* bench KIND THREADS COUNT: prints "ns_per_event elapsed_ns events threads_at_start". */
static int bench_main(int argc, char **argv)
{
	struct bench_run run;
	pthread_t tids[64];
	int threads_at_start = bench_threads();
	uint64_t t0, t1;
	int nthreads, i;

	if (argc != 4) {
		fprintf(stderr, "usage: %s ints|string|mark|none THREADS COUNT\n", argv[0]);
		return 2;
	}
	for (run.kind = 0; bench_kinds[run.kind]; run.kind++)
		if (!strcmp(argv[1], bench_kinds[run.kind]))
			break;
	nthreads = atoi(argv[2]);
	run.count = (uint32_t)strtoul(argv[3], NULL, 0);
	if (!bench_kinds[run.kind] || nthreads < 1 || nthreads > 64) {
		fprintf(stderr, "%s: bad arguments\n", argv[0]);
		return 2;
	}
	pthread_barrier_init(&run.barrier, NULL, (unsigned)nthreads + 1);
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&tids[i], NULL, bench_thread, &run)) {
			fprintf(stderr, "%s: cannot create a thread\n", argv[0]);
			return 1;
		}
	pthread_barrier_wait(&run.barrier);
	t0 = bench_now();
	for (i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	t1 = bench_now();
	printf("%.4f %llu %llu %d\n",
	       (double)(t1 - t0) / ((double)run.count * nthreads),
	       (unsigned long long)(t1 - t0),
	       (unsigned long long)run.count * (unsigned long long)nthreads,
	       threads_at_start);
	return 0;
}

#endif
