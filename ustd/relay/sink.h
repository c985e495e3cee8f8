/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A trace streamed to lttng-relayd: the connection its streams send on,
 * and the way back to local files when relayd is lost. The way back is
 * the owner's (ustd/conn/relay_fallback.c): this layer tells it through
 * lost() and spill(), which the owner sets.
 */
#ifndef USTD_SINK_H
#define USTD_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ustd/relay/relay.h"
#include "ustd/relay/relay_pending.h"

struct ustcomm_cbuf;
struct ustd_relay_share;
/* The output of one of the trace's streams, the drain's
 * (ustd/conn/stream.h): handed to spill, never looked into here. */
struct ustd_stream_out;

struct ustd_sink {
	/* The connection: &own, or a ustd session's, which the processes of
	 * the session share (relay_share.h). */
	struct ustd_relay *relay;
	struct ustd_relay own;
	struct ustd_relay_share *share;	/* NULL with its own connection */
	struct ustd_sink *next_member;	/* in share's list */
	/* Called once, when sending failed: moves every stream of the trace
	 * to local files (their out.sink becomes NULL, and their fd and
	 * idx_fd the new files unless those could not be made), beginning
	 * with the packets relayd had not confirmed. */
	void (*lost)(struct ustd_sink *sink);
	/* Copies of the packets relayd has not confirmed writing. */
	struct ustd_relay_pending pending;
	/* The copies passed their bound, or one could not be made (out, pkt
	 * and len: that packet): asks relayd what it wrote, and writes the
	 * rest to the fallback. Returns 0 or a negative
	 * errno. */
	int (*spill)(struct ustd_sink *sink, struct ustd_stream_out *out, const char *pkt,
		     size_t len);
	/* Sends one packet of out's stream, ring bytes a cycle, for the drain,
	 * which may let release go once a copy is kept (*released): 1 when
	 * it is dealt with (sent, or in the fallback's hands), 0 when relayd
	 * was lost and the stream's new local file is to take it, or a
	 * negative errno. Set by the owner (ustd/conn/stream_relay.c). */
	int (*send)(struct ustd_sink *sink, struct ustd_stream_out *out, uint64_t ring,
		    const char *packet, size_t len, struct ustcomm_cbuf *release, bool *released);
};

#endif
