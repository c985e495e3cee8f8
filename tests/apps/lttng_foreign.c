/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An LTTng-UST program (not UST's), for the sinks' tests on traces that
 * LTTng wrote: lttng_foreign TICKS THREADS
 * records the strings of bad_strings.h (foreign:text), then THREADS
 * threads, thread k pinned to CPU k modulo the CPUs it may use, each
 * record TICKS foreign:tick as fast as they can, all at once: with small
 * buffers, every CPU's buffer loses events over the same stretch of time.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "lttng_foreign_tp.h"
#include "bad_strings.h"

static unsigned ticks;
static pthread_barrier_t start;

struct worker {
	pthread_t thread;
	unsigned n;
	int cpu;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	cpu_set_t set;
	unsigned i;

	if (w->cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	pthread_barrier_wait(&start);
	for (i = 0; i < ticks; i++)
		tracepoint(foreign, tick, w->n, i);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned nthreads = argc > 2 ? (unsigned)atoi(argv[2]) : 1, i;
	struct worker *w;
	cpu_set_t allowed;
	int cpus[CPU_SETSIZE], ncpus = 0, c;

	ticks = argc > 1 ? (unsigned)atoi(argv[1]) : 100;
	if (!nthreads || sched_getaffinity(0, sizeof(allowed), &allowed) < 0) {
		fprintf(stderr, "usage: lttng_foreign TICKS THREADS (THREADS > 0)\n");
		return 2;
	}
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &allowed))
			cpus[ncpus++] = c;
	for (i = 0; i < BAD_STRINGS_NR; i++)
		tracepoint(foreign, text, i, bad_strings[i]);
	w = calloc(nthreads, sizeof(*w));
	if (!w || pthread_barrier_init(&start, NULL, nthreads)) {
		perror("lttng_foreign");
		return 1;
	}
	for (i = 0; i < nthreads; i++) {
		w[i].n = i;
		w[i].cpu = ncpus ? cpus[i % (unsigned)ncpus] : -1;
		if (pthread_create(&w[i].thread, NULL, work, &w[i])) {
			perror("lttng_foreign: pthread_create");
			return 1;
		}
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(w[i].thread, NULL);
	free(w);
	return 0;
}
