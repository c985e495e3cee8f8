/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Crash rescue (ustd/conn/rescue.c) on packets the real writer (libust's ring
 * buffer) left incomplete: events reserved and never committed, in the
 * middle or at the end, in an open packet or in one a switch closed, with
 * compact and extended headers, and a packet corrupted after the fact.
 * Each rescued packet is decoded the way babeltrace2 reads it and its
 * events compared with those committed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ust/core.h>

#include "tap.h"
#include "libust/ring_buffer.h"
#include "libustcomm/consumer.h"
#include "libustcomm/ctf_layout.h"
#include "ustd/conn/layouts.h"
#include "ustd/conn/rescue.h"

#define SUBBUF		4096u
#define NSUBBUF		4u
#define STREAM		3u
#define ID_SMALL	1u	/* compact header */
#define ID_BIG		40u	/* always the extended header */
#define MAX_EV		512

static const uint8_t uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static struct ust_rb rb;
static struct ustcomm_cbuf cb;
static struct ustd_layouts layouts;

/* Payload: u32 seq, then a string of seq % 7 letters. */
static int emit(uint32_t id, uint32_t seq, int commit, struct ust_event_ctx *out)
{
	struct ust_event_ctx ctx;
	size_t n = seq % 7;
	int ret;

	ret = ust_rb_reserve(&rb, id, 4 + n + 1, &ctx);
	if (ret)
		return ret;
	memcpy(ctx.payload, &seq, 4);
	memset((char *)ctx.payload + 4, 'a', n);
	((char *)ctx.payload)[4 + n] = '\0';
	if (commit)
		ust_rb_commit(&rb, &ctx);
	if (out)
		*out = ctx;
	return 0;
}

static void add_layout(uint32_t id)
{
	struct {
		struct ustcomm_event_layout el;
		struct ustcomm_field_layout f[2];
	} m = {
		.el = { .stream_id = STREAM, .event_id = id, .nr_fields = 2 },
		.f = { { .kind = UST_FIELD_INTEGER, .size = 4 }, { .kind = UST_FIELD_STRING } },
	};

	ustd_layouts_add(&layouts, &m.el);
}

static void setup(void)
{
	struct ust_rb_config cfg = {
		.subbuf_size = SUBBUF, .subbuf_count = NSUBBUF, .stream_id = STREAM,
		.channel = "test",
	};

	memcpy(cfg.uuid, uuid, 16);
	if (ust_rb_create(&rb, &cfg) || ustcomm_cbuf_map(&cb, rb.shm_fd, SUBBUF, NSUBBUF)) {
		printf("Bail out! cannot create a ring buffer\n");
		exit(1);
	}
}

static void teardown(void)
{
	ustcomm_cbuf_unmap(&cb);
	ust_rb_destroy(&rb);
}

struct rescued {
	struct ustd_rescue_out out;
	uint32_t seqs[MAX_EV];
	unsigned nr;
	int valid;		/* decodes like babeltrace2, context consistent */
};

/* Decodes a rescued packet as a reader would. */
static void decode(struct rescued *r)
{
	const char *p = r->out.buf;
	uint64_t prev = ust_get_u64(p + UST_PKT_TIMESTAMP_BEGIN), ts, mask;
	size_t o = UST_PKT_HEADER_SIZE, len = r->out.len;
	uint32_t word, id;

	mask = (UINT64_C(1) << UST_EVENT_COMPACT_TS_BITS) - 1;
	r->valid = ust_get_u32(p) == UST_CTF_MAGIC && !memcmp(p + UST_PKT_UUID, uuid, 16) &&
		ust_get_u32(p + UST_PKT_STREAM_ID) == STREAM &&
		ust_get_u64(p + UST_PKT_CONTENT_SIZE) == len * 8 &&
		ust_get_u64(p + UST_PKT_PACKET_SIZE) == len * 8;
	while (r->valid && o < len && r->nr < MAX_EV) {
		if ((uint8_t)p[o] == UST_EVENT_ID_EXTENDED) {
			id = ust_get_u32(p + o + 1);
			ts = ust_get_u64(p + o + 5);
			o += UST_EVENT_HEADER_EXTENDED_SIZE;
		} else {
			word = ust_get_u32(p + o);
			id = word & 31;
			ts = (prev & ~mask) | (word >> 5);
			if (ts < prev)
				ts += mask + 1;
			o += UST_EVENT_HEADER_COMPACT_SIZE;
		}
		if ((id != ID_SMALL && id != ID_BIG) || ts < prev || o + 5 > len) {
			r->valid = 0;
			break;
		}
		prev = ts;
		r->seqs[r->nr++] = ust_get_u32(p + o);
		o += 4 + strlen(p + o + 4) + 1;
	}
	if (o != len || prev > ust_get_u64(p + UST_PKT_TIMESTAMP_END))
		r->valid = 0;
}

/* The opener of the packet died after its reservation, before writing and
 * committing the header: what ustd then sees. */
static uint64_t header_lost_end;
/* With header_lost_end: the header an older cycle left there (a stale
 * cycle, overwrite mode), else zeroes. */
static const char *stale_header;

/* Rescues the sub-buffer that begins at begin, as ustd does at a crash. */
static void rescue(uint64_t begin, char *copy, struct rescued *r)
{
	struct ustcomm_writer_state ws;
	uint64_t target = ust_shm_commit_target(SUBBUF, NSUBBUF, begin);
	uint64_t count = ustcomm_cbuf_commit_count(&cb, begin);
	struct ustd_rescue_in in;

	ustcomm_cbuf_writer_state(&cb, &ws);
	memcpy(copy, ustcomm_cbuf_subbuf(&cb, begin), SUBBUF);
	in = (struct ustd_rescue_in) {
		.pkt = copy, .subbuf_size = SUBBUF, .seq_num = begin / SUBBUF,
		.stream_id = STREAM, .cpu = 0, .uuid = uuid,
		.reserved = ws.write_offset - begin < SUBBUF ?
			(uint32_t)(ws.write_offset - begin) : SUBBUF,
		.stale = stale_header != NULL,
		.committed = count + SUBBUF - target,
		.last_timestamp = ws.last_timestamp,
		.discarded = 5,
		.layouts = &layouts,
	};
	if (header_lost_end) {
		in.prev_end = header_lost_end;
		if (stale_header)
			memcpy(copy, stale_header, UST_PKT_HEADER_SIZE);
		else
			memset(copy, 0, UST_PKT_HEADER_SIZE);
		in.committed -= UST_PKT_HEADER_SIZE;
	}
	memset(r, 0, sizeof(*r));
	if (ustd_rescue_packet(&in, &r->out) == 0 && r->out.buf)
		decode(r);
}

static int seqs_are(const struct rescued *r, const uint32_t *want, unsigned n)
{
	return r->valid && r->nr == n && !memcmp(r->seqs, want, n * sizeof(*want));
}

/*
 * Committed events from seq on, the consumer taking every full packet,
 * until half of the sub-buffer at begin (in its second cycle) is written:
 * the first of them there and how many. Returns the next seq.
 */
static uint32_t fill_second_cycle(uint64_t begin, uint32_t seq, uint32_t *first,
				  uint32_t *kept)
{
	struct ust_event_ctx ctx;
	const char *pkt;
	size_t len;

	while (rb.ctl->write_offset < begin + SUBBUF / 2) {
		if (emit(ID_SMALL, seq, 1, &ctx) == 0) {
			if (ctx.offset >= begin && !(*kept)++)
				*first = seq;
			seq++;
			continue;
		}
		while (ustcomm_cbuf_get(&cb, &pkt, &len) == 1)
			ustcomm_cbuf_put(&cb);
	}
	return seq;
}

static void test_open_packet_gap(void)
{
	static const uint32_t want[] = { 0, 1, 3, 4, 5 };
	struct ust_event_ctx pending;
	char copy[SUBBUF];
	struct rescued r;
	uint32_t i;

	setup();
	for (i = 0; i < 6; i++)
		emit(ID_SMALL, i, i != 2, i == 2 ? &pending : NULL);
	rescue(0, copy, &r);
	tap_ok(seqs_are(&r, want, 5), "open packet: the unfinished event in the middle is stepped over (%u events, valid %d)",
	       r.nr, r.valid);
	tap_ok(r.out.dropped == 1 && ust_get_u64(r.out.buf + UST_PKT_EVENTS_DISCARDED) == 6,
	       "open packet: it counts as discarded, on top of the count so far");
	free(r.out.buf);
	/* Once it is committed, nothing is lost. */
	ust_rb_commit(&rb, &pending);
	rescue(0, copy, &r);
	tap_ok(r.valid && r.nr == 6 && r.out.dropped == 0, "open packet, all committed: all kept");
	free(r.out.buf);
	teardown();
}

static void test_two_gaps(void)
{
	static const uint32_t want[] = { 0 };
	char copy[SUBBUF];
	struct rescued r;
	uint32_t i;

	setup();
	for (i = 0; i < 6; i++)
		emit(ID_SMALL, i, i != 1 && i != 3, NULL);
	rescue(0, copy, &r);
	tap_ok(seqs_are(&r, want, 1), "two unfinished events: cut at the first (%u events)", r.nr);
	tap_ok(r.out.dropped >= 1, "two unfinished events: the loss is counted (%llu)",
	       (unsigned long long)r.out.dropped);
	free(r.out.buf);
	teardown();
}

static void test_unfinished_last(void)
{
	static const uint32_t want[] = { 0, 1, 2, 3 };
	char copy[SUBBUF];
	struct rescued r;
	uint32_t i;

	setup();
	for (i = 0; i < 5; i++)
		emit(i % 2 ? ID_BIG : ID_SMALL, i, i != 4, NULL);
	rescue(0, copy, &r);
	tap_ok(seqs_are(&r, want, 4) && r.out.dropped == 1,
	       "the last event unfinished, extended headers: the others kept, one dropped");
	free(r.out.buf);
	teardown();
}

static void test_closed_packet_gap(void)
{
	char copy[SUBBUF];
	struct rescued r;
	uint32_t i, seq = 0, in_first = 0, stuck = 7;
	uint64_t wo;

	setup();
	/* Fill the first packet past its end, event 7 never committed: a
	 * switch closes it (context written, padding committed). */
	for (;;) {
		wo = ustcomm_cbuf_write_position(&cb);
		if (wo >= SUBBUF)
			break;
		emit(seq % 3 ? ID_SMALL : ID_BIG, seq, seq != stuck, NULL);
		seq++;
	}
	in_first = seq - 1;	/* the last one opened the second packet */
	for (i = 0; i < 3; i++, seq++)
		emit(ID_SMALL, seq, 1, NULL);
	tap_ok(ustcomm_cbuf_get(&cb, &(const char *){ NULL }, &(size_t){ 0 }) == 0,
	       "closed packet with an unfinished event: incomplete for the consumer");
	rescue(0, copy, &r);
	tap_ok(r.valid && r.nr == in_first - 1 && r.out.dropped == 1,
	       "closed packet: every committed event kept (%u of %u), the unfinished one dropped",
	       r.nr, in_first);
	for (i = 0; r.valid && i < r.nr; i++) {
		if (r.seqs[i] != i + (i >= stuck))
			r.valid = 0;
	}
	tap_ok(r.valid, "closed packet: in order, nothing else");
	free(r.out.buf);
	rescue(SUBBUF, copy, &r);
	tap_ok(r.valid && r.nr == 4 && r.seqs[0] == in_first && r.out.dropped == 0,
	       "the open packet after it: complete with its events");
	free(r.out.buf);
	teardown();
}

static void test_corrupted(void)
{
	static const uint32_t want[] = { 0, 1 };
	size_t o = UST_PKT_HEADER_SIZE;
	char copy[SUBBUF], *p;
	struct rescued r;
	uint32_t i;

	setup();
	for (i = 0; i < 4; i++)
		emit(ID_SMALL, i, i != 3, NULL);
	/* An id nobody described, where event 2 is. */
	p = (char *)ustcomm_cbuf_subbuf(&cb, 0);
	for (i = 0; i < 2; i++)
		o += UST_EVENT_HEADER_COMPACT_SIZE + 4 + i % 7 + 1;
	p[o] = (char)((p[o] & ~31) | 29);
	rescue(0, copy, &r);
	tap_ok(seqs_are(&r, want, 2) && r.out.dropped >= 1,
	       "an unknown id: cut there, the loss counted");
	free(r.out.buf);
	/* A header the opener never wrote: no packet. */
	memset(p, 0, 4);
	rescue(0, copy, &r);
	tap_ok(!r.out.buf && r.out.dropped == 1, "no magic: no packet, a loss counted");
	teardown();
}

static void test_header_lost(void)
{
	static const uint32_t want[] = { 1, 2, 3 };
	char copy[SUBBUF];
	struct rescued r;
	uint32_t i;

	setup();
	/* Its own event unfinished too: it died right after the reservation. */
	for (i = 0; i < 4; i++)
		emit(ID_SMALL, i, i != 0, NULL);
	header_lost_end = ust_get_u64(ustcomm_cbuf_subbuf(&cb, 0) + UST_PKT_TIMESTAMP_BEGIN);
	rescue(0, copy, &r);
	tap_ok(seqs_are(&r, want, 3) && r.out.dropped == 1 &&
	       ust_get_u64(r.out.buf + UST_PKT_TIMESTAMP_BEGIN) == header_lost_end,
	       "header never written: rebuilt, beginning when the packet before ended (%u events)",
	       r.nr);
	free(r.out.buf);
	header_lost_end = 0;
	teardown();
}

/*
 * The same in a flight recorder's sub-buffer past its first cycle: the
 * opener died before writing the header, and the older cycle's header,
 * magic included, is still there (nothing clears a sub-buffer in
 * overwrite mode). It must not be taken for this cycle's.
 */
static void test_header_stale(void)
{
	const uint64_t begin = (uint64_t)SUBBUF * NSUBBUF;
	char old_header[UST_PKT_HEADER_SIZE], copy[SUBBUF];
	struct rescued r;
	uint32_t seq = 0, first = 0, kept = 0;

	setup();
	emit(ID_SMALL, seq++, 1, NULL);
	memcpy(old_header, ustcomm_cbuf_subbuf(&cb, 0), UST_PKT_HEADER_SIZE);
	seq = fill_second_cycle(begin, seq, &first, &kept);
	header_lost_end = ust_get_u64(ustcomm_cbuf_subbuf(&cb, begin) + UST_PKT_TIMESTAMP_BEGIN);
	stale_header = old_header;
	rescue(begin, copy, &r);
	tap_ok(r.valid && r.nr == kept && r.seqs[0] == first && r.out.dropped == 0 &&
	       ust_get_u64(r.out.buf + UST_PKT_TIMESTAMP_BEGIN) == header_lost_end &&
	       ust_get_u64(r.out.buf + UST_PKT_SEQ_NUM) == begin / SUBBUF,
	       "header never written, overwrite mode past the first cycle: the older header is not taken for it (%u of %u events, begins when the packet before ended)",
	       r.nr, kept);
	free(r.out.buf);
	header_lost_end = 0;
	stale_header = NULL;
	teardown();
}

/*
 * An event reserved long after the one before it and never finished, and
 * one committed right after it, whose compact header is relative to it:
 * kept, that one must still have its own time, so it gets an extended
 * header. ext: the unfinished one has an extended header too (more than
 * 2^27 ticks after the one before), else a compact one.
 */
static void test_far_gap(int ext)
{
	struct ust_event_ctx ctx;
	struct timespec pause = { 0, 90 * 1000 * 1000 };	/* 2^27 ns is 134 ms */
	uint64_t t_gap, t_last;
	char copy[SUBBUF];
	struct rescued r;
	const char *p;
	size_t o;

	setup();
	emit(ID_SMALL, 0, 1, NULL);
	nanosleep(&pause, NULL);
	if (ext)
		nanosleep(&pause, NULL);
	emit(ID_SMALL, 1, 0, &ctx);
	nanosleep(&pause, NULL);
	emit(ID_SMALL, 2, 1, NULL);
	p = ustcomm_cbuf_subbuf(&cb, 0);
	o = UST_PKT_HEADER_SIZE + UST_EVENT_HEADER_COMPACT_SIZE + 5;
	t_gap = ext ? ust_get_u64(p + o + 5) : 0;
	rescue(0, copy, &r);
	t_last = ust_get_u64(r.out.buf + UST_PKT_TIMESTAMP_END);
	tap_ok(r.valid && r.nr == 2 && r.seqs[1] == 2 && r.out.dropped == 1 &&
	       t_last - ust_get_u64(r.out.buf + UST_PKT_TIMESTAMP_BEGIN) > 170 * 1000 * 1000 &&
	       (uint8_t)r.out.buf[o] == UST_EVENT_ID_EXTENDED && (!ext || t_last > t_gap),
	       "unfinished %s event stepped over, the next one %s later gets an extended header with its own time",
	       ext ? "extended" : "compact", ext ? "270 ms" : "180 ms");
	free(r.out.buf);
	teardown();
}

/*
 * A writer that died right after its exchange, in the second cycle of a
 * sub-buffer, wrote nothing: not even the 0 of its first byte. That byte is
 * 0 all the same because the consumer cleared the sub-buffer when it
 * released it, so the reservation reads as unfinished, not as whatever
 * the first cycle left there.
 */
static void test_died_after_exchange(void)
{
	const uint64_t begin = (uint64_t)SUBBUF * NSUBBUF;
	char copy[SUBBUF];
	struct rescued r;
	uint32_t seq = 0, first = 0, kept = 0;

	setup();
	seq = fill_second_cycle(begin, seq, &first, &kept);
	/* Single-threaded here: the exchange of the writer that died. */
	rb.ctl->write_offset += 16;
	rescue(begin, copy, &r);
	tap_ok(r.valid && r.nr == kept && r.seqs[0] == first && r.seqs[kept - 1] == seq - 1 &&
	       r.out.dropped == 1,
	       "died right after its exchange, second cycle: the %u committed events kept, the reservation dropped (%u kept, %llu dropped)",
	       kept, r.nr, (unsigned long long)r.out.dropped);
	free(r.out.buf);
	teardown();
}

int main(void)
{
	add_layout(ID_SMALL);
	add_layout(ID_BIG);
	test_open_packet_gap();
	test_two_gaps();
	test_unfinished_last();
	test_closed_packet_gap();
	test_corrupted();
	test_header_lost();
	test_header_stale();
	test_far_gap(0);
	test_far_gap(1);
	test_died_after_exchange();
	ustd_layouts_free(&layouts);
	tap_plan(tap_count);
	return tap_done();
}
