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

#include <stdint.h>
#include <urcu/arch.h>
#include <urcu/uatomic.h>
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
