/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Events in two forms, a long one that says everything and a short one
 * that leaves out what the writer's previous event in the same stream
 * already said (ring_buffer.h, struct ust_rb_chain): libust-func's
 * function events, whose short forms carry no thread.
 */
#ifndef UST_EVENT_CHAIN_H
#define UST_EVENT_CHAIN_H

#include <stddef.h>
#include <stdint.h>
#include <ust/core.h>
#include "libust/rb_chain.h"

/* One form of an event: its site and its payload's length. */
struct ust_chain_form {
	const struct ust_event_desc *desc;
	size_t len;
	uint64_t key;		/* short: the chain's key it needs (UST_RB_KEY_ANY:
				 * none); long: the key it gives the chain */
};

/*
 * Reserves the short form when the calling thread's chain allows it
 * (ust_rb_reserve_chained()) and both forms are enabled in one channel,
 * else the long one. Returns 1 (short), 0 (long), or a negative errno
 * (-ENOENT: the long form is not enabled; -ENOBUFS: discarded).
 * Async-signal-safe, as ust_event_reserve_ip(). Committed with
 * ust_event_commit().
 */
int ust_event_reserve_chained(struct ust_event_ctx *ctx, struct ust_rb_chain *chain,
			      const struct ust_chain_form *brief,
			      const struct ust_chain_form *full);
/*
 * Writes the event whole, its payload brief_data (brief->len bytes) in the
 * short form or full_data in the long one, chosen as above; in the
 * thread's thread buffer when the channel has them and one is the
 * thread's (thread_buffer.h), which then keeps a chain of its own.
 * One call where reserve and commit took two, with the buffer's code
 * inline. Returns as ust_event_reserve_chained().
 */
int ust_event_write_chained(struct ust_rb_chain *chain,
			    const struct ust_chain_form *brief, const void *brief_data,
			    const struct ust_chain_form *full, const void *full_data);

#endif
