/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The LTTng-UST worker: the same loop as bench_ust.c. LTTng-UST has no
 * trace_mark(); its printf-style counterpart is tracef().
 */
#include "bench_lttng_tp.h"
#include <lttng/tracef.h>
#include "bench_loop.h"

static const char bench_string[] = "0123456789abcdef";

static void bench_fire(int kind, uint32_t i)
{
	switch (kind) {
	case 0:
		tracepoint(ustbench, ints, (int)i, (int)(i ^ 0x5a5a));
		break;
	case 1:
		tracepoint(ustbench, string, bench_string);
		break;
	default:
		tracef("a %d b %d", (int)i, (int)(i ^ 0x5a5a));
		break;
	}
}

int main(int argc, char **argv)
{
	return bench_main(argc, argv);
}
