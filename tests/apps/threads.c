/* SPDX-License-Identifier: GPL-2.0-only */
/* Many threads tracing at once: threads NTHREADS EVENTS_PER_THREAD */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <ust/marker.h>

static unsigned nr_events;

static void *worker(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg, i;

	for (i = 0; i < nr_events; i++)
		trace_mark(ust, thread_event, "thread %u seq %u", t, i);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned nr_threads = argc > 1 ? (unsigned)atoi(argv[1]) : 4, t;
	pthread_t *tids;

	nr_events = argc > 2 ? (unsigned)atoi(argv[2]) : 1000;
	tids = calloc(nr_threads, sizeof(*tids));
	if (!tids)
		return 1;
	for (t = 0; t < nr_threads; t++) {
		if (pthread_create(&tids[t], NULL, worker, (void *)(uintptr_t)t)) {
			perror("pthread_create");
			return 1;
		}
	}
	for (t = 0; t < nr_threads; t++)
		pthread_join(tids[t], NULL);
	free(tids);
	return 0;
}
