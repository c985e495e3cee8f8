/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A service for triggers to watch: service [INTERVAL_US]. A thread emits
 * app:request with a sequence number every INTERVAL_US (default 200)
 * microseconds; the main thread reads commands on stdin, one a line:
 *   error SEQ CODE	emits app:error (typed) with SEQ and CODE
 *   warn SEQ		emits the marker app:warn with SEQ
 *   fork SEQ MS	forks a child that emits app:warn SEQ, sleeps MS
 *			milliseconds, emits app:warn SEQ+1 and exits; prints
 *			"child PID", and "done" once the child ended
 *   quit		ends the program
 * and answers each with "done" on stdout once the event is committed.
 * "ready" on stdout once the request thread runs; SIGTERM also ends it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <ust/marker.h>

#define UST_CREATE_PROBES
#include "service_tp.h"

static volatile sig_atomic_t stop;
static long interval_us = 200;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void *requests(void *arg)
{
	struct timespec ts = { 0, interval_us * 1000 };
	unsigned seq = 0;

	(void)arg;
	while (!stop) {
		trace_app_request(seq++);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void fork_child(unsigned seq, int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		trace_mark(app, warn, "seq %u", seq);
		/* The whole time: ustd's control signal interrupts the sleep. */
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		trace_mark(app, warn, "seq %u", seq + 1);
		exit(0);
	}
	printf("child %d\n", (int)pid);
	fflush(stdout);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	pthread_t thread;
	char line[128];
	unsigned seq;
	int code;

	if (argc > 1)
		interval_us = atol(argv[1]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	if (pthread_create(&thread, NULL, requests, NULL))
		return 1;
	printf("ready\n");
	fflush(stdout);
	while (!stop && fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "error %u %d", &seq, &code) == 2)
			trace_app_error(seq, code);
		else if (sscanf(line, "warn %u", &seq) == 1)
			trace_mark(app, warn, "seq %u", seq);
		else if (sscanf(line, "fork %u %d", &seq, &code) == 2)
			fork_child(seq, code);
		else if (!strncmp(line, "quit", 4))
			break;
		else
			fprintf(stderr, "service: unknown command %s", line);
		printf("done\n");
		fflush(stdout);
	}
	stop = 1;
	pthread_join(thread, NULL);
	return 0;
}
