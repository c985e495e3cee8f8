/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Waiting for ustd when the ring is full (ring_buffer_wait.h).
 *
 * How a writer waits: it sleeps on the futex word release_seq of the
 * buffer's shared control block, which ustd increments after every
 * release and wakes when a writer is counted in waiters (the protocol and
 * its barriers: shm_layout.h, ustcomm_cbuf_put()). No lock, no spinning:
 * the writer is woken by the release it waits for, or after a slice.
 *
 * Why slices: ustd killed with SIGKILL leaves no word behind, and a futex
 * cannot wait on a socket. After each slice without a release the writer
 * looks at its connection to ustd (hang-up means ustd is gone) and at the
 * deadline, so even "inf" ends within a slice of ustd's death.
 *
 * Why a stall mark: when a wait times out or finds ustd gone, the buffer
 * remembers release_seq. Until ustd releases again, the next writers that
 * find the ring full discard at once instead of each waiting out the
 * bound: a stopped ustd costs the program one bound, not one per event.
 */
#include <errno.h>
#include <time.h>
#include <urcu/uatomic.h>

#include "libust/ring_buffer_wait.h"
#include "libustcomm/blocking.h"
#include "libustcomm/clock.h"
#include "libustcomm/shm_futex.h"

/* Longest sleep between looks at ustd's connection and the deadline. */
#define WAIT_SLICE_NS		10000000ull

/* No way to tell is taken for gone: a wait must have an end. */
static int rb_consumer_alive(const struct ust_rb *rb)
{
	int (*alive)(void) = __atomic_load_n(&rb->consumer_alive, __ATOMIC_RELAXED);

	return alive && alive();
}

static int rb_stalled(struct ust_rb *rb, uint32_t seq)
{
	return uatomic_read(&rb->stalled) && uatomic_read(&rb->stalled_seq) == seq;
}

static int rb_give_up(struct ust_rb *rb, uint32_t seq, int err)
{
	/* A hint shared by the buffer's writers; a torn pair only costs
	 * one more wait or one discard more. */
	uatomic_set(&rb->stalled_seq, seq);
	uatomic_set(&rb->stalled, 1);
	return err;
}

int ust_rb_wait_release(struct ust_rb *rb, uint64_t begin, struct ust_rb_wait *w)
{
	struct ust_shm_ctl *ctl = rb->ctl;
	uint32_t bound = uatomic_read(&rb->blocking_us);
	uint32_t seq = uatomic_read(&ctl->release_seq);
	uint64_t now, left = WAIT_SLICE_NS;
	struct timespec slice;
	int ret = 0, r, saved_errno = errno;

	if (bound == UST_BLOCKING_NEVER || rb->overwrite)
		return -ETIMEDOUT;
	if (rb_stalled(rb, seq))
		return -ETIMEDOUT;
	now = ust_clock_read_kind(0);
	if (!w->deadline_ns) {
		/* Checked once per event: the count does not change while
		 * this writer runs (ring_buffer.h says why it matters). */
		if (ust_rb_open_events) {
			ret = -EINTR;
			goto end;
		}
		if (!rb_consumer_alive(rb)) {
			ret = rb_give_up(rb, seq, -EPIPE);
			goto end;
		}
		w->deadline_ns = bound == UST_BLOCKING_INF ? UINT64_MAX :
			now + (uint64_t)bound * 1000u;
	}
	if (now >= w->deadline_ns) {
		ret = rb_give_up(rb, seq, -ETIMEDOUT);
		goto end;
	}
	if (w->deadline_ns - now < left)
		left = w->deadline_ns - now;
	/*
	 * The add is a full barrier between our announcement and our second
	 * look at consumed (ust_rb_subbuf_free()); it pairs with the full
	 * barrier of ustd's add to release_seq between its store of consumed
	 * and its load of waiters (ustcomm_cbuf_put()). So either we see the
	 * release here, or ustd sees us and wakes us; and a release after
	 * our load of seq makes the futex return at once.
	 */
	uatomic_add_return(&ctl->waiters, 1);
	if (!ust_rb_subbuf_free(rb, begin)) {
		slice.tv_sec = (time_t)(left / 1000000000ull);
		slice.tv_nsec = (long)(left % 1000000000ull);
		r = ust_shm_futex_wait(&ctl->release_seq, seq, &slice);
		if (r < 0 && errno == ETIMEDOUT && uatomic_read(&ctl->release_seq) == seq &&
		    !rb_consumer_alive(rb))
			ret = rb_give_up(rb, seq, -EPIPE);
	}
	uatomic_add_return(&ctl->waiters, -1);
end:
	/* The program may be looking at errno around its tracepoint. */
	errno = saved_errno;
	return ret;
}
