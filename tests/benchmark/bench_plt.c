/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The library-call worker (bench_plt.py): N calls through the PLT of the C
 * library's abs(), which does nearly nothing, timed; prints ns per call.
 * Built without builtins, so that each call is one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	long i, n, sum = 0;

	if (argc != 2 || (n = strtol(argv[1], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: %s CALLS\n", argv[0]);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++)
		sum += abs((int)-i);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%.3f %ld\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n, sum);
	return 0;
}
