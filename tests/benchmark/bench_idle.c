/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Footprint: a program with a marker, started untraced. Built twice, with
 * and without -lust (BENCH_NO_UST); the benchmark compares their start-up
 * times and checks that libust started no thread. With "stamp", it prints
 * CLOCK_MONOTONIC at main() in ns: the benchmark takes the time from
 * before its exec, which holds a session's join in the constructors.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#ifndef BENCH_NO_UST
#include <ust/marker.h>
#endif

int main(int argc, char **argv)
{
	char line[256];
	struct timespec now;
	int n = -1;
	FILE *f;

	clock_gettime(CLOCK_MONOTONIC, &now);

#ifndef BENCH_NO_UST
	trace_mark(ustbench, idle, "argc %d", argc);
#endif
	if (argc < 2)
		return 0;
	if (!strcmp(argv[1], "stamp")) {
		printf("%lld\n", (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
		return 0;
	}
	f = fopen("/proc/self/status", "r");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	printf("%d\n", n);
	return 0;
}
