/* SPDX-License-Identifier: GPL-2.0-only */
/* The same events as bench_events.h, as LTTng-UST 2.13 tracepoints. */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER ustbench

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./bench_lttng_tp.h"

#if !defined(BENCH_LTTNG_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define BENCH_LTTNG_TP_H

#include <lttng/tracepoint.h>

TRACEPOINT_EVENT(ustbench, ints,
	TP_ARGS(int, a, int, b),
	TP_FIELDS(
		ctf_integer(int, a, a)
		ctf_integer(int, b, b)))

TRACEPOINT_EVENT(ustbench, string,
	TP_ARGS(const char *, s),
	TP_FIELDS(
		ctf_string(s, s)))

#endif

#include <lttng/tracepoint-event.h>
