/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The blocking timeout (libustcomm/blocking.h): a writer that finds the
 * ring full waits for ustd to release a sub-buffer instead of discarding
 * the event, up to the channel's bound, never while the thread has an
 * event of its own open (a signal handler that interrupted a write) and
 * never once ustd is gone. Only ust_rb_reserve_slow() calls this, through
 * the buffer's wait_release (ring_buffer.h), where it is about to drop an
 * event: the common case of the event path is not touched.
 */
#ifndef UST_RING_BUFFER_WAIT_H
#define UST_RING_BUFFER_WAIT_H

#include <stdint.h>
#include "libust/ring_buffer.h"

/*
 * The sub-buffer starting at begin was found taken. Waits until ustd
 * releases a sub-buffer (or a bounded slice passes). Returns 0 when the
 * caller should look again, or a negative errno when it should discard:
 * -ETIMEDOUT (the bound passed, or an earlier wait of this buffer timed
 * out and ustd has released nothing since), -EPIPE (no ustd, or it died),
 * -EINTR (the calling thread has an event open: it interrupted itself).
 * Async-signal-safe: a clock, futex waits and a poll of the connection.
 */
int ust_rb_wait_release(struct ust_rb *rb, uint64_t begin, struct ust_rb_wait *w);

#endif
