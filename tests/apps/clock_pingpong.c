/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Two processes that take turns, for the trace clock's test (test_clock):
 * clock_pingpong IN_FD OUT_FD FIRST COUNT. Each turn reads a byte from
 * IN_FD (the first process starts without one), records CLOCK_MONOTONIC,
 * traces an event carrying it and its turn number, then hands the turn on
 * through OUT_FD. Every 64 turns it sleeps 5 ms, so that the run spans
 * long enough for a wrong clock rate to show.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <ust/marker.h>

int main(int argc, char **argv)
{
	const struct timespec pause = { 0, 5000000 };
	int in, out, first;
	unsigned count, i;
	char token = 't';

	if (argc != 5) {
		fprintf(stderr, "usage: clock_pingpong IN_FD OUT_FD FIRST COUNT\n");
		return 2;
	}
	in = atoi(argv[1]);
	out = atoi(argv[2]);
	first = atoi(argv[3]);
	count = (unsigned)atoi(argv[4]);
	for (i = 0; i < count; i++) {
		struct timespec ts;

		if ((i || !first) && read(in, &token, 1) != 1) {
			perror("clock_pingpong: read");
			return 1;
		}
		if (i % 64 == 63)
			nanosleep(&pause, NULL);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		trace_mark(ust, turn, "turn %u mono %llu", i,
			   (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec);
		/* The second process's last turn is the last of all: the first
		 * may have exited already, and a write would raise SIGPIPE. */
		if (!first && i + 1 == count)
			break;
		if (write(out, &token, 1) != 1) {
			perror("clock_pingpong: write");
			return 1;
		}
	}
	return 0;
}
