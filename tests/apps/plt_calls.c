/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Library calls through the PLT in known numbers with known arguments, for
 * usttrace --plt (test_func_plt): strlen on the strings of argv (not
 * constants, which the compiler would fold), abs on -ROUNDS..-1, and our
 * own library's plt_target_value(i, 2 * i). Built without builtins, bound
 * lazily, without -finstrument-functions: any program can be traced so.
 * Prints "calls N" with the library calls it made of each kind, and says
 * it in the marker ust:plt_calls, whose call goes to libust: a library
 * --plt leaves alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ust/marker.h>

long plt_target_value(long a, long b);

#define ROUNDS	5

int main(int argc, char **argv)
{
	size_t total = 0;
	long sum = 0;
	int i, j;

	for (i = 1; i <= ROUNDS; i++) {
		for (j = 1; j < argc; j++)
			total += strlen(argv[j]);
		sum += abs(-i);
		sum += plt_target_value(i, 2 * i);
	}
	printf("strlen %zu sum %ld calls %d\n", total, sum, ROUNDS);
	trace_mark(ust, plt_calls, "calls %d", ROUNDS);
	return 0;
}
