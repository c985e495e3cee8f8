/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * filter_diff_lttng: filter_diff.c against LTTng-UST 2.13. Not built by
 * make: tests/e2e/test_filter_lttng.py compiles it when lttng-ust is
 * installed (cc filter_diff_lttng.c `pkg-config --cflags --libs lttng-ust`).
 */
#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "filter_diff_lttng_tp.h"

int main(void)
{
	struct filter_diff_values v;
	int n;

	for (n = 0; n < FILTER_DIFF_COUNT; n++) {
		filter_diff_values(n, &v);
#define FIRE(i)	tracepoint(fltdiff, e##i, v.n, v.a, v.b, v.c, v.u, v.x, v.d, v.f, v.s);
		FILTER_DIFF_EVENTS(FIRE)
#undef FIRE
	}
	return 0;
}
