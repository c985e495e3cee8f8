/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which waits a control signal cuts short: sleeper CALL MS prints "ready",
 * waits MS milliseconds once in CALL (nanosleep, sleep, poll, select,
 * epoll_wait or pause, which an alarm ends) and prints
 * "CALL rc R errno NAME ms T": its result, its errno and how long it took,
 * then waits for the end of its standard input (the controller still
 * talking to it finds it there).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>
#include <ust/marker.h>

static void on_alarm(int sig)
{
	(void)sig;
}

static long elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

int main(int argc, char **argv)
{
	struct sigaction alarm_sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	struct timespec t0, ts;
	const char *call;
	long ms, rc;
	int err;

	if (argc != 3) {
		fprintf(stderr, "usage: sleeper nanosleep|sleep|poll|select|epoll_wait|pause MS\n");
		return 2;
	}
	call = argv[1];
	ms = atol(argv[2]);
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000;
	sigaction(SIGALRM, &alarm_sa, NULL);
	trace_mark(sleeper, start, "ms %ld", ms);
	printf("ready\n");
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	errno = 0;
	if (!strcmp(call, "nanosleep")) {
		rc = nanosleep(&ts, NULL);
	} else if (!strcmp(call, "sleep")) {
		rc = (long)sleep((unsigned)(ms / 1000));	/* the seconds left */
	} else if (!strcmp(call, "poll")) {
		rc = poll(NULL, 0, (int)ms);
	} else if (!strcmp(call, "select")) {
		struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };

		rc = select(0, NULL, NULL, NULL, &tv);
	} else if (!strcmp(call, "epoll_wait")) {
		struct epoll_event ev;
		int ep = epoll_create1(EPOLL_CLOEXEC);

		rc = epoll_wait(ep, &ev, 1, (int)ms);
	} else if (!strcmp(call, "pause")) {
		alarm((unsigned)(ms / 1000));
		rc = pause();
	} else {
		fprintf(stderr, "sleeper: unknown call %s\n", call);
		return 2;
	}
	err = errno;
	printf("%s rc %ld errno %s ms %ld\n", call, rc, err == EINTR ? "EINTR" : err ? "other" : "0",
	       elapsed_ms(&t0));
	fflush(stdout);
	while (getchar() != EOF)
		;
	return 0;
}
