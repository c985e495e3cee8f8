/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The function-tracing worker (bench_func.py): N calls of a function that
 * does nearly nothing, timed; prints ns per call. Built three ways: plain
 * (the baseline), -finstrument-functions with glibc's empty hooks (for
 * LD_PRELOAD'ed hooks: LTTng-UST's cyg-profile, uftrace), and
 * -finstrument-functions linked with libust-func.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static __attribute__((noinline)) long step(long i)
{
	__asm__ volatile("" : "+r"(i));
	return i + 1;
}

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
		sum += step(i);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%.3f %ld\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n, sum);
	return 0;
}
