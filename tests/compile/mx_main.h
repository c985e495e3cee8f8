/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the compile matrix's programs, mx_main.c and mx_main.cpp, both do
 * first: markers, a tracepoint with a probe, typed events (trace_ and
 * ust_event), spans, a filtered event, a function in a header called from
 * two files, a provider shared with mx_probes.c. Included by those two
 * only: each compiles it in its own language.
 */
#ifndef MX_MAIN_H
#define MX_MAIN_H

#include <ust/ust.h>
#include "mx_provider.h"
#include "mx_shared.h"

static void mx_probe(void *data, int n, const char *who)
{
	trace_mark(mx, probe, "n %d who %s data %p", n, who, data);
}

static void mx_main_common(void)
{
	int i;

	register_trace_mx_tp(mx_probe, NULL);
	for (i = 0; i < 3; i++) {
		ust_span_begin(mx, req, "i %d", i);
		trace_mark(mx, mark, "i %d s %s l %ld", i, "str", (long)i * 1000000000L);
		trace_mx_tp(i, "main");
		ust_event(mx, request, i, "/req", i / 4.0);
		ust_span_end(mx, req);
	}
	for (i = 0; i < 10; i++)
		ust_event(mxf, value, i);
	trace_mx_nothing();
	trace_mark(mx, noargs, MARK_NOARGS);
	mx_shared(1);
	mx_other();
	mx_from_c(7);
	unregister_trace_mx_tp(mx_probe, NULL);
	trace_mx_tp(99, "unregistered");
}

#endif
