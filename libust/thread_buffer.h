/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Thread buffers: rings of a channel beyond its per-CPU ones (channel.h),
 * each taken by one thread at a time, which then writes it alone with
 * plain loads and stores (libustcomm/shm_layout.h, UST_SHM_FLAG_THREAD).
 * For function events, two per call, where the per-CPU ring's 16-byte
 * compare-and-exchange and locked commit add were most of the cost
 * (manual 10.5), and for a channel's typed events when asked. A thread
 * takes a free one at its first such event in the channel and gives it
 * back when it exits; it keeps one per channel, in up to
 * UST_THREAD_SLOTS channels. An event goes to the per-CPU buffer instead
 * when no thread buffer (or slot) is free, when a flush holds the
 * thread's (libustcomm/shm_thread.h), and when a signal handler
 * interrupted the thread's own write to it.
 *
 * Async-signal-safe: the writer's stores go to memory only its thread
 * writes, and a handler that interrupts them writes elsewhere; taking a
 * buffer is one compare-and-exchange per buffer tried.
 */
#ifndef UST_THREAD_BUFFER_H
#define UST_THREAD_BUFFER_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "libust/channel.h"
#include "libust/ring_buffer.h"

/*
 * The calling thread's buffer in a channel, as last taken, and where the
 * thread's next event goes in it. The cursor (pos, at, room, last, count,
 * key) is the thread's own copy of what the buffer says: valid while the
 * buffer's write_offset is still pos, i.e. nobody else moved it (a flush
 * holds the buffer to move it: libustcomm/shm_thread.h).
 */
struct ust_thread_slot {
	const struct ust_channel *chan;
	uint64_t gen;			/* chan->gen when taken */
	struct ust_rb *rb;		/* NULL: none was free */
	uint64_t pos;			/* ring position of the next event */
	char *at;			/* its address */
	uint64_t room;			/* bytes from there to the packet's end */
	uint64_t last;			/* time of the event before */
	uint64_t *count;		/* commit count of its packet */
	uint64_t key;			/* the chain's (rb_chain.h), */
	int chained;			/* when the event before was a chained one */
	/* The first slot's only: the pairs of chained forms written here,
	 * with their ids, so that the common write reads neither form's
	 * binding (event_chain.c): valid while bound_gen equals
	 * ust_binding_gen (registry.h), which is never 0. Cleared before the
	 * slot changes channel or buffer. */
	struct ust_thread_pair {
		const void *brief, *full;	/* the forms' descriptors */
		uint64_t ids;			/* short form's id, long's << 32 */
	} pairs[2];
	uint64_t bound_gen;
};

/* Channels with thread buffers a thread writes at once: the first slot is
 * looked at inline, the others out of line. */
#define UST_THREAD_SLOTS	4

extern __thread struct ust_thread_slot ust_thread_slots[UST_THREAD_SLOTS]
	__attribute__((tls_model("initial-exec"), visibility("hidden")));
/* Writes of this thread into a thread buffer under way: more than 1 when
 * a signal handler's interrupts one. Only this thread and its handlers
 * touch it, each handler's changes undone before it returns. */
extern __thread uint32_t ust_thread_writing
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

/* At start-up, in a normal context, when channels get thread buffers: so
 * that a thread's buffers go back when it exits. populate: called when a
 * thread takes a buffer whose pages are still to be made (ust_rb_populate(),
 * by someone else: the taking thread is writing its first event);
 * async-signal-safe. */
void ust_thread_buffer_init(void (*populate)(void));
/* The calling thread's slot of chan, taking a free thread buffer of chan
 * into a free slot when it has none; NULL when no slot or no buffer is
 * free. */
struct ust_thread_slot *ust_thread_buffer_find(struct ust_channel *chan);
/* In a fork() child: the parent's buffers are gone (trace_fork.c). */
void ust_thread_buffer_forget(void);

/* The calling thread's buffer in chan, or NULL. */
static inline struct ust_thread_slot *ust_thread_buffer(struct ust_channel *chan)
{
	struct ust_thread_slot *slot = &ust_thread_slots[0];

	if (__builtin_expect(slot->chan != chan || slot->gen != chan->gen, 0))
		return ust_thread_buffer_find(chan);
	return slot->rb ? slot : NULL;
}

/*
 * Enters the thread's write to its buffer rb, or says -EAGAIN. Busy
 * already: we are a signal handler that interrupted this thread's write
 * (its store of 1 is the thread's own). Then, the slot must still hold
 * rb: a signal handler that landed before ust_thread_writing counted us
 * may have given the slot to another channel (only a retired channel's:
 * see ust_thread_buffer_find()), whose buffer nobody else takes, so our
 * store of thread_busy there harms no one; one that lands after cannot.
 */
static inline int ust_thread_enter(struct ust_thread_slot *slot, struct ust_rb *rb)
{
	struct ust_shm_ctl *ctl = rb->ctl;

	ust_thread_writing++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(__atomic_load_n(&ctl->thread_busy, __ATOMIC_RELAXED) != 0, 0))
		goto busy;
	__atomic_store_n(&ctl->thread_busy, 1, __ATOMIC_RELAXED);
	/*
	 * No CPU barrier between that store and the load of flush_req: the
	 * holder's membarrier gives this thread one (shm_thread.h). The
	 * compiler must still keep them in order. Acquire: pairs with the
	 * release store of ust_shm_thread_release(), so a flush that held
	 * the buffer before is seen whole, its position included.
	 */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(__atomic_load_n(&ctl->flush_req, __ATOMIC_ACQUIRE) != 0 ||
			     slot->rb != rb, 0)) {
		__atomic_store_n(&ctl->thread_busy, 0, __ATOMIC_RELEASE);
		goto busy;
	}
	return 0;
busy:
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ust_thread_writing--;
	return -EAGAIN;
}

/* Leaves it. Release: pairs with the holder's acquire load (shm_thread.h). */
static inline void ust_thread_leave(struct ust_rb *rb)
{
	__atomic_store_n(&rb->ctl->thread_busy, 0, __ATOMIC_RELEASE);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ust_thread_writing--;
}

/* The general case of ust_thread_reserve_chained(): thread_buffer.c. */
int ust_thread_reserve_slow(struct ust_thread_slot *slot, int chained, uint32_t long_id,
			    size_t long_len, uint64_t long_key, struct ust_event_ctx *ctx);

/* A few bytes: memcpy() of a length known only at run time is a call. */
static inline __attribute__((always_inline)) void ust_thread_copy(char *to, const char *from,
								   size_t len)
{
	for (; len >= sizeof(uint64_t); len -= sizeof(uint64_t)) {
		memcpy(to, from, sizeof(uint64_t));
		to += sizeof(uint64_t);
		from += sizeof(uint64_t);
	}
	if (len >= sizeof(uint32_t)) {
		memcpy(to, from, sizeof(uint32_t));
		to += sizeof(uint32_t);
		from += sizeof(uint32_t);
		len -= sizeof(uint32_t);
	}
	while (len--)
		*to++ = *from++;
}

/*
 * ust_rb_reserve_chained() into the thread's buffer when chained, else
 * ust_rb_reserve() (the long form only, which the short one then
 * repeats): the event's payload is written by the caller before
 * ust_thread_commit(), the thread staying in its write meanwhile.
 * Returns 1 (short form), 0 (long), -ENOBUFS (discarded, counted) or
 * -EAGAIN: write it to the per-CPU buffer instead.
 *
 * The same packets, invariants and order of stores as the per-CPU
 * buffer's reservation and commit (shm_layout.h), but by plain stores,
 * which the rules of UST_SHM_FLAG_THREAD allow between the stores of
 * thread_busy: the position (the reservation), then the event with its
 * first byte last and the commit count. So a rescue after a crash reads
 * it as it reads a per-CPU buffer. Inline, the common case only: the
 * TSC, a compact header, the event fits in the open packet and the cursor
 * is current. Everything else, at most once per packet or after a flush
 * or a pause of the thread, goes to ust_thread_reserve_slow(): here it
 * returns UST_THREAD_SLOW instead, the thread in its write, for callers
 * that keep the slow path out of line (ust_thread_reserve_chained() does
 * not).
 */
#define UST_THREAD_SLOW	2

static inline __attribute__((always_inline)) int
ust_thread_reserve_fast(struct ust_thread_slot *slot, int chained, uint32_t short_id,
			   size_t short_len, uint64_t short_key, uint32_t long_id,
			   size_t long_len, uint64_t long_key, struct ust_event_ctx *ctx)
{
	struct ust_rb *rb = slot->rb;
	struct ust_shm_ctl *ctl = rb->ctl;
	uint64_t ts, size;
	uint32_t word, id;
	int is_short;
	char *p;

	if (ust_thread_enter(slot, rb) < 0)
		return -EAGAIN;
	if (__builtin_expect(!ust_clock_is_tsc() ||
			     __atomic_load_n(&ctl->write_offset, __ATOMIC_RELAXED) != slot->pos, 0))
		goto slow;
	ts = ust_clock_read_kind(1);
	if (ts < slot->last)
		ts = slot->last;
	/* The previous event of the stream is this thread's (the cursor is
	 * current), a chained one unless a typed event came between. */
	is_short = chained && slot->chained &&
		(short_key == UST_RB_KEY_ANY || short_key == slot->key);
	id = is_short ? short_id : long_id;
	size = UST_EVENT_HEADER_COMPACT_SIZE + (is_short ? short_len : long_len);
	/* A packet always ends in padding: never exactly at the boundary. */
	if (__builtin_expect(!ust_event_header_is_compact(id, ts, slot->last) ||
			     size >= slot->room, 0))
		goto slow;
	p = slot->at;
	slot->pos += size;
	slot->at += size;
	slot->room -= size;
	slot->last = ts;
	if (!is_short)
		slot->key = long_key;
	slot->chained = chained;
	/* The reservation: ustd reads the pair while we write (drain
	 * statistics, a rescue after a crash): one aligned store each. */
	__atomic_store_n(&ctl->write_offset, slot->pos, __ATOMIC_RELAXED);
	__atomic_store_n(&ctl->last_timestamp, ts, __ATOMIC_RELAXED);
	word = id | (uint32_t)(ts << 5);
	ust_put_u32(p, word & ~UINT32_C(0xff));
	ctx->payload = p + UST_EVENT_HEADER_COMPACT_SIZE;
	ctx->buf = rb;
	/* What ust_thread_commit() needs: the slot, whose count the thread
	 * alone changes, and only in a write. */
	ctx->offset = (uintptr_t)slot;
	ctx->len = (uint32_t)size | (word & 0xff) << 24;
	return is_short;
slow:
	return UST_THREAD_SLOW;
}

/* ust_thread_reserve_fast(), its slow path included. */
static inline __attribute__((always_inline)) int
ust_thread_reserve_chained(struct ust_thread_slot *slot, int chained, uint32_t short_id,
			   size_t short_len, uint64_t short_key, uint32_t long_id,
			   size_t long_len, uint64_t long_key, struct ust_event_ctx *ctx)
{
	int ret = ust_thread_reserve_fast(slot, chained, short_id, short_len, short_key, long_id,
					  long_len, long_key, ctx);

	if (__builtin_expect(ret == UST_THREAD_SLOW, 0))
		ret = ust_thread_reserve_slow(slot, chained, long_id, long_len, long_key, ctx);
	return ret;
}

/* A typed event, of one form: ust_thread_reserve_chained() unchained. */
static inline int ust_thread_reserve(struct ust_thread_slot *slot, uint32_t id, size_t len,
				     struct ust_event_ctx *ctx)
{
	return ust_thread_reserve_chained(slot, 0, id, len, 0, id, len, 0, ctx);
}

/* Publishes what ust_thread_reserve*() reserved, and leaves the write. */
static inline void ust_thread_commit(const struct ust_event_ctx *ctx)
{
	const struct ust_thread_slot *slot = (const void *)(uintptr_t)ctx->offset;
	uint8_t byte = (uint8_t)(ctx->len >> 24);
	/* No context in a thread buffer: the header is just before the payload. */
	uint8_t *first = (uint8_t *)ctx->payload - (byte == UST_EVENT_ID_EXTENDED ?
						     UST_EVENT_HEADER_EXTENDED_SIZE :
						     UST_EVENT_HEADER_COMPACT_SIZE);

	/* Release, as in ust_rb_commit(): the event before its first byte. */
	__atomic_store_n(first, byte, __ATOMIC_RELEASE);
	/*
	 * Release: the event's bytes before the count that covers them;
	 * pairs with the consumer's load of the count and cmm_smp_rmb() in
	 * ustcomm_cbuf_get(), as the add of ust_rb_commit_at() does. No
	 * wakeup: the count cannot reach its target here, since the packet's
	 * padding, committed when the slow path closes it, is still to come.
	 */
	__atomic_store_n(slot->count, __atomic_load_n(slot->count, __ATOMIC_RELAXED) +
			 (ctx->len & UST_EVENT_SIZE_MAX), __ATOMIC_RELEASE);
	ust_thread_leave(ctx->buf);
}

#endif
