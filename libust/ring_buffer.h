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
#include <ust/core.h>
#include "libustcomm/shm_layout.h"

struct ust_rb_config {
	uint32_t subbuf_size;		/* power of two, within shm_layout.h limits */
	uint32_t subbuf_count;		/* power of two, within limits */
	uint32_t stream_id;
	uint32_t cpu;
	uint8_t uuid[16];
	const char *channel;
	int overwrite;			/* flight recorder (UST_SHM_FLAG_OVERWRITE) */
	int reuse_wakeup;		/* 1: use wakeup_fd, 0: create an eventfd */
	int wakeup_fd;
};

struct ust_rb {
	struct ust_shm_ctl *ctl;	/* start of the mapping */
	char *data;			/* sub-buffer 0 */
	size_t map_size;
	uint32_t subbuf_size;		/* private copies: never re-read from shm */
	uint32_t subbuf_count;
	uint32_t cpu;
	uint32_t stream_id;		/* packet header fields, private too */
	int overwrite;			/* flight recorder: see shm_layout.h */
	/* Smallest payload that can never be recorded: a sub-buffer's worth,
	 * or more than UST_EVENT_SIZE_MAX allows with the longest header. */
	uint32_t payload_limit;
	uint8_t uuid[16];
	int shm_fd;			/* memfd, kept open for handing to ustd */
	int wakeup_fd;			/* eventfd, EFD_NONBLOCK */
};

/* Creates the memfd and eventfd, maps and initialises the buffer.
 * Async-signal-safe: system calls only. */
int ust_rb_create(struct ust_rb *rb, const struct ust_rb_config *cfg);
void ust_rb_destroy(struct ust_rb *rb);

/*
 * Reserves an event of payload_len bytes with the given id: takes the
 * timestamp, writes the event header, opens and closes packets as needed.
 * Returns 0 with ctx->payload pointing at the payload, or -ENOBUFS when the
 * buffer is full (the event is counted in events_discarded).
 */
int ust_rb_reserve(struct ust_rb *rb, uint32_t event_id, size_t payload_len,
		   struct ust_event_ctx *ctx);
/* Publishes the reserved event; wakes the consumer when it completes a packet. */
void ust_rb_commit(struct ust_rb *rb, const struct ust_event_ctx *ctx);
/* Closes the open packet, if any, so that the consumer can take it. */
void ust_rb_flush(struct ust_rb *rb);

#endif
