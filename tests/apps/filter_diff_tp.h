/* SPDX-License-Identifier: GPL-2.0-only */
/* The UST side of filter_diff_events.h: typed events fltdiff:e0 ... */
#ifndef FILTER_DIFF_TP_H
#define FILTER_DIFF_TP_H
#include <ust/tracepoint_event.h>
#include "filter_diff_events.h"

#define FILTER_DIFF_UST_EVENT(i) \
	TRACE_EVENT(fltdiff, e##i, TP_ARGS(FILTER_DIFF_ARGS), TP_FIELDS(FILTER_DIFF_FIELDS))
FILTER_DIFF_EVENTS(FILTER_DIFF_UST_EVENT)
#endif
