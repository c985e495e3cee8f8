/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The writer's side of a stream buffer: lock-free reserve/commit over the
 * layout and invariants of libustcomm/shm_layout.h, producing the packets of
 * libustcomm/ctf_layout.h. The common event (TSC clock, fits in the open packet)
 * takes the inline ust_rb_reserve() and ust_rb_commit() of ring_buffer.h;
 * everything else is here.
 *
 * Times never decrease in buffer order within a stream (babeltrace2
 * rejects a stream that goes back), even with writers on several CPUs, a
 * writer preempted or migrated in the middle of a reservation, and a clock
 * read that the CPU may execute out of order (ust_clock_read() has no
 * fence). The reservation moves the pair (write_offset, last_timestamp)
 * with one 16-byte compare-and-exchange, from the pair it read to (end of
 * its event, its time), and its time is its clock read clamped to at least
 * the last_timestamp it read. A successful exchange proves that pair was
 * current, so last_timestamp was exactly the time of the event (or switch,
 * or flush) just before ours in the buffer, and ours is no smaller. The
 * clamp only takes effect when the clock was read early or on a CPU whose
 * TSC lags by a few ticks; it then repeats the previous time.
 *
 * Signal safety: ust_rb_reserve(), ust_rb_commit() and ust_rb_flush() use
 * only atomic operations on shared memory, plain stores into space the
 * caller alone owns, rdtsc or clock_gettime() and write() to an eventfd,
 * all async-signal-safe; no malloc, no lock, no stdio. A signal handler
 * that traces into the buffer while the interrupted code is inside the
 * reservation loop moves the pair, so the interrupted compare-and-exchange
 * fails and the interrupted writer retries from the new pair and a fresh
 * clock read. A
 * handler that runs between the interrupted writer's reserve and commit
 * reserves space after it; the packet holding the interrupted event stays
 * incomplete (its commit count short of the target) until the interrupted
 * writer resumes and commits, so the consumer never sees a half-written
 * event. Nothing waits for anything, so there is no deadlock either,
 * except a writer of a channel with a blocking timeout that finds the
 * ring full (ring_buffer_wait.c): it holds no reservation while it waits,
 * and never waits in a signal handler, so every packet it waits for is
 * completed by writers that do not wait for it.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <urcu/arch.h>
#include <urcu/uatomic.h>

#include "libust/ring_buffer.h"
#include "libustcomm/clock.h"
#include "libustcomm/ctf_layout.h"
#include "libustcomm/shm_head.h"
#include "libustcomm/shm_thread.h"

/* How long a flush waits for a thread buffer's writer to leave its write. */
#define RB_THREAD_HOLD_NS	(100 * 1000 * 1000)

__thread uint32_t ust_rb_open_events __attribute__((tls_model("initial-exec")));

static uint32_t rb_subbuf_index(const struct ust_rb *rb, uint64_t pos)
{
	return ust_shm_subbuf_index(rb->subbuf_size, rb->subbuf_count, pos);
}

void ust_rb_wakeup(struct ust_rb *rb)
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

/*
 * Can the sub-buffer starting at begin be opened? In discard mode, once the
 * consumer has released its previous cycle; in overwrite mode, once every
 * writer of its previous cycle has committed (a writer preempted in it may
 * still be writing there).
 */
int ust_rb_subbuf_free(struct ust_rb *rb, uint64_t begin)
{
	uint64_t ring = (uint64_t)rb->subbuf_size * rb->subbuf_count;
	uint64_t consumed, count;
	unsigned int ring_shift;

	if (rb->overwrite) {
		/* The previous cycle's target, ust_shm_commit_target(begin - ring),
		 * written so that the first cycle (begin < ring) needs 0. */
		ring_shift = __builtin_ctz(rb->subbuf_size) + __builtin_ctz(rb->subbuf_count);
		count = uatomic_read(&ust_shm_commits(rb->ctl)[rb_subbuf_index(rb, begin)].count);
		/* Pairs with the full barrier of that cycle's last commit add:
		 * its writers are done with the bytes we are about to reuse. */
		cmm_smp_rmb();
		return count == (begin >> ring_shift) << __builtin_ctz(rb->subbuf_size);
	}
	consumed = uatomic_read(&rb->ctl->consumed);
	/*
	 * Pairs with the cmm_smp_mb() before the consumer's release store of
	 * consumed in ustcomm_cbuf_put(): once we see the new value, the
	 * consumer is done reading. Our first store into the sub-buffer comes
	 * after the successful exchange of ust_shm_head_move(), itself a full
	 * barrier, so no store can overtake this load.
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
	uint64_t used = ust_rb_subbuf_offset(rb, end);
	uint64_t begin = end - used;
	char *pkt = ust_rb_pos_ptr(rb, begin);

	ust_shm_packet_close(pkt, used, ts, discarded);
	ust_rb_commit_bytes(rb, begin, rb->subbuf_size - used);
}

/* Writes the header and the context fields known at open time. */
static void rb_open_packet(struct ust_rb *rb, uint64_t begin, uint64_t ts)
{
	char *pkt = ust_rb_pos_ptr(rb, begin);

	ust_shm_packet_open(pkt, rb->uuid, rb->stream_id, rb->cpu,
			    begin >> __builtin_ctz(rb->subbuf_size), ts);
	ust_rb_commit_bytes(rb, begin, UST_PKT_HEADER_SIZE);
}

/* Every case of ust_rb_reserve(); the inline one in ring_buffer.h takes the common one. */
int ust_rb_reserve_slow(struct ust_rb *rb, uint32_t event_id, size_t payload_len,
			struct ust_event_ctx *ctx)
{
	struct ust_shm_ctl *ctl = rb->ctl;
	struct ust_rb_wait wait = { 0 };
	struct ust_shm_head cur;
	uint64_t old, ev, ts, prev, size, discarded = 0;
	int compact, opens, closes, ret = 0;

	/* Can never fit; the early test also keeps the sizes below from overflowing. */
	if (payload_len >= rb->payload_limit)
		goto drop;
retry:
	ust_shm_head_read(ctl, &cur);
	do {
		ts = ust_rb_time_after(&cur, ust_clock_read());
		old = cur.offset;
		opens = ust_rb_subbuf_offset(rb, old) == 0;
		closes = 0;
		ev = opens ? old + UST_PKT_HEADER_SIZE : old;
		/*
		 * The compact header stores the low 27 bits of the time and is
		 * only decodable when fewer than 2^27 ticks passed since the
		 * previous event of the packet (or timestamp_begin). When our
		 * exchange succeeds, cur.ts is the time of the reservation
		 * just before ours: the previous event of the packet, or the
		 * flush or switch that closed the previous packet when we open
		 * one. (In the fallback of ust_shm_head_move() it may be older,
		 * which only makes the gap look larger: compact is still only
		 * chosen when it is safe.) The first event of a packet is
		 * compared with its own time, which is timestamp_begin.
		 */
		prev = opens ? ts : cur.ts;
		compact = ust_event_header_is_compact(event_id, ts, prev);
		size = ust_event_header_size(compact) + payload_len;
		if (!opens && ust_rb_subbuf_offset(rb, ev) + size >= rb->subbuf_size) {
			/* Switch: close this packet, open the next one. */
			closes = 1;
			opens = 1;
			ev = old - ust_rb_subbuf_offset(rb, old) + rb->subbuf_size +
				UST_PKT_HEADER_SIZE;
			compact = ust_event_header_is_compact(event_id, ts, ts);
			size = ust_event_header_size(compact) + payload_len;
			/*
			 * Loaded after write_offset (rmb in ust_shm_head_read(), or
			 * the full barrier of a failed exchange) and before
			 * our exchange (full barrier): the closer of the next
			 * packet loads a later value, so the cumulative count
			 * never decreases from packet to packet.
			 */
			discarded = uatomic_read(&ctl->events_discarded);
		}
		if (opens && UST_PKT_HEADER_SIZE + size >= rb->subbuf_size)
			goto drop;
		if (opens && !ust_rb_subbuf_free(rb, ev - UST_PKT_HEADER_SIZE)) {
			/* Full: discard, or with a blocking timeout wait for
			 * ustd and start over from a fresh pair and clock. */
			if (__builtin_expect(uatomic_read(&rb->blocking_us) != 0, 0) &&
			    rb->wait_release(rb, ev - UST_PKT_HEADER_SIZE, &wait) == 0)
				goto retry;
			goto drop;
		}
	} while (!ust_shm_head_move(ctl, &cur, ev + size, ts));

	if (closes)
		rb_close_packet(rb, old, ts, discarded);
	if (opens)
		rb_open_packet(rb, ev - UST_PKT_HEADER_SIZE, ts);
	ust_rb_event_begin(rb, ctx, ev, size, compact, event_id, ts);
	goto end;
drop:
	/* Full (or too large): the open packet stays open, its closer records the count. */
	uatomic_inc(&ctl->events_discarded);
	ret = -ENOBUFS;
end:
	return ret;
}

void ust_rb_flush(struct ust_rb *rb)
{
	struct ust_shm_switch sw;

	/*
	 * A thread buffer's writer leaves its write within nanoseconds,
	 * unless it waits for room, which ustd makes meanwhile, or it is the
	 * thread this flush runs on (a signal handler that interrupted its
	 * write): then it never does.
	 */
	if (rb->thread &&
	    ((__atomic_load_n(&rb->ctl->thread_busy, __ATOMIC_RELAXED) &&
	      __atomic_load_n(&rb->owner, __ATOMIC_RELAXED) == (uint32_t)syscall(SYS_gettid)) ||
	     ust_shm_thread_hold(rb->ctl, RB_THREAD_HOLD_NS) < 0))
		return;
	if (ust_shm_switch_out(rb->ctl, rb->subbuf_size, ustcomm_clock_use_tsc, NULL, UINT_MAX,
			       &sw))
		rb_close_packet(rb, sw.begin + sw.used, sw.ts, sw.discarded);
	if (rb->thread)
		ust_shm_thread_release(rb->ctl);
}
