/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A stand-in for the README tour's server: webish N records N requests
 * (http:request with a status, 503 every tenth, and db:query), one a
 * millisecond, then exits 0; with N 0 it goes on until SIGTERM. "ready"
 * on stdout once it runs.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <ust/marker.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_term };
	struct timespec ms = { 0, 1000000L };
	long n = argc > 1 ? atol(argv[1]) : 0, i;

	sigaction(SIGTERM, &sa, NULL);
	printf("ready\n");
	fflush(stdout);
	for (i = 0; !stop && (n == 0 || i < n); i++) {
		trace_mark(http, request, "id %ld status %d", i, i % 10 == 9 ? 503 : 200);
		trace_mark(db, query, "id %ld rows %d", i, (int)(i % 7));
		nanosleep(&ms, NULL);
	}
	return 0;
}
