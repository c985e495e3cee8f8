/* SPDX-License-Identifier: GPL-2.0-only */
/* The LTTng-UST side of filter_diff_events.h: tracepoints fltdiff:e0 ... */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER fltdiff

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./filter_diff_lttng_tp.h"

#if !defined(FILTER_DIFF_LTTNG_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define FILTER_DIFF_LTTNG_TP_H

#include <lttng/tracepoint.h>
#include "filter_diff_events.h"

TRACEPOINT_EVENT_CLASS(fltdiff, fields, TP_ARGS(FILTER_DIFF_ARGS), TP_FIELDS(FILTER_DIFF_FIELDS))

#define FILTER_DIFF_LTTNG_EVENT(i) \
	TRACEPOINT_EVENT_INSTANCE(fltdiff, fields, e##i, TP_ARGS(FILTER_DIFF_ARGS))
FILTER_DIFF_EVENTS(FILTER_DIFF_LTTNG_EVENT)

#endif

#include <lttng/tracepoint-event.h>
