/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One stream buffer of an application (one channel on one CPU), mapped from
 * the memfd it sent, and the trace file its packets are copied to unchanged.
 */
#ifndef USTD_STREAM_H
#define USTD_STREAM_H

#include <stdbool.h>
#include "libustcomm/consumer.h"
#include "libustcomm/protocol.h"
#include "ustd/trace_dir.h"

struct ustd_stream {
	struct ustcomm_cbuf cb;
	int shm_fd;
	int wakeup_fd;			/* the writers' eventfd */
	int out_fd;
	uint64_t out_len;		/* bytes of whole packets in the file */
	bool open;
	char name[UST_SHM_CHANNEL_NAME_MAX + 16];	/* <channel>_<cpu> */
	const char *dir;		/* the trace directory, for messages */
};

/* Maps the buffer described by desc, which ustcomm_check_stream() accepted.
 * Takes ownership of both descriptors, also on failure. Returns 0, or a
 * negative errno when the buffer is invalid. */
int ustd_stream_map(struct ustd_stream *s, const struct ustcomm_stream *desc,
		    int shm_fd, int wakeup_fd);

/* Creates the stream's file in td; -EEXIST for a stream sent twice. On
 * failure the stream stays mapped: close it. */
int ustd_stream_create_file(struct ustd_stream *s, const struct ustd_trace_dir *td);

/*
 * Called when the wakeup eventfd is readable: copies the complete packets
 * that end at or before limit (a ustcomm_cbuf_write_position() taken before
 * the application's socket was last read, so that the metadata of every
 * event copied is already on disk) to the file. Returns 0, 1 when the buffer turned out corrupted (said on
 * stderr; close the stream), or a negative errno when writing failed (the
 * file then ends with the last whole packet).
 */
int ustd_stream_drain(struct ustd_stream *s, uint64_t limit);

/* Called once the writers are gone (the application hung up or ustd is
 * exiting): copies what is left. Same return values as ustd_stream_drain(). */
int ustd_stream_finish(struct ustd_stream *s);

/* Unmaps and closes everything; the caller has removed wakeup_fd from its
 * epoll set. Safe on a closed stream. */
void ustd_stream_close(struct ustd_stream *s);

#endif
