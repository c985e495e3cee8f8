/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The consumer's side of a stream buffer (shm_layout.h): map the memfd,
 * take each complete sub-buffer in order, release it to the writers.
 * Nothing here trusts the mapping's contents: sizes are validated when
 * mapping, packet sizes when taking.
 */
#ifndef USTCOMM_CONSUMER_H
#define USTCOMM_CONSUMER_H

#include <stddef.h>
#include <stdint.h>
#include "libustcomm/common.h"
#include "libustcomm/shm_layout.h"

struct ustcomm_cbuf {
	struct ust_shm_ctl *ctl;
	char *data;			/* sub-buffer 0 */
	size_t map_size;
	uint32_t subbuf_size;		/* copies validated at map time */
	uint32_t subbuf_count;
	uint64_t consumed;		/* start of the next packet to take;
					 * ours: ctl->consumed is only written */
	int thread;			/* a thread buffer of a live writer:
					 * held for a flush (shm_thread.h) */
};

/* Maps shm_fd (does not take ownership of it); validates the header against
 * the sizes announced in the protocol message. */
USTCOMM_API int ustcomm_cbuf_map(struct ustcomm_cbuf *cb, int shm_fd,
				 uint32_t subbuf_size, uint32_t subbuf_count);
/* The same for an image of the buffer at offset (page-aligned) in fd; copy:
 * privately (copy-on-write), so that the file is only read, as the image
 * of an orphan's buffer is (orphan.h). */
USTCOMM_API int ustcomm_cbuf_map_at(struct ustcomm_cbuf *cb, int fd, uint64_t offset, int copy,
				    uint32_t subbuf_size, uint32_t subbuf_count);
USTCOMM_API void ustcomm_cbuf_unmap(struct ustcomm_cbuf *cb);

/* Returns 1 with the next complete packet (*packet, *len bytes to write out
 * unchanged), 0 when the next sub-buffer is not complete yet, or -EPROTO
 * when its packet context is inconsistent. */
USTCOMM_API int ustcomm_cbuf_get(struct ustcomm_cbuf *cb, const char **packet, size_t *len);
/*
 * The same for the sub-buffer at begin, one of the ring's next ones
 * (consumed <= begin < consumed + ring), taken before those before it are
 * put back: a consumer that writes several packets at once, then puts
 * them back in order as their writes complete.
 */
USTCOMM_API int ustcomm_cbuf_get_at(const struct ustcomm_cbuf *cb, uint64_t begin,
				    const char **packet, size_t *len);
/*
 * The writers' position now. A packet that ends at or before a position read
 * at time T holds only events reserved before T (metadata rule: see ustd).
 */
USTCOMM_API uint64_t ustcomm_cbuf_write_position(const struct ustcomm_cbuf *cb);
/* True when the next packet to take ends at or before position pos. */
USTCOMM_API int ustcomm_cbuf_next_ends_before(const struct ustcomm_cbuf *cb, uint64_t pos);
/* What the header of a packet of the stream holds (ctf_layout.h). */
struct ustcomm_packet_id {
	const uint8_t *uuid;		/* the trace's, 16 bytes */
	uint32_t stream_id;
	uint32_t cpu;
};

/*
 * Live streaming: closes the packet the writers have open, as a writer's
 * switch would, so that what was recorded so far can be taken while the
 * stream is idle. With empty and no packet open, makes an empty packet
 * (header only) instead, which tells a live viewer that the stream exists
 * and has nothing before now. tsc: the application's trace clock is the
 * TSC (its HELLO says). Discard mode only. Returns 1 when the packet closed is complete
 * (no writer is still inside it), else 0. A thread buffer whose writer
 * stays in a write for more than a moment (it waits for room, or is
 * stopped) is left as it is: 0.
 */
USTCOMM_API int ustcomm_cbuf_flush(struct ustcomm_cbuf *cb, int tsc,
				   const struct ustcomm_packet_id *empty);
/* Hands the packet returned by the last get back to the writers. */
USTCOMM_API void ustcomm_cbuf_put(struct ustcomm_cbuf *cb);

/*
 * Buffers per user: a writer of the next sub-buffer to take died inside
 * it (its commit count stays short, and every writer of every process
 * sharing the ring would soon find it full). Once the caller has written
 * what it could rescue of it, this completes its count, as the dead
 * writer's commit would have, so that the sub-buffer's later cycles add
 * up, and hands it back to the writers. Only for a sub-buffer no live
 * writer is still inside: the caller waited long enough (ustd's
 * uid_set.c says how long, and what happens to a writer stopped longer).
 */
USTCOMM_API void ustcomm_cbuf_release_stalled(struct ustcomm_cbuf *cb);
/* The same for a flight recorder's sub-buffer of the cycle that began at
 * begin, which the consumer does not take: pkt (len bytes, a rescued
 * packet, or NULL) replaces its contents, then its count is completed,
 * and the writers may open it again. */
USTCOMM_API void ustcomm_cbuf_repair(struct ustcomm_cbuf *cb, uint64_t begin, const char *pkt,
				     size_t len);

/* Checks the context of a complete packet (a sub-buffer or a private copy
 * of one) and gives the bytes to write: 0, or -EPROTO. */
USTCOMM_API int ustcomm_cbuf_packet_len(const struct ustcomm_cbuf *cb, const char *pkt,
					size_t *len);

/*
 * For the writers' crash (rescue) and the flight recorder, which look at
 * sub-buffers the consumer has not taken in order. begin is a position on
 * a sub-buffer boundary.
 */
USTCOMM_API const char *ustcomm_cbuf_subbuf(const struct ustcomm_cbuf *cb, uint64_t begin);
/* The commit count of the sub-buffer holding begin; the sub-buffer's bytes
 * read after this call are at least as new as the count. */
USTCOMM_API uint64_t ustcomm_cbuf_commit_count(const struct ustcomm_cbuf *cb, uint64_t begin);

struct ustcomm_writer_state {
	uint64_t write_offset;
	uint64_t last_timestamp;
	uint64_t events_discarded;
};
USTCOMM_API void ustcomm_cbuf_writer_state(const struct ustcomm_cbuf *cb,
					   struct ustcomm_writer_state *ws);

/*
 * Overwrite mode, writers running: copies the packet of the cycle that
 * began at begin into dst (subbuf_size bytes) and checks afterwards that
 * no writer of the next cycle touched it meanwhile. Returns 1 with *len
 * the bytes of dst to write, 0 when that cycle is not complete or was
 * overwritten during the copy, -EPROTO when its context is inconsistent.
 */
USTCOMM_API int ustcomm_cbuf_copy_stable(const struct ustcomm_cbuf *cb, uint64_t begin,
					 char *dst, size_t *len);

#endif
