/* SPDX-License-Identifier: GPL-2.0-only */
/* The LTTng-UST 2.13 tracepoints of lttng_foreign. */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER foreign

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./lttng_foreign_tp.h"

#if !defined(LTTNG_FOREIGN_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define LTTNG_FOREIGN_TP_H

#include <lttng/tracepoint.h>

/* A string that may not be UTF-8, and a member named ctx. */
TRACEPOINT_EVENT(foreign, text,
	TP_ARGS(unsigned, ctx, const char *, s),
	TP_FIELDS(
		ctf_integer(unsigned, ctx, ctx)
		ctf_string(s, s)))

TRACEPOINT_EVENT(foreign, tick,
	TP_ARGS(unsigned, thread, unsigned, i),
	TP_FIELDS(
		ctf_integer(unsigned, thread, thread)
		ctf_integer(unsigned, i, i)))

#endif

#include <lttng/tracepoint-event.h>
