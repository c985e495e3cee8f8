// SPDX-License-Identifier: GPL-2.0-only
/*
 * Exceptions thrown through library calls (test_func_plt): plt_throw_check
 * (libplt_throw) throws on odd arguments, caught here, so that half of its
 * calls never return through the dynamic linker's exit hook. Prints
 * "sum S caught C", and says it in the marker ust:plt_throw.
 */
#include <cstdio>
#include <stdexcept>
#include <ust/marker.h>

extern "C" long plt_throw_check(long i);

#define CALLS	6

int main()
{
	long sum = 0;
	int caught = 0;

	for (long i = 0; i < CALLS; i++) {
		try {
			sum += plt_throw_check(i);
		} catch (const std::range_error &) {
			caught++;
		}
	}
	std::printf("sum %ld caught %d\n", sum, caught);
	trace_mark(ust, plt_throw, "caught %d", caught);
	return 0;
}
