/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Floods its buffers from several threads at full speed: flood THREADS
 * EVENTS_PER_THREAD. Prints "ready" once tracing is set up and waits for a
 * line on stdin before the threads start; prints "done" when they ended
 * and waits for stdin to close before exiting, so that a test can stop
 * and resume ustd around the flood.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <ust/marker.h>

static unsigned nr_events;

static void *flood(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg, i;

	for (i = 0; i < nr_events; i++)
		trace_mark(ust, flood, "thread %u seq %u", t, i);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned nr_threads, t;
	pthread_t tids[64];
	char line[16];

	if (argc != 3 || atoi(argv[1]) < 1 || atoi(argv[1]) > 64 || atoi(argv[2]) < 1) {
		fprintf(stderr, "usage: flood THREADS(1-64) EVENTS_PER_THREAD\n");
		return 2;
	}
	nr_threads = (unsigned)atoi(argv[1]);
	nr_events = (unsigned)atoi(argv[2]);
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	for (t = 0; t < nr_threads; t++) {
		if (pthread_create(&tids[t], NULL, flood, (void *)(uintptr_t)t)) {
			perror("pthread_create");
			return 1;
		}
	}
	for (t = 0; t < nr_threads; t++)
		pthread_join(tids[t], NULL);
	printf("done\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin))
		;
	return 0;
}
