/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Crash rescue: turns the copy of a sub-buffer that its writers left
 * incomplete (commit count short of its target: the process died between a
 * reservation and its commit, or before a switch closed the packet) into a
 * packet babeltrace2 reads. Finished events are kept, unfinished ones
 * dropped and counted in events_discarded. Pure: works on a private copy,
 * trusts nothing in it.
 */
#ifndef USTD_RESCUE_H
#define USTD_RESCUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ustd/conn/layouts.h"

struct ustd_rescue_in {
	const char *pkt;		/* private copy, subbuf_size bytes */
	uint32_t subbuf_size;
	uint64_t seq_num;		/* begin / subbuf_size */
	uint32_t stream_id;
	uint32_t cpu;
	uint32_t ctx_size;		/* event context after each header */
	const uint8_t *uuid;		/* 16 bytes */
	/* Bytes reserved in the packet: write_offset - begin when the writers
	 * stopped inside it, else subbuf_size (a switch or a flush closed it,
	 * but its closer may have died before writing the context). */
	uint32_t reserved;
	/* Overwrite mode past the sub-buffer's first cycle: bytes no writer
	 * of this cycle stored yet, the packet header and context included,
	 * hold an older cycle's values. In discard mode ustd clears each
	 * sub-buffer before releasing it, so they are zeroes. */
	int stale;
	uint64_t committed;		/* bytes committed in this cycle */
	uint64_t last_timestamp;	/* the writers' last one */
	uint64_t discarded;		/* cumulative count so far, this stream */
	/* timestamp_end of the packet before it in the stream, 0 if none:
	 * the time a switch opened this packet, when its opener died before
	 * writing the header. */
	uint64_t prev_end;
	const struct ustd_layouts *layouts;
};

struct ustd_rescue_out {
	char *buf;			/* malloc'ed packet, len bytes; NULL: none */
	size_t len;
	uint64_t kept;			/* events in it */
	uint64_t dropped;		/* events lost (a lower bound) */
	uint64_t discarded;		/* the count recorded in its context */
};

/* Returns 0 (out->buf NULL when the header itself is unusable), or -ENOMEM. */
int ustd_rescue_packet(const struct ustd_rescue_in *in, struct ustd_rescue_out *out);

/* The events of the complete packet pkt (a private copy of len bytes) of
 * stream stream_id, up to its content_size: what is lost with a packet
 * that is never written. Stops at the first event that does not parse. */
uint64_t ustd_rescue_count_events(const char *pkt, size_t len, uint32_t stream_id,
				  uint32_t ctx_size, const struct ustd_layouts *layouts);
/* Whether every event of that packet parses, in time order within its
 * timestamps, and they end exactly at its content_size: a packet a
 * killed ustd's write left with bytes of another (file_takeover.h) does
 * not. */
bool ustd_rescue_packet_whole(const char *pkt, size_t len, uint32_t stream_id,
			      uint32_t ctx_size, const struct ustd_layouts *layouts);

#endif
