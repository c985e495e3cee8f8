/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How the packet of a dead writer is read back (shm_layout.h, ctf_layout.h):
 *
 * Every event's first byte is stored last and is never 0, and a cycle
 * begins on zeroes (or, in overwrite mode, each writer zeroes its first
 * byte right after reserving), so an event whose first byte is non-zero is
 * finished, and one whose first byte is 0 was reserved but never finished.
 * An unfinished event's size is unknown: it can be stepped over only when
 * the commit count gives it. The bytes reserved in the packet minus the
 * bytes committed in it is the total size of the unfinished events (plus
 * the closing padding when a closer died before committing it): when the
 * events after the first unfinished one parse to exactly the end of the
 * packet and account for every other committed byte, that first one was
 * the only one and the deficit is its size. Otherwise the packet is cut
 * at the first unfinished event and what follows counts as lost.
 *
 * The opener of a packet writes its header after its reservation, and may
 * die before: every header field is known to ustd but timestamp_begin,
 * which is then the time of the switch that closed the packet before
 * (the same reservation), that packet's timestamp_end. Its header bytes
 * are then not committed either.
 *
 * Compact headers hold the low 27 bits of the time, decoded against the
 * previous event's, so the event after one stepped over is decoded against
 * the best known time of that one (rescue_gap_time()); when the kept event
 * before it is then too far back for the reader to decode the same time
 * from the compact header, it is written with an extended header (the
 * packet grows by 9 bytes).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/ctf_layout.h"
#include "ustd/conn/rescue.h"

#define RESCUE_TS_MASK	((UINT64_C(1) << UST_EVENT_COMPACT_TS_BITS) - 1)

struct rescue_walk {
	const struct ustd_rescue_in *in;
	uint32_t *off, *size;		/* kept events */
	uint64_t *ts;			/* their times */
	/* Index of the kept event whose compact header no longer decodes
	 * against the event kept before it (it was encoded against the one
	 * stepped over): written with an extended header. UINT32_MAX: none. */
	uint32_t rewrite;
	uint32_t nr;
	uint64_t acc;			/* committed bytes accounted for */
	uint64_t hdr_committed;		/* 84, or 0 when the opener died first */
	uint64_t last_ts;
	uint32_t pos;			/* where the walk stopped */
};

/* Parses the finished event at o, ending at or before limit, not older than
 * prev; a compact header is decoded against base (the time of the event
 * just before it in the buffer, or the best known bound of it). Returns 0
 * with its size and time, -1 when it is not a valid event. */
static int rescue_parse(const struct ustd_rescue_in *in, uint32_t o, uint32_t limit,
			uint64_t prev, uint64_t base, uint32_t *size, uint64_t *ts)
{
	const struct ustd_event_layout *ev;
	const char *p = in->pkt + o;
	uint32_t id, word, hdr;
	int64_t payload;

	if ((uint8_t)p[0] == UST_EVENT_ID_EXTENDED) {
		hdr = UST_EVENT_HEADER_EXTENDED_SIZE;
		if (limit - o < hdr)
			return -1;
		id = ust_get_u32(p + 1);
		*ts = ust_get_u64(p + 5);
	} else {
		hdr = UST_EVENT_HEADER_COMPACT_SIZE;
		if (limit - o < hdr)
			return -1;
		word = ust_get_u32(p);
		id = word & 31u;
		*ts = (base & ~RESCUE_TS_MASK) | (word >> 5);
		if (*ts < base)
			*ts += RESCUE_TS_MASK + 1;
	}
	if (*ts < prev || *ts > in->last_timestamp)
		return -1;
	ev = ustd_layouts_find(in->layouts, in->stream_id, id);
	if (!ev)
		return -1;
	/* The event context has the same size in every event of the stream. */
	if (limit - o - hdr < in->ctx_size)
		return -1;
	hdr += in->ctx_size;
	payload = ustd_layout_payload_size(ev, p + hdr, limit - o - hdr);
	if (payload < 0)
		return -1;
	*size = hdr + (uint32_t)payload;
	return 0;
}

static void walk_reset(struct rescue_walk *w, uint64_t ts_begin)
{
	w->rewrite = UINT32_MAX;
	w->nr = 0;
	w->acc = w->hdr_committed;
	w->last_ts = ts_begin;
	w->pos = UST_PKT_HEADER_SIZE;
}

static void walk_keep(struct rescue_walk *w, uint32_t size, uint64_t ts)
{
	w->off[w->nr] = w->pos;
	w->size[w->nr] = size;
	w->ts[w->nr] = ts;
	w->nr++;
	w->acc += size;
	w->last_ts = ts;
	w->pos += size;
}

/*
 * The time of the unfinished event of size len at o, at least that of the
 * last kept event: its writer stores the header but its first byte right
 * after reserving. An extended header gives it whole when its id is known
 * and its time plausible. A compact one gives bits 3..26 (bits 0..2 are in
 * the first byte) and was at most 2^27 ticks after the event before it;
 * only a zeroed cycle (discard mode, or the first cycle of an overwrite
 * mode sub-buffer) tells written bytes from stale ones.
 */
static uint64_t rescue_gap_time(const struct rescue_walk *w, uint32_t o, uint32_t len)
{
	const struct ustd_rescue_in *in = w->in;
	const char *p = in->pkt + o;
	uint64_t prev = w->last_ts, ts;
	uint32_t word;

	if (len >= UST_EVENT_HEADER_EXTENDED_SIZE &&
	    ustd_layouts_find(in->layouts, in->stream_id, ust_get_u32(p + 1))) {
		ts = ust_get_u64(p + 5);
		if (ts >= prev && ts <= in->last_timestamp)
			return ts;
	}
	word = ust_get_u32(p) & ~UINT32_C(0xff);
	if (in->stale || !word)
		return prev;
	ts = (prev & ~RESCUE_TS_MASK) | (word >> 5);
	/* Bits 0..2 unknown: the same window when within 7 ticks below. */
	if (ts + 7 < prev)
		ts += RESCUE_TS_MASK + 1;
	return ts < prev ? prev : ts;
}

/*
 * The packet's events end exactly at end and its finished events hold
 * exactly events_bytes committed bytes (header included): walks it,
 * stepping over at most one unfinished event. Returns the number dropped
 * (0 or 1), or -1 when the packet does not fit that description.
 */
static int walk_exact(struct rescue_walk *w, uint64_t ts_begin, uint32_t end,
		      uint64_t events_bytes)
{
	uint64_t rem, ts, base;
	uint32_t size, gap;
	int gaps = 0;

	walk_reset(w, ts_begin);
	base = ts_begin;
	while (w->pos < end) {
		if (w->in->pkt[w->pos] == 0) {
			if (gaps || events_bytes < w->acc)
				return -1;
			rem = events_bytes - w->acc;
			if (rem > end - w->pos || end - w->pos - rem < UST_EVENT_HEADER_COMPACT_SIZE)
				return -1;
			gap = (uint32_t)(end - w->pos - rem);
			base = rescue_gap_time(w, w->pos, gap);
			w->pos += gap;
			gaps = 1;
			continue;
		}
		if (rescue_parse(w->in, w->pos, end, w->last_ts, base, &size, &ts) < 0)
			return -1;
		if ((uint8_t)w->in->pkt[w->pos] != UST_EVENT_ID_EXTENDED &&
		    !ust_event_header_is_compact(0, ts, w->last_ts))
			w->rewrite = w->nr;
		walk_keep(w, size, ts);
		base = ts;
	}
	return w->pos == end && w->acc == events_bytes ? gaps : -1;
}

/* Keeps finished events up to the first unfinished or invalid one, or until
 * every committed byte is accounted for. Returns the events lost (a lower
 * bound). */
static int walk_cut(struct rescue_walk *w, uint64_t ts_begin, uint32_t limit,
		    int end_known)
{
	const struct ustd_rescue_in *in = w->in;
	uint32_t size, i;
	uint64_t ts;
	int lost = 0;

	walk_reset(w, ts_begin);
	while (w->pos < limit && w->acc < in->committed && in->pkt[w->pos] != 0 &&
	       rescue_parse(in, w->pos, limit, w->last_ts, w->last_ts, &size, &ts) == 0)
		walk_keep(w, size, ts);
	/* Finished events past the cut. */
	if (w->acc < in->committed)
		lost++;
	if (end_known && w->pos < limit) {
		/* Something was reserved there and is not kept. */
		lost++;
	} else if (!in->stale && w->pos < limit) {
		/* Zeroed cycle: a non-zero byte is an unfinished event's. */
		for (i = w->pos; i < limit && i < w->pos + UST_EVENT_HEADER_EXTENDED_SIZE; i++) {
			if (in->pkt[i]) {
				lost++;
				break;
			}
		}
	}
	return lost;
}

/* Walks the packet as its counts describe it; -1 when it does not fit. */
static int rescue_walk_exact(struct rescue_walk *w, uint64_t ts_begin)
{
	const struct ustd_rescue_in *in = w->in;
	uint64_t content = ust_get_u64(in->pkt + UST_PKT_CONTENT_SIZE);
	uint64_t packet = ust_get_u64(in->pkt + UST_PKT_PACKET_SIZE);
	uint32_t hint;
	int ret;

	/* The writers stopped inside this packet: it ends there. */
	if (in->reserved < in->subbuf_size)
		return walk_exact(w, ts_begin, in->reserved, in->committed);
	/*
	 * Closed by a switch or a flush. Its closer writes the context, then
	 * commits the padding: when that context describes the packet, the
	 * padding may or may not be committed. In overwrite mode it may be an
	 * older cycle's context, which the walk then fails to match.
	 */
	if (content != packet || content % 8 || content < UST_PKT_HEADER_SIZE * 8 ||
	    content / 8 >= in->subbuf_size)
		return -1;
	hint = (uint32_t)(content / 8);
	ret = -1;
	if (in->committed >= in->subbuf_size - hint)
		ret = walk_exact(w, ts_begin, hint, in->committed - (in->subbuf_size - hint));
	return ret >= 0 ? ret : walk_exact(w, ts_begin, hint, in->committed);
}

/*
 * The header's commit is an add of its own: a header written was most
 * likely committed, but the opener may have died in between. When no
 * reading fits the counts, the packet is cut at the first unfinished or
 * invalid event (for a closed packet whose end is unknown, the last byte
 * of a sub-buffer is always padding).
 */
static int rescue_walk(struct rescue_walk *w, uint64_t ts_begin, int header_written)
{
	int open = w->in->reserved < w->in->subbuf_size;
	int ret;

	w->hdr_committed = header_written ? UST_PKT_HEADER_SIZE : 0;
	ret = rescue_walk_exact(w, ts_begin);
	if (ret < 0 && header_written) {
		w->hdr_committed = 0;
		ret = rescue_walk_exact(w, ts_begin);
		w->hdr_committed = ret < 0 ? UST_PKT_HEADER_SIZE : 0;
	}
	if (ret >= 0)
		return ret;
	return walk_cut(w, ts_begin, open ? w->in->reserved : w->in->subbuf_size - 1, open);
}

/*
 * Whether the opener of this cycle wrote the header. In a stale cycle
 * (overwrite mode) the older cycle's header is there, magic and all, until
 * the opener's stores: it is this cycle's only when it has this cycle's
 * sequence number and begins no earlier than the packet before ended (the
 * stores are plain, in any order, so both are checked).
 */
static int packet_header_written(const struct ustd_rescue_in *in, uint64_t ts_begin)
{
	if (ust_get_u32(in->pkt + UST_PKT_MAGIC) != UST_CTF_MAGIC)
		return 0;
	return !in->stale || (ust_get_u64(in->pkt + UST_PKT_SEQ_NUM) == in->seq_num &&
			      ts_begin >= in->prev_end);
}

int ustd_rescue_packet(const struct ustd_rescue_in *in, struct ustd_rescue_out *out)
{
	struct rescue_walk w = { .in = in };
	uint64_t ts_begin = ust_get_u64(in->pkt + UST_PKT_TIMESTAMP_BEGIN), ts_end;
	uint32_t i, len, max, id;
	int header_written, dropped, ret = 0;
	char *buf = NULL;

	memset(out, 0, sizeof(*out));
	out->discarded = in->discarded;
	header_written = packet_header_written(in, ts_begin);
	if (!header_written)
		ts_begin = in->prev_end;
	/* Without a time to start from, nothing in the packet can be placed. */
	if (!ts_begin || ts_begin > in->last_timestamp || in->reserved > in->subbuf_size ||
	    in->reserved <= UST_PKT_HEADER_SIZE) {
		out->dropped = in->committed > UST_PKT_HEADER_SIZE ||
			in->reserved > UST_PKT_HEADER_SIZE;
		out->discarded += out->dropped;
		goto end;
	}
	max = in->subbuf_size / UST_EVENT_HEADER_COMPACT_SIZE;
	w.off = malloc(sizeof(*w.off) * max);
	w.size = malloc(sizeof(*w.size) * max);
	w.ts = malloc(sizeof(*w.ts) * max);
	/* One compact header may become an extended one. */
	buf = malloc(in->subbuf_size + UST_EVENT_HEADER_EXTENDED_SIZE);
	if (!w.off || !w.size || !w.ts || !buf) {
		ret = -ENOMEM;
		goto end;
	}
	dropped = rescue_walk(&w, ts_begin, header_written);
	memcpy(buf, in->pkt, UST_PKT_HEADER_SIZE);
	len = UST_PKT_HEADER_SIZE;
	for (i = 0; i < w.nr; i++) {
		if (i == w.rewrite) {
			id = ust_get_u32(in->pkt + w.off[i]) & 31u;
			len += ust_event_header_write(buf + len, 0, id, w.ts[i]);
			memcpy(buf + len, in->pkt + w.off[i] + UST_EVENT_HEADER_COMPACT_SIZE,
			       w.size[i] - UST_EVENT_HEADER_COMPACT_SIZE);
			len += w.size[i] - UST_EVENT_HEADER_COMPACT_SIZE;
			continue;
		}
		memcpy(buf + len, in->pkt + w.off[i], w.size[i]);
		len += w.size[i];
	}
	/* Everything the opener wrote from known values, whatever it got to. */
	ust_put_u32(buf + UST_PKT_MAGIC, UST_CTF_MAGIC);
	ust_put_u64(buf + UST_PKT_TIMESTAMP_BEGIN, ts_begin);
	memcpy(buf + UST_PKT_UUID, in->uuid, 16);
	ust_put_u32(buf + UST_PKT_STREAM_ID, in->stream_id);
	ust_put_u64(buf + UST_PKT_STREAM_INSTANCE_ID, in->cpu);
	ust_put_u64(buf + UST_PKT_SEQ_NUM, in->seq_num);
	ust_put_u32(buf + UST_PKT_CPU_ID, in->cpu);
	ts_end = w.last_ts > ts_begin ? w.last_ts : ts_begin;
	ust_put_u64(buf + UST_PKT_TIMESTAMP_END, ts_end);
	ust_put_u64(buf + UST_PKT_CONTENT_SIZE, (uint64_t)len * 8);
	ust_put_u64(buf + UST_PKT_PACKET_SIZE, (uint64_t)len * 8);
	out->dropped = (uint64_t)dropped;
	out->discarded += out->dropped;
	ust_put_u64(buf + UST_PKT_EVENTS_DISCARDED, out->discarded);
	out->kept = w.nr;
	out->buf = buf;
	out->len = len;
	buf = NULL;
end:
	free(buf);
	free(w.off);
	free(w.size);
	free(w.ts);
	return ret;
}

/* Walks the events of the complete packet pkt up to its content_size:
 * their count, and where the walk stopped in *pos. */
static uint64_t rescue_walk_complete(const char *pkt, size_t len, uint32_t stream_id,
				     uint32_t ctx_size, const struct ustd_layouts *layouts,
				     uint64_t *pos_out, uint64_t *end_out)
{
	const struct ustd_rescue_in in = {
		.pkt = pkt,
		.stream_id = stream_id,
		.ctx_size = ctx_size,
		.last_timestamp = ust_get_u64(pkt + UST_PKT_TIMESTAMP_END),
		.layouts = layouts,
	};
	uint64_t end = ust_get_u64(pkt + UST_PKT_CONTENT_SIZE) / 8, n = 0;
	uint64_t ts = ust_get_u64(pkt + UST_PKT_TIMESTAMP_BEGIN);
	uint32_t pos = UST_PKT_HEADER_SIZE, size;

	if (end > len)
		end = len;
	while (pos < end && pkt[pos] != 0 &&
	       rescue_parse(&in, pos, (uint32_t)end, ts, ts, &size, &ts) == 0) {
		pos += size;
		n++;
	}
	*pos_out = pos;
	*end_out = end;
	return n;
}

uint64_t ustd_rescue_count_events(const char *pkt, size_t len, uint32_t stream_id,
				  uint32_t ctx_size, const struct ustd_layouts *layouts)
{
	uint64_t pos, end;

	return rescue_walk_complete(pkt, len, stream_id, ctx_size, layouts, &pos, &end);
}

bool ustd_rescue_packet_whole(const char *pkt, size_t len, uint32_t stream_id,
			      uint32_t ctx_size, const struct ustd_layouts *layouts)
{
	uint64_t pos, end;

	rescue_walk_complete(pkt, len, stream_id, ctx_size, layouts, &pos, &end);
	return end == ust_get_u64(pkt + UST_PKT_CONTENT_SIZE) / 8 && pos == end;
}
