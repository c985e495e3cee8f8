/* SPDX-License-Identifier: GPL-2.0-only */
/* Writes events faster than any consumer drains small buffers, so that
 * some are discarded: burst EVENTS */
#include <stdlib.h>
#include <ust/marker.h>

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 100000, i;

	for (i = 0; i < n; i++)
		trace_mark(ust, burst, "seq %u pad %s", i,
			   "0123456789abcdef0123456789abcdef0123456789abcdef");
	return 0;
}
