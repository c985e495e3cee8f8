/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the timeline sink maps: nested spans (ust_span_begin/end), a
 * counter field, a string that needs escaping in JSON, and an end without
 * a begin. timeline [REQUESTS [SLEEP_US]]: with SLEEP_US, the parse span of
 * request i lasts at least SLEEP_US * (1 + i % 10) microseconds (known
 * durations for the summary's span statistics).
 */
#include <stdlib.h>
#include <time.h>
#include <ust/marker.h>
#include <ust/span.h>

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	while (nanosleep(&ts, &ts))
		;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, i;
	long us = argc > 2 ? atol(argv[2]) : 0;

	trace_mark(tl, orphan_end, "");
	trace_mark(tl, text, "s %s", "quote\" backslash\\ tab\t \xc3\xa9t\xc3\xa9");
	for (i = 0; i < n; i++) {
		ust_span_begin(tl, request, "id %d", i);
		ust_span_begin(tl, parse);
		trace_mark(tl, sample, "counter_queue %d value %d", i % 7, i);
		if (us)
			sleep_us(us * (1 + i % 10));
		ust_span_end(tl, parse);
		ust_span_end(tl, request, "id %d", i);
	}
	return 0;
}
