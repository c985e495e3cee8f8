/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * filter_diff: fires FILTER_DIFF_COUNT times each of the events of
 * filter_diff_events.h with the values of their number, for the
 * differential filter test (its LTTng-UST twin is filter_diff_lttng.c).
 */
#define UST_CREATE_PROBES
#include "filter_diff_tp.h"

int main(void)
{
	struct filter_diff_values v;
	int n;

	for (n = 0; n < FILTER_DIFF_COUNT; n++) {
		filter_diff_values(n, &v);
#define FIRE(i)	trace_fltdiff_e##i(v.n, v.a, v.b, v.c, v.u, v.x, v.d, v.f, v.s);
		FILTER_DIFF_EVENTS(FIRE)
#undef FIRE
	}
	return 0;
}
