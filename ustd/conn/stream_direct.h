/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A stream file written straight from its ring (ustd/output/direct_io.h),
 * and what is done when the device falls behind the writers.
 *
 * A sub-buffer written from the ring goes back to the writers only when
 * its write completed. When the device lags (a stall of the virtual disk,
 * other I/O, a throttled cgroup), the writers would fill the rest of the
 * ring and discard where the page cache would have absorbed the stall. So
 * once the writes in flight hold half the ring or more, the packets in
 * flight are copied out and their sub-buffers given back (each is written
 * again from its copy when its first write completes: the device may have
 * read newer bytes; the writes not started are cancelled), and the next
 * packets go through the page cache, as on ustd's default path, from
 * copies until the writes from the ring ended; then straight from the
 * ring again, once the page cache's writeback caught up.
 * The files are the same bytes either way (manual 10.7).
 */
#ifndef USTD_STREAM_DIRECT_H
#define USTD_STREAM_DIRECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "libustcomm/consumer.h"
#include "ustd/conn/drain_stats.h"

struct ustd_stream_direct;

/* What the file is, and the ring its packets come from. */
struct ustd_direct_file {
	int fd;				/* the stream file, written at offsets */
	int idx_fd;			/* its index, appended to, or -1 */
	int wakeup_fd;			/* signalled when a write completes */
	struct ustcomm_cbuf *cb;
	struct ustd_drain_stats *stats;	/* or NULL */
	const char *name;		/* the stream's, for messages */
};

/* A packet given back to the writers and then cut off the file by a
 * failed write: its events are lost, counted by whoever takes it
 * (ustd_stream_lost()). */
struct ustd_direct_cut {
	struct ustd_direct_cut *next;
	size_t len;
	char pkt[];
};

/* What the packets completed by a call add to the caller's totals. */
struct ustd_direct_done {
	uint64_t written;		/* bytes of whole packets, padded */
	uint64_t idx_len;		/* bytes of index entries */
	uint64_t discarded;		/* events_discarded of the last one */
	uint64_t ts_end;		/* timestamp_end of the last one */
	unsigned packets;
	/* After a failed write: the file is cut at cut_len (the caller cuts
	 * its index back to what it counted); the packets cut off that had
	 * left the ring, the caller's to free. */
	uint64_t cut_len;
	struct ustd_direct_cut *cut;
};

/* Returns 0 with *d, 1 with *why when f's file is to be written through
 * the page cache (direct_io.h), or a negative errno. */
int ustd_stream_direct_open(struct ustd_stream_direct **d, const struct ustd_direct_file *f,
			    const char **why);

/*
 * Writes packet (the ring's sub-buffer after those this file holds, len
 * bytes of content) at offset, padded to USTD_DIO_ALIGN, its header saying
 * so. Returns 0 when it is written or on its way (the sub-buffer is this
 * file's to give back), 1 when it has to wait for a write to complete (the
 * caller comes back on the stream's wakeup), or a negative errno (done says
 * where the file was cut).
 */
int ustd_stream_direct_write(struct ustd_stream_direct *d, const char *packet, size_t len,
			     uint64_t offset, uint64_t drain_start, struct ustd_direct_done *done);

/* Completes what is done, every write in flight when wait: index entries
 * in file order, sub-buffers back to the writers in ring order. 0 or a
 * negative errno, as ustd_stream_direct_write(). */
int ustd_stream_direct_complete(struct ustd_stream_direct *d, bool wait,
				struct ustd_direct_done *done);

/* Writes a packet held anywhere (a private copy: a rescued packet, a
 * flight recorder's ring) at offset, its header replaced by head's, and
 * waits for it; nothing may be in flight (completed with wait first). */
int ustd_stream_direct_write_copy(struct ustd_stream_direct *d, const char *packet, size_t len,
				  const char *head, uint64_t offset);

/*
 * The file is to be closed soon (a rotation, the next file of a bounded
 * stream): the packets in flight are copied out and their sub-buffers
 * given back, and the packets written until the close go through the page
 * cache, so that the writers never wait for the device behind a closing
 * file and the close waits for the writes already in flight only. NULL is
 * fine.
 */
void ustd_stream_direct_closing(struct ustd_stream_direct *d);

/* A fresh file (nothing held) whose stream's closed files still have
 * writes at the device: its next packets go through the page cache, as
 * when the device lags, instead of queueing behind those. NULL is fine. */
void ustd_stream_direct_lag(struct ustd_stream_direct *d);

/* Copies wait to be written and nothing else will bring the drain back:
 * it is to come back by itself. */
bool ustd_stream_direct_behind(const struct ustd_stream_direct *d);

/* Whether writes from d are at the device. */
bool ustd_stream_direct_in_flight(const struct ustd_stream_direct *d);

/* Bytes of the packets given to d and not yet on disk and indexed. */
uint64_t ustd_stream_direct_queued(const struct ustd_stream_direct *d);

/* Whether every packet given to d is on disk (or cut off) and indexed. */
bool ustd_stream_direct_finished(const struct ustd_stream_direct *d);

/* Sub-buffers from the ring's consumed on that this file holds. */
unsigned ustd_stream_direct_held(const struct ustd_stream_direct *d);

/* Waits for what is in flight, gives nothing back (the caller completed
 * first, or the stream is going away) and frees d. NULL is fine. */
void ustd_stream_direct_close(struct ustd_stream_direct *d);

#endif
