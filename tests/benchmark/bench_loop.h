/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The timing harness both benchmark workers share, so that UST and
 * LTTng-UST are measured by the same loop: THREADS threads start together
 * at a barrier, each fires COUNT events, and the run reports the wall time
 * from the first start to the last finish, as the threads read them: the
 * main thread, a third thread on two CPUs, may run late after the barrier
 * and would start the clock after the writers did.
 *
 * A worker defines bench_fire(kind, i) and includes this file once.
 */
#ifndef BENCH_LOOP_H
#define BENCH_LOOP_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void bench_fire(int kind, uint32_t i);
/* "none" is the empty loop, the baseline of the disabled cost. */
static const char *const bench_kinds[] = { "ints", "string", "mark", "none", NULL };

struct bench_run {
	pthread_barrier_t barrier;
	int kind;
	uint32_t count;
	double ns_per_event;		/* paced: each thread's interval, else 0 */
	uint64_t t0;			/* paced: when the threads start */
	uint64_t *cpu_ns;		/* the threads' own CPU time in the loop, summed */
	uint64_t *first_ns;		/* the earliest start of a loop, CLOCK_MONOTONIC */
	uint64_t *last_ns;		/* the latest end of one */
};

/* Events between two looks at the clock when paced. */
#define BENCH_PACE_BATCH	256

static uint64_t bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPU time of the calling thread: what a writer spends itself, without
 * the program's start (libust populating its buffers) or other threads. */
static uint64_t bench_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
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

/*
 * Paced: event i of a thread is due at t0 + i * ns_per_event. Ahead of
 * that, the thread sleeps (so that it leaves the CPU to the consumer, as a
 * program doing other work would) and spins only for the last 50 us.
 */
static void bench_pace(const struct bench_run *run, uint32_t i)
{
	uint64_t due = run->t0 + (uint64_t)((double)i * run->ns_per_event), now;
	struct timespec ts;

	while ((now = bench_now()) < due) {
		if (due - now > 50000) {
			ts.tv_sec = (time_t)((due - 50000) / 1000000000u);
			ts.tv_nsec = (long)((due - 50000) % 1000000000u);
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
	}
}

/* *at = min(*at, v), or max when later: the threads' first start and
 * last end. */
static void bench_keep(uint64_t *at, uint64_t v, int later)
{
	uint64_t cur = __atomic_load_n(at, __ATOMIC_RELAXED);

	while ((later ? v > cur : v < cur) &&
	       !__atomic_compare_exchange_n(at, &cur, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static void *bench_thread(void *arg)
{
	struct bench_run *run = arg;
	uint64_t cpu0 = bench_thread_cpu_ns();
	uint32_t i;

	pthread_barrier_wait(&run->barrier);
	bench_keep(run->first_ns, bench_now(), 0);
	for (i = 0; i < run->count; i++) {
		if (run->kind == 3)
			__asm__ __volatile__("" ::: "memory");
		else
			bench_fire(run->kind, i);
	}
	bench_keep(run->last_ns, bench_now(), 1);
	__atomic_fetch_add(run->cpu_ns, bench_thread_cpu_ns() - cpu0, __ATOMIC_RELAXED);
	return NULL;
}

/*
 * The thread of a paced run: bench_thread() in batches, each on a barrier
 * of its own (one thread: no wait), paced between batches. So the loop
 * that measures is bench_thread()'s, compiled as it was before pacing
 * existed (bench_fire() inlined in it, and in it only).
 */
static void *bench_thread_paced(void *arg)
{
	struct bench_run *run = arg, batch = *run;
	uint32_t i;

	pthread_barrier_wait(&run->barrier);
	for (i = 0; i < run->count; i += batch.count) {
		bench_pace(run, i);
		batch.count = run->count - i < BENCH_PACE_BATCH ? run->count - i : BENCH_PACE_BATCH;
		pthread_barrier_init(&batch.barrier, NULL, 1);
		bench_thread(&batch);
		pthread_barrier_destroy(&batch.barrier);
	}
	return NULL;
}

/*
 * With BENCH_GATE in the environment: "ready" on stdout, then a line on
 * stdin before the run, so that the bench can change the running program
 * first (add a trigger to it). read(), not stdio: a control signal may
 * interrupt the wait.
 */
static int bench_gate(void)
{
	ssize_t n;
	char c;

	if (!getenv("BENCH_GATE"))
		return 0;
	printf("ready\n");
	fflush(stdout);
	do
		n = read(0, &c, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -1;
}

/* bench KIND THREADS COUNT [RATE]: prints "ns_per_event elapsed_ns events
 * threads_at_start writer_cpu_ns". With RATE, the threads together fire
 * RATE events per second at most. */
static int bench_main(int argc, char **argv)
{
	struct bench_run run;
	pthread_t tids[64];
	int threads_at_start = bench_threads();
	uint64_t t0 = UINT64_MAX, t1 = 0, cpu_ns = 0;
	int nthreads, i;
	double rate = 0;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: %s ints|string|mark|none THREADS COUNT [RATE]\n", argv[0]);
		return 2;
	}
	for (run.kind = 0; bench_kinds[run.kind]; run.kind++)
		if (!strcmp(argv[1], bench_kinds[run.kind]))
			break;
	nthreads = atoi(argv[2]);
	run.count = (uint32_t)strtoul(argv[3], NULL, 0);
	if (argc == 5)
		rate = strtod(argv[4], NULL);
	if (!bench_kinds[run.kind] || nthreads < 1 || nthreads > 64 || rate < 0) {
		fprintf(stderr, "%s: bad arguments\n", argv[0]);
		return 2;
	}
	if (bench_gate() < 0) {
		fprintf(stderr, "%s: no go on stdin\n", argv[0]);
		return 1;
	}
	run.ns_per_event = rate > 0 ? 1e9 * nthreads / rate : 0;
	/* The first batch is due a little after the threads exist. */
	run.t0 = bench_now() + 1000000u;
	run.cpu_ns = &cpu_ns;
	run.first_ns = &t0;
	run.last_ns = &t1;
	pthread_barrier_init(&run.barrier, NULL, (unsigned)nthreads + 1);
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&tids[i], NULL,
				   run.ns_per_event > 0 ? bench_thread_paced : bench_thread, &run)) {
			fprintf(stderr, "%s: cannot create a thread\n", argv[0]);
			return 1;
		}
	pthread_barrier_wait(&run.barrier);
	for (i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	printf("%.4f %llu %llu %d %llu\n",
	       (double)(t1 - t0) / ((double)run.count * nthreads),
	       (unsigned long long)(t1 - t0),
	       (unsigned long long)run.count * (unsigned long long)nthreads,
	       threads_at_start, (unsigned long long)cpu_ns);
	return 0;
}

#endif
