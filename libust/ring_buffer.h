/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The writer's side of one stream buffer (libustcomm/shm_layout.h): a
 * lock-free reserve/commit ring of sub-buffers, each a CTF packet
 * (libustcomm/ctf_layout.h). Safe against preemption, migration to another
 * CPU, other threads writing the same buffer, and signal handlers that
 * trace while interrupting a write; never blocks, never calls malloc.
 */
#ifndef UST_RING_BUFFER_H
#define UST_RING_BUFFER_H

#include <stdint.h>
#include <stddef.h>
#include <urcu/uatomic.h>
#include <ust/core.h>
#include "libustcomm/clock.h"
#include "libustcomm/ctf_layout.h"
#include "libustcomm/shm_head.h"
#include "libustcomm/shm_layout.h"
#include "libust/rb_chain.h"

struct ust_rb_config {
	uint32_t subbuf_size;		/* power of two, within shm_layout.h limits */
	uint32_t subbuf_count;		/* power of two, within limits */
	uint32_t stream_id;
	uint32_t cpu;
	uint8_t uuid[16];
	const char *channel;
	int overwrite;			/* flight recorder (UST_SHM_FLAG_OVERWRITE) */
	int thread;			/* a thread buffer (thread_buffer.h) */
	int populate;			/* make every page before the first write:
					 * ust_rb_populate() */
	int reuse_wakeup;		/* 1: use wakeup_fd, 0: create an eventfd */
	int wakeup_fd;
	uint32_t blocking_us;		/* libustcomm/blocking.h; discard mode only */
};

struct ust_rb;

/* One reservation's wait for room, across the tries of its loop. */
struct ust_rb_wait {
	uint64_t deadline_ns;		/* CLOCK_MONOTONIC; 0: not started */
};

/*
 * How a writer that finds the ring full waits for the consumer to release
 * a sub-buffer (ring_buffer_wait.h, set by ust_rb_create()): 0 to look
 * again, or a negative errno to discard. The ring itself only discards,
 * so it needs to know nothing of waiting or of its consumer.
 */
typedef int (*ust_rb_wait_fn)(struct ust_rb *rb, uint64_t begin, struct ust_rb_wait *w);

struct ust_rb {
	struct ust_shm_ctl *ctl;	/* start of the mapping */
	char *data;			/* sub-buffer 0 */
	size_t map_size;
	uint32_t subbuf_size;		/* private copies: never re-read from shm */
	uint32_t subbuf_count;
	uint32_t cpu;
	uint32_t stream_id;		/* packet header fields, private too */
	int overwrite;			/* flight recorder: see shm_layout.h */
	/* A thread buffer (thread_buffer.h): written by the thread owner
	 * alone (its id; 0 while no thread holds it). */
	int thread;
	uint32_t owner;
	int populating;			/* its pages were asked for (populate) */
	/* Smallest payload that can never be recorded: a sub-buffer's worth,
	 * or more than UST_EVENT_SIZE_MAX allows with the longest header. */
	uint32_t payload_limit;
	uint8_t uuid[16];
	int shm_fd;			/* memfd, kept open for handing to ustd */
	int wakeup_fd;			/* eventfd, EFD_NONBLOCK */
	/* The slow path's alone (ring_buffer_wait.c), after the hot fields. */
	uint32_t blocking_us;		/* how long a full ring is waited for */
	ust_rb_wait_fn wait_release;
	/* Whether the consumer is still there to release sub-buffers: the
	 * layer that owns the connection says (channel.h). */
	int (*consumer_alive)(void);
	uint32_t stalled;		/* 1: a wait gave up at release stalled_seq */
	uint32_t stalled_seq;
	int unpopulated;		/* ust_rb_populate() has pages to make */
	uint64_t serial;		/* unique in the process: struct ust_rb_chain */
};

/* Creates the memfd and eventfd, maps and initialises the buffer.
 * Async-signal-safe: system calls only. */
int ust_rb_create(struct ust_rb *rb, const struct ust_rb_config *cfg);
/* Maps a buffer someone else made and initialised (ustd's rings of
 * buffers per user), as cfg says it is: -EPROTO when the buffer says
 * otherwise. Takes both descriptors, even on error. Async-signal-safe. */
int ust_rb_attach(struct ust_rb *rb, const struct ust_rb_config *cfg, int shm_fd, int wakeup_fd);
void ust_rb_destroy(struct ust_rb *rb);
/* Makes the buffer's pages, if config asked for it and it is not done:
 * milliseconds for megabytes, so done by whoever can wait (channel.h).
 * Async-signal-safe. */
void ust_rb_populate(struct ust_rb *rb);

/*
 * The out-of-line parts of the write path (ring_buffer.c): the general
 * reservation, which opens and closes packets and drops events when the
 * buffer is full, and the consumer's wake-up.
 */
int ust_rb_reserve_slow(struct ust_rb *rb, uint32_t event_id, size_t payload_len,
			struct ust_event_ctx *ctx);
void ust_rb_wakeup(struct ust_rb *rb);
/* Whether the sub-buffer starting at begin may be opened (shm_layout.h). */
int ust_rb_subbuf_free(struct ust_rb *rb, uint64_t begin);

static inline uint64_t ust_rb_subbuf_offset(const struct ust_rb *rb, uint64_t pos)
{
	return pos & (rb->subbuf_size - 1);
}

static inline char *ust_rb_pos_ptr(const struct ust_rb *rb, uint64_t pos)
{
	return rb->data +
		(size_t)ust_shm_subbuf_index(rb->subbuf_size, rb->subbuf_count, pos) *
		rb->subbuf_size + ust_rb_subbuf_offset(rb, pos);
}

/* The time of a reservation that follows the one recorded in cur, from
 * the clock read ts (the clamp of ring_buffer.c). */
static inline uint64_t ust_rb_time_after(const struct ust_shm_head *cur, uint64_t ts)
{
	return ts < cur->ts ? cur->ts : ts;
}

/*
 * Events this thread reserved and has not committed yet: more than 0 when
 * the writer is a signal handler (or a probe the handler runs) that
 * interrupted a write of the same thread. Such a writer must not wait for
 * ustd (ring_buffer_wait.c): the packet ustd needs back may be the one the
 * interrupted write holds open. Counted after the reservation succeeds and
 * until its commit, so a handler that lands between the exchange and the
 * count sees 0 and may wait for the interrupted event's packet, up to the
 * channel's blocking timeout (manual 11.6, "When the buffers fill").
 */
extern __thread uint32_t ust_rb_open_events
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

/*
 * Writes the header of the event just reserved at ev, of size bytes in
 * all, and hands its payload to the caller through ctx. The first byte
 * says "finished" (shm_layout.h): 0 until the commit. The consumer cleared
 * it already in discard mode; in overwrite mode it still holds a byte of an
 * older cycle, which this clears.
 */
static inline void ust_rb_event_begin(struct ust_rb *rb, struct ust_event_ctx *ctx,
				      uint64_t ev, uint64_t size, int compact,
				      uint32_t event_id, uint64_t ts)
{
	char *p = ust_rb_pos_ptr(rb, ev);
	unsigned hdr;
	uint8_t first = ust_event_header_write_tail(p, compact, event_id, ts, &hdr);

	ust_rb_open_events++;
	ctx->payload = p + hdr;
	ctx->buf = rb;
	ctx->offset = ev;
	/* size <= UST_EVENT_SIZE_MAX leaves the top byte for the first byte. */
	ctx->len = (uint32_t)size | (uint32_t)first << 24;
}

/*
 * Reserves an event of payload_len bytes with the given id: takes the
 * timestamp, writes the event header, opens and closes packets as needed.
 * Returns 0 with ctx->payload pointing at the payload, or -ENOBUFS when the
 * buffer is full (the event is counted in events_discarded).
 *
 * Inline, for the common case only: the clock is the TSC and the event
 * fits in the open packet. It is the general loop of ust_rb_reserve_slow()
 * with the packet switch and the opening of a packet taken out, so it keeps
 * the same invariants (ring_buffer.c): one 16-byte exchange from the pair
 * read to (end of the event, its clamped time). Anything else, at most once
 * per packet with the TSC, goes to ust_rb_reserve_slow(), which starts over
 * from a fresh read of the pair.
 *
 * Why: the locked exchange is a full barrier and waits until every store
 * before it has left the store buffer. The registers that a function with
 * every case in it saves and spills on entry are such stores, and on the
 * 2-vCPU machines of the README each one still waiting there cost about
 * a nanosecond (manual 10.1). This path calls nothing, and its fallbacks
 * are tail calls, so it saves only the registers it runs out of: with
 * GCC 12 on x86-64, 8 stores are ahead of the exchange counting the
 * site's own, against 23 when each layer was a function of its own.
 */
static inline int ust_rb_reserve(struct ust_rb *rb, uint32_t event_id, size_t payload_len,
				 struct ust_event_ctx *ctx)
{
	struct ust_shm_head cur;
	uint64_t old, ts, used, size;
	int compact;

	if (__builtin_expect(!ust_clock_is_tsc() || payload_len >= rb->payload_limit, 0))
		return ust_rb_reserve_slow(rb, event_id, payload_len, ctx);
	do {
		/*
		 * The clock before the pair, and the pair read again on each
		 * try: rdtsc overwrites the registers cmpxchg16b compares, so
		 * nothing has to be kept aside across it. The order of the two
		 * does not matter (the clock is not ordered anyway); the clamp
		 * and the exchange of the pair read are what keep times in order.
		 */
		ts = ust_clock_read_kind(1);
		ust_shm_head_read(rb->ctl, &cur);
		ts = ust_rb_time_after(&cur, ts);
		old = cur.offset;
		used = ust_rb_subbuf_offset(rb, old);
		/* cur.ts is the time of the previous event of this packet: see
		 * the compact header in ust_rb_reserve_slow(). */
		compact = ust_event_header_is_compact(event_id, ts, cur.ts);
		size = ust_event_header_size(compact) + payload_len;
		if (__builtin_expect(!used || used + size >= rb->subbuf_size, 0))
			return ust_rb_reserve_slow(rb, event_id, payload_len, ctx);
	} while (!ust_shm_head_move(rb->ctl, &cur, old + size, ts));
	ust_rb_event_begin(rb, ctx, old, size, compact, event_id, ts);
	return 0;
}


/*
 * Whether the chain's writer may reserve the short form that needs
 * short_key at pos in rb: its previous event there ended at pos.
 */
static inline int ust_rb_chain_continues(const struct ust_rb *rb, const struct ust_rb_chain *chain,
					 uint64_t pos, uint64_t short_key)
{
	/* Loaded again on each try: a signal handler may have moved it. */
	return __atomic_load_n(&chain->end, __ATOMIC_RELAXED) == pos &&
		__atomic_load_n(&chain->serial, __ATOMIC_RELAXED) == rb->serial &&
		(short_key == UST_RB_KEY_ANY ||
		 __atomic_load_n(&chain->key, __ATOMIC_RELAXED) == short_key);
}

/* Moves the chain past the event just reserved in rb in ctx, of the short
 * form or the long one (which gives the chain long_key). */
static inline void ust_rb_chain_advance(const struct ust_rb *rb, struct ust_rb_chain *chain,
					int is_short, uint64_t long_key,
					const struct ust_event_ctx *ctx)
{
	/*
	 * The end last, each store ordered after the one before against this
	 * thread's signal handlers (compiler barriers: same thread): a
	 * handler that sees the new end also sees the new serial and key.
	 */
	__atomic_store_n(&chain->end, UINT64_MAX, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&chain->serial, rb->serial, __ATOMIC_RELAXED);
	if (!is_short)
		__atomic_store_n(&chain->key, long_key, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&chain->end, ctx->offset + (ctx->len & UST_EVENT_SIZE_MAX),
			 __ATOMIC_RELAXED);
}

/*
 * ust_rb_reserve() of one of two forms: the short one (short_id,
 * short_len) when the chain ends at the reservation and short_key is
 * UST_RB_KEY_ANY or the chain's key, else the long one (long_id,
 * long_len), which also sets the chain's key to long_key. Returns 1 for
 * the short form, 0 for the long one, or -ENOBUFS. The slow path always
 * writes the long form: so does the first event of every packet, and a
 * reader that lost packets finds each chain's start in the packet.
 */
static inline int ust_rb_reserve_chained(struct ust_rb *rb, struct ust_rb_chain *chain,
					 uint32_t short_id, size_t short_len, uint64_t short_key,
					 uint32_t long_id, size_t long_len, uint64_t long_key,
					 struct ust_event_ctx *ctx)
{
	struct ust_shm_head cur;
	uint64_t old, ts, used, size;
	int compact, is_short, ret;

	if (__builtin_expect(!ust_clock_is_tsc() || long_len >= rb->payload_limit, 0))
		goto slow;
	do {
		ts = ust_clock_read_kind(1);
		ust_shm_head_read(rb->ctl, &cur);
		ts = ust_rb_time_after(&cur, ts);
		old = cur.offset;
		used = ust_rb_subbuf_offset(rb, old);
		is_short = ust_rb_chain_continues(rb, chain, old, short_key);
		compact = ust_event_header_is_compact(is_short ? short_id : long_id, ts, cur.ts);
		size = ust_event_header_size(compact) + (is_short ? short_len : long_len);
		if (__builtin_expect(!used || used + size >= rb->subbuf_size, 0))
			goto slow;
	} while (!ust_shm_head_move(rb->ctl, &cur, old + size, ts));
	ust_rb_event_begin(rb, ctx, old, size, compact, is_short ? short_id : long_id, ts);
	ret = is_short;
	goto chain;
slow:
	ret = ust_rb_reserve_slow(rb, long_id, long_len, ctx);
	if (ret < 0)
		return ret;
	is_short = 0;
chain:
	ust_rb_chain_advance(rb, chain, is_short, long_key, ctx);
	return ret;
}

/*
 * Adds len bytes to the commit count of sub-buffer idx, which completes its
 * packet at target (ust_shm_commit_target() of any position in it).
 */
static inline void ust_rb_commit_at(struct ust_rb *rb, uint32_t idx, uint64_t target,
				    uint64_t len)
{
	struct ust_shm_commit *commit = &ust_shm_commits(rb->ctl)[idx];

	/*
	 * uatomic_add_return() is a full barrier: the bytes committed are
	 * visible before the count that covers them. Pairs with the
	 * consumer's load of the count followed by cmm_smp_rmb() in
	 * ustcomm_cbuf_get(). Exactly one add reaches the target per cycle
	 * (the count of the next cycle cannot start growing before this one
	 * is consumed), so the consumer is woken once per packet.
	 */
	if (__builtin_expect(uatomic_add_return(&commit->count, len) == target, 0) &&
	    !rb->overwrite)
		ust_rb_wakeup(rb);
}

/* Adds len bytes to the commit count of the sub-buffer holding pos. */
static inline void ust_rb_commit_bytes(struct ust_rb *rb, uint64_t pos, uint64_t len)
{
	ust_rb_commit_at(rb, ust_shm_subbuf_index(rb->subbuf_size, rb->subbuf_count, pos),
			 ust_shm_commit_target(rb->subbuf_size, rb->subbuf_count, pos), len);
}

/* Publishes the reserved event; wakes the consumer when it completes a packet. */
static inline void ust_rb_commit(struct ust_rb *rb, const struct ust_event_ctx *ctx)
{
	/* Computed once, before the release store: the compiler may not move
	 * the loads of rb and ctx behind it, and would load them twice. */
	uint64_t pos = ctx->offset;
	uint32_t idx = ust_shm_subbuf_index(rb->subbuf_size, rb->subbuf_count, pos);
	uint64_t target = ust_shm_commit_target(rb->subbuf_size, rb->subbuf_count, pos);
	uint32_t len = ctx->len;
	uint8_t *first = (uint8_t *)rb->data + (size_t)idx * rb->subbuf_size +
		ust_rb_subbuf_offset(rb, pos);

	/*
	 * Release: the payload is in memory before the first byte that says
	 * it is finished, for the consumer that reads this buffer after a
	 * crash (shm_layout.h) or in a snapshot; on a crash the dying thread's
	 * stores land in program order. Then the commit count, whose add is a
	 * full barrier (ust_rb_commit_at()).
	 */
	__atomic_store_n(first, (uint8_t)(len >> 24), __ATOMIC_RELEASE);
	ust_rb_commit_at(rb, idx, target, len & UST_EVENT_SIZE_MAX);
	ust_rb_open_events--;
}

/* Closes the open packet, if any, so that the consumer can take it; a
 * thread buffer's only when its writer leaves it within a bounded wait. */
void ust_rb_flush(struct ust_rb *rb);

#endif
