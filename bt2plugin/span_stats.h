/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Span durations for sink.ust.summary: events named `<span>_begin` and
 * `<span>_end` (also `_entry`/`_exit`, as sink.ust.perfetto pairs them;
 * traced functions excepted, func_profile.h) pair per track (thread, else
 * CPU) and nest: an end closes the innermost open span when its name
 * matches, else it is not a span end. Every duration is kept (8 bytes per
 * span) so that the percentiles are exact.
 */
#ifndef UST_BT2_SPAN_STATS_H
#define UST_BT2_SPAN_STATS_H

#include <stddef.h>
#include <stdint.h>

#include <babeltrace2/babeltrace.h>

#include "bt2plugin/ptrmap.h"

struct ust_span_stat {
	char *name;			/* "provider:name", without the suffix */
	int64_t *dur;			/* ns, one per closed span; sorted by ust_span_stats_rows() */
	size_t nr, cap;
	uint64_t unclosed;		/* begins without an end, at the end of the trace */
	struct ust_span_stat *next;	/* same name hash */
};

struct ust_span_stats {
	struct ust_ptrmap by_class;	/* bt_event_class * -> struct span_class */
	struct ust_ptrmap by_name;	/* name hash -> struct ust_span_stat, chained */
	struct ust_ptrmap tracks;	/* track key -> struct span_track */
};

/* An event of class ec at ns on track (a non-zero key); 0 or -ENOMEM. */
int ust_span_stats_event(struct ust_span_stats *ss, const bt_event_class *ec, uintptr_t track,
			 int64_t ns);
/* The spans seen, sorted by name, with their durations sorted and their
 * unclosed counts; NULL without memory. The array is the caller's to free. */
struct ust_span_stat **ust_span_stats_rows(struct ust_span_stats *ss, size_t *nr);
/* The p-th percentile (0 < p <= 100) of the sorted durations, nearest rank:
 * the smallest duration that at least p % of the spans do not exceed. */
int64_t ust_span_percentile(const struct ust_span_stat *s, unsigned int p);
void ust_span_stats_fini(struct ust_span_stats *ss);

#endif
