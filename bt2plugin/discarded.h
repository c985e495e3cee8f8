/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * What both sinks make of babeltrace2's discarded-events and
 * discarded-packets messages: the count, whether it can be believed, the
 * range; and, for the timeline, tracks on which ranges never overlap.
 */
#ifndef UST_BT2_DISCARDED_H
#define UST_BT2_DISCARDED_H

#include <stdbool.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>

#include "bt2plugin/ptrmap.h"

/*
 * A count of 2^63 or more is no loss: at a billion events a second it would
 * take three centuries. It is what babeltrace2 computes (the difference of
 * two packets' counters, unsigned) when a tracer's counter went backwards,
 * as LTTng-UST 2.13's sometimes does.
 */
#define UST_DISCARDED_SUSPECT	(UINT64_C(1) << 63)

struct ust_discarded {
	const bt_stream *stream;
	bool packets;			/* discarded packets, else events */
	bool have_count;		/* the count is known... */
	bool suspect;			/* ...but is >= UST_DISCARDED_SUSPECT */
	uint64_t count;
	bool have_times;		/* begin_ns and end_ns are set */
	int64_t begin_ns, end_ns;
};

/* msg is a discarded-events or discarded-packets message. */
void ust_discarded_read(const bt_message *msg, struct ust_discarded *d);

/*
 * Lanes: tracks for discarded ranges, a set per stream (so that a track
 * says which buffer lost), where a range goes on the first of its
 * stream's lanes whose last range ended at or before it begins: ranges on
 * a track never overlap, which the Trace Event Format requires of spans
 * ("X") that do not nest, whatever the order babeltrace2 gives them in.
 */
struct ust_lanes {
	struct ust_ptrmap streams;	/* bt_stream * -> struct ust_lanes_stream */
	int64_t next_tid;		/* handed out downwards */
};

/* next_tid: the first track number to hand out. */
void ust_lanes_init(struct ust_lanes *l, int64_t first_tid);
/*
 * The track (*tid) and lane number (*lane, 0 for the stream's first) for
 * the range [begin, end] of stream. Returns 0 or -ENOMEM.
 */
int ust_lanes_place(struct ust_lanes *l, const bt_stream *stream, int64_t begin, int64_t end,
		    int64_t *tid, unsigned *lane);
/* The stream ended: its address may be reused by a new one, which gets
 * lanes of its own. */
void ust_lanes_stream_end(struct ust_lanes *l, const bt_stream *stream);
void ust_lanes_fini(struct ust_lanes *l);

#endif
