/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <stdlib.h>

#include "bt2plugin/discarded.h"

static bool snapshot_ns(const bt_clock_snapshot *cs, int64_t *ns)
{
	return cs && bt_clock_snapshot_get_ns_from_origin(cs, ns) ==
		     BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK;
}

void ust_discarded_read(const bt_message *msg, struct ust_discarded *d)
{
	const bt_clock_snapshot *begin = NULL, *end = NULL;
	const bt_stream_class *sc;

	d->packets = bt_message_get_type(msg) == BT_MESSAGE_TYPE_DISCARDED_PACKETS;
	d->count = 0;
	if (d->packets) {
		d->stream = bt_message_discarded_packets_borrow_stream_const(msg);
		sc = bt_stream_borrow_class_const(d->stream);
		d->have_count = bt_message_discarded_packets_get_count(msg, &d->count) ==
				BT_PROPERTY_AVAILABILITY_AVAILABLE;
		if (bt_stream_class_discarded_packets_have_default_clock_snapshots(sc)) {
			begin = bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(msg);
			end = bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(msg);
		}
	} else {
		d->stream = bt_message_discarded_events_borrow_stream_const(msg);
		sc = bt_stream_borrow_class_const(d->stream);
		d->have_count = bt_message_discarded_events_get_count(msg, &d->count) ==
				BT_PROPERTY_AVAILABILITY_AVAILABLE;
		if (bt_stream_class_discarded_events_have_default_clock_snapshots(sc)) {
			begin = bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(msg);
			end = bt_message_discarded_events_borrow_end_default_clock_snapshot_const(msg);
		}
	}
	d->suspect = d->have_count && d->count >= UST_DISCARDED_SUSPECT;
	d->have_times = snapshot_ns(begin, &d->begin_ns) && snapshot_ns(end, &d->end_ns);
}

struct ust_lanes_stream {
	bool ended;
	unsigned nr, cap;
	struct lane {
		int64_t tid;
		int64_t last_end;
	} *lanes;
};

static void lanes_stream_free(void *p)
{
	struct ust_lanes_stream *s = p;

	free(s->lanes);
	free(s);
}

void ust_lanes_init(struct ust_lanes *l, int64_t first_tid)
{
	l->streams = (struct ust_ptrmap){ 0 };
	l->next_tid = first_tid;
}

int ust_lanes_place(struct ust_lanes *l, const bt_stream *stream, int64_t begin, int64_t end,
		    int64_t *tid, unsigned *lane)
{
	struct ust_lanes_stream *s = ust_ptrmap_get(&l->streams, (uintptr_t)stream);
	unsigned i;

	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s || ust_ptrmap_put(&l->streams, (uintptr_t)stream, s) < 0) {
			free(s);
			return -ENOMEM;
		}
	} else if (s->ended) {
		s->ended = false;
		s->nr = 0;
	}
	for (i = 0; i < s->nr; i++)
		if (s->lanes[i].last_end <= begin)
			break;
	if (i == s->nr) {
		if (s->nr == s->cap) {
			unsigned cap = s->cap ? 2 * s->cap : 2;
			struct lane *lanes = realloc(s->lanes, cap * sizeof(*lanes));

			if (!lanes)
				return -ENOMEM;
			s->lanes = lanes;
			s->cap = cap;
		}
		s->lanes[s->nr++].tid = l->next_tid--;
	}
	s->lanes[i].last_end = end;
	*tid = s->lanes[i].tid;
	*lane = i;
	return 0;
}

void ust_lanes_stream_end(struct ust_lanes *l, const bt_stream *stream)
{
	struct ust_lanes_stream *s = ust_ptrmap_get(&l->streams, (uintptr_t)stream);

	if (s)
		s->ended = true;
}

void ust_lanes_fini(struct ust_lanes *l)
{
	ust_ptrmap_fini(&l->streams, lanes_stream_free);
}
