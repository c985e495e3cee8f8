/* SPDX-License-Identifier: GPL-2.0-only */
/* The UST worker of the benchmark: bench_ust ints|string|mark THREADS COUNT. */
#define UST_CREATE_PROBES
#include "bench_events.h"
#include <ust/marker.h>
#include "bench_loop.h"

/* 16 characters: the string event's payload. */
static const char bench_string[] = "0123456789abcdef";

static void bench_fire(int kind, uint32_t i)
{
	switch (kind) {
	case 0:
		trace_ustbench_ints((int)i, (int)(i ^ 0x5a5a));
		break;
	case 1:
		trace_ustbench_string(bench_string);
		break;
	default:
		trace_mark(ustbench, mark, "a %d b %d", (int)i, (int)(i ^ 0x5a5a));
		break;
	}
}

int main(int argc, char **argv)
{
	return bench_main(argc, argv);
}
