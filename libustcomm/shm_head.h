/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The pair (write_offset, last_timestamp) of shm_layout.h and the closing
 * of a packet: what every party that moves the writers' position shares.
 * The writers (libust/ring_buffer.c) reserve and switch with it; ustd
 * closes the open packet of a live stream with it (consumer.c,
 * ustcomm_cbuf_flush()), from another process, exactly as a writer on
 * another CPU would. Inline, so that the writers' fast path has no call.
 */
#ifndef USTCOMM_SHM_HEAD_H
#define USTCOMM_SHM_HEAD_H

#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <urcu/arch.h>
#include <urcu/uatomic.h>
#include "libustcomm/clock.h"
#include "libustcomm/ctf_layout.h"
#include "libustcomm/shm_layout.h"

struct ust_shm_head {
	uint64_t offset;
	uint64_t ts;
};

static inline void ust_shm_head_read(const struct ust_shm_ctl *ctl, struct ust_shm_head *h)
{
	/*
	 * Two loads, not one snapshot: a torn pair only makes the
	 * compare-and-exchange in ust_shm_head_move() fail and hand back the
	 * current one. The rmb keeps last_timestamp from being loaded before
	 * write_offset, which the fallback of ust_shm_head_move() relies on;
	 * it pairs with the full barrier of the movers' compare-and-exchange.
	 */
	h->offset = uatomic_read(&ctl->write_offset);
	cmm_smp_rmb();
	h->ts = uatomic_read(&ctl->last_timestamp);
}

/*
 * Moves the pair from *cur to (offset, ts) if it still equals *cur.
 * Returns 1 when it did; otherwise 0 with *cur updated to a fresh pair.
 * A full barrier either way.
 */
static inline int ust_shm_head_move(struct ust_shm_ctl *ctl, struct ust_shm_head *cur,
				    uint64_t offset, uint64_t ts)
{
#if defined(__x86_64__)
	int moved;

	/* The pair is 16-byte aligned (shm_layout.h), as cmpxchg16b needs. */
	__asm__ __volatile__("lock cmpxchg16b %[pair]"
			     : "=@ccz" (moved),
			       [pair] "+m" (*(struct ust_shm_head *)&ctl->write_offset),
			       "+a" (cur->offset), "+d" (cur->ts)
			     : "b" (offset), "c" (ts)
			     : "memory");
	return moved;
#else
	/*
	 * No 16-byte compare-and-exchange: write_offset alone, then a
	 * relaxed store of the time that may land out of order (an older
	 * time over a newer one). A time stored by a reservation after the
	 * offset we loaded is ordered after that reservation's exchange, so
	 * ours fails; when ours succeeds, the time we loaded is thus that of
	 * some reservation at or before our position, never newer than the
	 * true previous one. Order still holds because ust_clock_read() is
	 * clock_gettime() here, an ordered read: a writer whose exchange
	 * succeeds loaded write_offset after every earlier writer's
	 * exchange (full barrier) and read the clock after that load
	 * (ust_shm_head_read(), or this full barrier on retry), so its clock
	 * read follows theirs.
	 */
	uint64_t seen = uatomic_cmpxchg(&ctl->write_offset, cur->offset, offset);

	if (seen == cur->offset) {
		uatomic_set(&ctl->last_timestamp, ts);
		return 1;
	}
	ust_shm_head_read(ctl, cur);
	return 0;
#endif
}

/* The packet the writers had open, as a switch to the next boundary left it. */
struct ust_shm_switch {
	uint64_t begin;			/* the packet's first byte */
	uint64_t used;			/* its bytes so far; 0: a new, empty packet */
	uint64_t ts;			/* its timestamp_end */
	uint64_t discarded;		/* its events_discarded */
};

/*
 * Closes the packet the writers have open by moving their position to the
 * next sub-buffer boundary: ust_rb_flush() in the writers, and ustd's live
 * flush (ustcomm_cbuf_flush()) from another process, which are then alone
 * in the packet's context, as a writer's switch is. The time is read from
 * the clock the trace uses (tsc: clock.h) and is no older than the last
 * reservation's, so no older than any event of the packet.
 *
 * At a boundary no packet is open: returns 0, unless empty_limit is given
 * and the position is at most *empty_limit: then the whole sub-buffer is
 * taken for an empty packet (used 0). Returns 0 too after tries failed
 * exchanges (writers that keep moving the position win). Returns 1 with
 * *sw filled.
 */
static inline int ust_shm_switch_out(struct ust_shm_ctl *ctl, uint32_t subbuf_size, int tsc,
				     const uint64_t *empty_limit, unsigned tries,
				     struct ust_shm_switch *sw)
{
	struct ust_shm_head cur;
	uint64_t old, used, ts, discarded;

	ust_shm_head_read(ctl, &cur);
	for (; tries; tries--) {
		old = cur.offset;
		used = old & (subbuf_size - 1);
		if (!used && (!empty_limit || old > *empty_limit))
			return 0;
		/*
		 * Between two full barriers, as in the writers' switch: the
		 * closer of the next packet loads a later count.
		 */
		discarded = uatomic_read(&ctl->events_discarded);
		ts = ust_clock_read_kind(tsc);
		if (ts < cur.ts)
			ts = cur.ts;
		if (ust_shm_head_move(ctl, &cur, old - used + subbuf_size, ts)) {
			*sw = (struct ust_shm_switch) { old - used, used, ts, discarded };
			return 1;
		}
	}
	return 0;
}

/* Writes the packet header and the context fields known at open time,
 * for the packet number seq of a stream, opened at time ts. */
static inline void ust_shm_packet_open(char *pkt, const uint8_t *uuid, uint32_t stream_id,
				       uint32_t cpu, uint64_t seq, uint64_t ts)
{
	ust_put_u32(pkt + UST_PKT_MAGIC, UST_CTF_MAGIC);
	memcpy(pkt + UST_PKT_UUID, uuid, 16);
	ust_put_u32(pkt + UST_PKT_STREAM_ID, stream_id);
	ust_put_u64(pkt + UST_PKT_STREAM_INSTANCE_ID, cpu);
	ust_put_u64(pkt + UST_PKT_TIMESTAMP_BEGIN, ts);
	ust_put_u64(pkt + UST_PKT_SEQ_NUM, seq);
	ust_put_u32(pkt + UST_PKT_CPU_ID, cpu);
}

/* Records the context of the packet at pkt, closed after used bytes at
 * time ts; the closer then commits the padding to the boundary. */
static inline void ust_shm_packet_close(char *pkt, uint64_t used, uint64_t ts,
					uint64_t discarded)
{
	ust_put_u64(pkt + UST_PKT_TIMESTAMP_END, ts);
	ust_put_u64(pkt + UST_PKT_CONTENT_SIZE, used * 8);
	ust_put_u64(pkt + UST_PKT_PACKET_SIZE, used * 8);
	ust_put_u64(pkt + UST_PKT_EVENTS_DISCARDED, discarded);
}

#endif
