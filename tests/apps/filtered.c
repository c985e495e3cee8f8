/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Events to filter: filtered [ROUNDS [THREADS]] fires, per round, 1,000
 * req:done with value 0..999, path "/api/v1/<value>" or "/static/<value>"
 * and ratio value / 1000.0, then markers and typed events of several log
 * levels and providers; each thread fires ust:thread with its tid. After
 * the rounds it waits for SIGTERM when WAIT is set in the environment
 * (tests that enable events from outside), so that the test decides when
 * the trace ends. Argument "raw" fires one round without waiting.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <ust/marker.h>

#define UST_CREATE_PROBES
#include "filtered_tp.h"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void round_of_events(void)
{
	char path[64];
	int i;

	for (i = 0; i < 1000; i++) {
		snprintf(path, sizeof(path), i % 2 ? "/static/%d" : "/api/v1/%d", i);
		trace_req_done(i, path, i / 1000.0, 200 + (i % 4) * 100);
		trace_mark(ust, value, "value %d path %s ratio %f", i, path, i / 1000.0);
	}
	trace_req_failed(1);
	trace_db_slow(2);
	trace_db_query(3);
	trace_mark_level(app, crit, UST_LOGLEVEL_CRIT, "value %d", 4);
	trace_mark_level(app, info, UST_LOGLEVEL_INFO, "value %d", 5);
	trace_mark(app, plain, "value %d", 6);
}

static void *thread_main(void *arg)
{
	(void)arg;
	trace_mark(ust, thread, "tid %d", (int)syscall(SYS_gettid));
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	int threads = argc > 2 ? atoi(argv[2]) : 0;
	pthread_t tids[16];
	int i;

	signal(SIGTERM, on_term);
	if (getenv("WAIT")) {
		/* Ready for the test to enable events; it sends SIGUSR2 to go on. */
		sigset_t set;
		int sig;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR2);
		sigprocmask(SIG_BLOCK, &set, NULL);
		printf("ready\n");
		fflush(stdout);
		sigwait(&set, &sig);
	}
	for (i = 0; i < rounds; i++)
		round_of_events();
	if (threads > 16)
		threads = 16;
	for (i = 0; i < threads; i++)
		pthread_create(&tids[i], NULL, thread_main, NULL);
	for (i = 0; i < threads; i++)
		pthread_join(tids[i], NULL);
	trace_mark(ust, thread, "tid %d", (int)syscall(SYS_gettid));
	if (getenv("WAIT")) {
		printf("done\n");
		fflush(stdout);
		while (!stop)
			pause();
	}
	return 0;
}
