/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The writer's side of a stream buffer: lock-free reserve/commit over the
 * layout and invariants of libustcomm/shm_layout.h, producing the packets of
 * libustcomm/ctf_layout.h.
 *
 * Signal safety: ust_rb_reserve(), ust_rb_commit() and ust_rb_flush() use
 * only atomic operations on shared memory, plain stores into space the
 * caller alone owns, clock_gettime() and write() to an eventfd, all
 * async-signal-safe; no malloc, no lock, no stdio. A signal handler that
 * traces into the buffer while the interrupted code is inside the
 * reservation loop makes the interrupted cmpxchg fail, so the interrupted
 * writer simply retries from a fresh position and a fresh clock read. A
 * handler that runs between the interrupted writer's reserve and commit
 * reserves space after it; the packet holding the interrupted event stays
 * incomplete (its commit count short of the target) until the interrupted
 * writer resumes and commits, so the consumer never sees a half-written
 * event. Nothing ever waits for anything, so there is no deadlock either.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <urcu/arch.h>
#include <urcu/uatomic.h>

#include "libust/ring_buffer.h"
#include "libustcomm/clock.h"
#include "libustcomm/ctf_layout.h"

static uint64_t rb_subbuf_offset(const struct ust_rb *rb, uint64_t pos)
{
	return pos & (rb->subbuf_size - 1);
}

static uint32_t rb_subbuf_index(const struct ust_rb *rb, uint64_t pos)
{
	return ust_shm_subbuf_index(rb->subbuf_size, rb->subbuf_count, pos);
}

static char *rb_pos_ptr(const struct ust_rb *rb, uint64_t pos)
{
	return rb->data + (size_t)rb_subbuf_index(rb, pos) * rb->subbuf_size +
		rb_subbuf_offset(rb, pos);
}

static void rb_wakeup(struct ust_rb *rb)
{
	uint64_t one = 1;

	/*
	 * Non-blocking: EAGAIN (counter saturated) or any other failure only
	 * delays the consumer until the next wakeup of this stream or the
	 * application's hang-up, when it drains everything; data is not lost.
	 */
	if (write(rb->wakeup_fd, &one, sizeof(one)) != sizeof(one))
		return;
}

/* Adds len bytes to the commit count of the sub-buffer holding pos. */
static void rb_commit_bytes(struct ust_rb *rb, uint64_t pos, uint64_t len)
{
	uint64_t begin = pos - rb_subbuf_offset(rb, pos);
	uint64_t target = ust_shm_commit_target(rb->subbuf_size, rb->subbuf_count, begin);
	struct ust_shm_commit *commit = &ust_shm_commits(rb->ctl)[rb_subbuf_index(rb, pos)];

	/*
	 * uatomic_add_return() is a full barrier: the bytes committed are
	 * visible before the count that covers them. Pairs with the
	 * consumer's load of the count followed by cmm_smp_rmb() in
	 * ustcomm_cbuf_get(). Exactly one add reaches the target per cycle
	 * (the count of the next cycle cannot start growing before this one
	 * is consumed), so the consumer is woken once per packet.
	 */
	if (uatomic_add_return(&commit->count, len) == target)
		rb_wakeup(rb);
}

/*
 * Can the sub-buffer starting at begin be opened? Only once the consumer
 * has released its previous cycle.
 */
static int rb_subbuf_free(struct ust_rb *rb, uint64_t begin)
{
	uint64_t ring = (uint64_t)rb->subbuf_size * rb->subbuf_count;
	uint64_t consumed = uatomic_read(&rb->ctl->consumed);

	/*
	 * Pairs with the cmm_smp_mb() before the consumer's release store of
	 * consumed in ustcomm_cbuf_put(): once we see the new value, the
	 * consumer is done reading. Our first store into the sub-buffer comes
	 * after the successful cmpxchg, itself a full barrier, so no store
	 * can overtake this load.
	 */
	cmm_smp_rmb();
	return begin + rb->subbuf_size - consumed <= ring;
}

/*
 * Closes the packet in which end falls (end is not on a boundary): records
 * its context and commits the padding up to the next boundary.
 */
static void rb_close_packet(struct ust_rb *rb, uint64_t end, uint64_t ts,
			    uint64_t discarded)
{
	uint64_t used = rb_subbuf_offset(rb, end);
	uint64_t begin = end - used;
	char *pkt = rb_pos_ptr(rb, begin);

	ust_put_u64(pkt + UST_PKT_TIMESTAMP_END, ts);
	ust_put_u64(pkt + UST_PKT_CONTENT_SIZE, used * 8);
	ust_put_u64(pkt + UST_PKT_PACKET_SIZE, used * 8);
	ust_put_u64(pkt + UST_PKT_EVENTS_DISCARDED, discarded);
	rb_commit_bytes(rb, begin, rb->subbuf_size - used);
}

/* Writes the header and the context fields known at open time. */
static void rb_open_packet(struct ust_rb *rb, uint64_t begin, uint64_t ts)
{
	char *pkt = rb_pos_ptr(rb, begin);

	ust_put_u32(pkt + UST_PKT_MAGIC, UST_CTF_MAGIC);
	memcpy(pkt + UST_PKT_UUID, rb->uuid, sizeof(rb->uuid));
	ust_put_u32(pkt + UST_PKT_STREAM_ID, rb->stream_id);
	ust_put_u64(pkt + UST_PKT_STREAM_INSTANCE_ID, rb->cpu);
	ust_put_u64(pkt + UST_PKT_TIMESTAMP_BEGIN, ts);
	ust_put_u64(pkt + UST_PKT_SEQ_NUM, begin / rb->subbuf_size);
	ust_put_u32(pkt + UST_PKT_CPU_ID, rb->cpu);
	rb_commit_bytes(rb, begin, UST_PKT_HEADER_SIZE);
}

int ust_rb_reserve(struct ust_rb *rb, uint32_t event_id, size_t payload_len,
		   struct ust_event_ctx *ctx)
{
	struct ust_shm_ctl *ctl = rb->ctl;
	uint64_t old, ev, ts, prev, size, discarded = 0;
	unsigned int hdr;
	int compact, opens, closes, ret = 0;

	/* Can never fit; the early test also keeps the sizes below from overflowing. */
	if (payload_len >= rb->subbuf_size)
		goto drop;
	do {
		/*
		 * Order matters: write_offset, then last_timestamp, then the
		 * clock. A writer whose cmpxchg fails because another one
		 * reserved first reads the clock again, after that other
		 * writer's clock read, so times never decrease in buffer
		 * order (babeltrace2 requires it within a stream).
		 */
		old = uatomic_read(&ctl->write_offset);
		cmm_smp_rmb();	/* pairs with the full barrier of the cmpxchg below */
		prev = uatomic_read(&ctl->last_timestamp);
		ts = ust_clock_read();

		opens = rb_subbuf_offset(rb, old) == 0;
		closes = 0;
		ev = opens ? old + UST_PKT_HEADER_SIZE : old;
		/*
		 * The compact header stores the low 27 bits of the time and is
		 * only decodable when fewer than 2^27 ticks passed since the
		 * previous event of the packet (or timestamp_begin). We do not
		 * know the previous event's exact time, but prev is a time of
		 * some event at or before our position (a later event would
		 * have moved write_offset and made our cmpxchg fail), hence
		 * never newer than the true previous event. The gap measured
		 * from prev is thus never smaller than the true gap: compact
		 * is only chosen when it is safe. The first event of a packet
		 * is compared with its own time, which is timestamp_begin.
		 */
		if (opens)
			prev = ts;
		compact = ust_event_header_is_compact(event_id, ts, prev);
		size = ust_event_header_size(compact) + payload_len;
		if (!opens && rb_subbuf_offset(rb, ev) + size >= rb->subbuf_size) {
			/* Switch: close this packet, open the next one. */
			closes = 1;
			opens = 1;
			ev = old - rb_subbuf_offset(rb, old) + rb->subbuf_size +
				UST_PKT_HEADER_SIZE;
			compact = ust_event_header_is_compact(event_id, ts, ts);
			size = ust_event_header_size(compact) + payload_len;
			/*
			 * Loaded after write_offset (rmb above) and before
			 * the cmpxchg (full barrier): the closer of the next
			 * packet loads a later value, so the cumulative
			 * count never decreases from packet to packet.
			 */
			discarded = uatomic_read(&ctl->events_discarded);
		}
		if (opens && (UST_PKT_HEADER_SIZE + size >= rb->subbuf_size ||
			      !rb_subbuf_free(rb, ev - UST_PKT_HEADER_SIZE)))
			goto drop;
	} while (uatomic_cmpxchg(&ctl->write_offset, old, ev + size) != old);

	/*
	 * A relaxed store is enough: readers only need some time of an event
	 * at or before their position. Stores may land out of order (an
	 * older time overwriting a newer one), which only makes later
	 * readers more conservative; a store from an event after a reader's
	 * position is ordered after that event's cmpxchg (full barrier), so
	 * the reader's own cmpxchg fails and it starts over.
	 */
	uatomic_set(&ctl->last_timestamp, ts);
	if (closes)
		rb_close_packet(rb, old, ts, discarded);
	if (opens)
		rb_open_packet(rb, ev - UST_PKT_HEADER_SIZE, ts);
	hdr = ust_event_header_write(rb_pos_ptr(rb, ev), compact, event_id, ts);
	ctx->payload = rb_pos_ptr(rb, ev) + hdr;
	ctx->buf = rb;
	ctx->offset = ev;
	ctx->len = (uint32_t)size;
	goto end;
drop:
	/* Full (or too large): the open packet stays open, its closer records the count. */
	uatomic_inc(&ctl->events_discarded);
	ret = -ENOBUFS;
end:
	return ret;
}

void ust_rb_commit(struct ust_rb *rb, const struct ust_event_ctx *ctx)
{
	rb_commit_bytes(rb, ctx->offset, ctx->len);
}

void ust_rb_flush(struct ust_rb *rb)
{
	struct ust_shm_ctl *ctl = rb->ctl;
	uint64_t old, used, ts, discarded;

	for (;;) {
		old = uatomic_read(&ctl->write_offset);
		cmm_smp_rmb();	/* pairs with the full barrier of the cmpxchg below */
		used = rb_subbuf_offset(rb, old);
		if (!used)
			return;	/* at a boundary: no packet is open */
		discarded = uatomic_read(&ctl->events_discarded);
		/* After the offset: not older than any event of the packet. */
		ts = ust_clock_read();
		if (uatomic_cmpxchg(&ctl->write_offset, old,
				    old - used + rb->subbuf_size) == old)
			break;
	}
	rb_close_packet(rb, old, ts, discarded);
}
