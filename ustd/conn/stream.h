/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One stream buffer of an application (one channel on one CPU), mapped from
 * the memfd it sent, and the trace file its packets are copied to: as they
 * are while the application runs, fixed up (rescue.h) when it died with
 * packets open. A flight recorder's stream (UST_SHM_FLAG_OVERWRITE) is not
 * drained: its ring is written on demand.
 */
#ifndef USTD_STREAM_H
#define USTD_STREAM_H

#include <stdbool.h>
#include "libustcomm/consumer.h"
#include "libustcomm/protocol.h"
#include "ustd/conn/drain_stats.h"
#include "ustd/conn/layouts.h"
#include "ustd/conn/stream_closing.h"
#include "ustd/conn/stream_direct.h"
#include "ustd/relay/relay.h"
#include "ustd/relay/sink.h"
#include "ustd/output/trace_dir.h"
#include "ustd/output/tracefile.h"
#include "ustd/output/writeback.h"
#include "ustd/output/write_mark.h"

struct ustd_stream;
struct ustd_stream_direct;

/* Where packets go: the stream's trace file or a snapshot's, with its
 * packet index, or relayd. */
struct ustd_stream_out {
	int fd;				/* -1 when relayed */
	int idx_fd;			/* index/<stream>.idx, -1 when relayed */
	struct ustd_sink *sink;		/* relayed: where, else NULL */
	uint64_t handle;		/* the stream's, at relayd */
	uint64_t sent;			/* packets sent to relayd */
	uint64_t confirmed;		/* of those, known written by relayd */
	uint64_t asked;			/* packets relayd was last asked about */
	struct ustd_relay_query query;	/* the question on its way, if busy */
	uint64_t tx_sent;		/* packets relay_tx.h is done with */
	uint64_t len;			/* bytes of whole packets in the file */
	uint64_t idx_len;		/* bytes of the index file */
	uint64_t written;		/* bytes written to files, all files */
	struct ustd_wb_file *wb;	/* its page cache and blocks, or NULL */
	/* Written straight from the ring (stream_direct.h), or NULL when the
	 * file goes through the page cache. Only a
	 * stream's own file is (owner: that stream, which is not moved while
	 * the file is open); len then counts the packets in flight too. */
	struct ustd_stream_direct *direct;
	/* Its files closed with writes in flight, finished as they complete
	 * (stream_closing.h). */
	struct ustd_closing_file *closing;
	struct ustd_stream *owner;
	uint64_t discarded;		/* events_discarded of the last packet */
	uint64_t ts_end;		/* timestamp_end of the last packet */
	/* Packets given back to the writers and then cut off the file by a
	 * failed write (stream_direct.h), counted as lost; all files. */
	struct ustd_direct_cut *cut;
	/* Bounded disk: the stream's limits and which file is being
	 * written (zero for snapshots: one file), and the directory the
	 * next file goes to. */
	struct ustd_tracefile tf;
	const struct ustd_trace_dir *td;
	bool marked;			/* its file has a write mark (write_mark.h) */
};

/* What crash rescue needs to know of the application. */
struct ustd_rescue_ctx {
	const struct ustd_layouts *layouts;
	const uint8_t *uuid;		/* the trace's, from HELLO */
};

struct ustd_stream {
	struct ustcomm_cbuf cb;
	int shm_fd;
	int wakeup_fd;			/* the writers' eventfd */
	struct ustd_stream_out out;
	uint32_t stream_id;
	uint32_t cpu;
	uint32_t ctx_size;		/* event context bytes of every event */
	bool overwrite;			/* flight recorder: never drained */
	bool open;
	bool held;			/* ustd_stream_hold(): mapped, not drained */
	/* Flight recorder: the writers' position at the last clear
	 * (app_clear.h); the ring written begins there. */
	uint64_t cleared;
	char name[UST_SHM_CHANNEL_NAME_MAX + 16];	/* <channel>_<cpu> */
	const char *dir;		/* the trace directory, for messages */
	/* Where its file's write mark goes, and the trace's uuid that names
	 * it (write_mark.h); NULL for no mark. */
	const struct ustd_write_marks *marks;
	const uint8_t *uuid;
	pid_t pid;			/* the program's */
	struct ustd_drain_stats *stats;	/* the trace's (ustd --stats), or NULL */
};

/* Maps the buffer described by desc, which ustcomm_check_stream() accepted.
 * Takes ownership of both descriptors, also on failure. Returns 0, or a
 * negative errno when the buffer is invalid. */
int ustd_stream_map(struct ustd_stream *s, const struct ustcomm_stream *desc,
		    int shm_fd, int wakeup_fd);

/* The same for the image of an orphan's buffer at image_at in fd, a file
 * opened read-only (libustcomm/orphan.h): mapped as a private copy, so
 * that the drain and the rescue work on it as on a memfd and the file is
 * never written. */
int ustd_stream_map_image(struct ustd_stream *s, const struct ustcomm_stream *desc,
			  int fd, uint64_t image_at, int wakeup_fd);

/* Creates the stream file name (with out->tf's limits, the current file
 * of its series, tracefile.h) and its packet index in td as out's files
 * (out's other fields stay): for a stream, its relay fallback and
 * snapshots. Returns 0 or a negative errno (-EEXIST when they exist). */
int ustd_stream_out_create(struct ustd_stream_out *out, const struct ustd_trace_dir *td,
			   const char *name);

/* The same for a file written whole at once (a snapshot): no blocks are
 * reserved ahead and the writeback thread is not told of it, so that the
 * file is at its final size and allocation once closed. */
int ustd_stream_out_create_once(struct ustd_stream_out *out, const struct ustd_trace_dir *td,
				const char *name);

/* Closes what ustd_stream_out_create() opened, freeing the blocks reserved
 * ahead and not written; files closed before with writes in flight are
 * finished first, waiting for the device. */
void ustd_stream_out_close(struct ustd_stream_out *out);

/* The same without waiting for the device: a file written straight from
 * the ring whose writes are in flight is finished as they complete, on
 * the stream's wake-ups (stream_closing.h), counted on w meanwhile (NULL:
 * nobody waits). */
void ustd_stream_out_close_later(struct ustd_stream_out *out, struct ustd_close_wait *w);

/* Creates the stream's file and packet index in td; -EEXIST for a stream
 * sent twice. On failure the stream stays mapped: close it. */
int ustd_stream_create_file(struct ustd_stream *s, const struct ustd_trace_dir *td);

/* Announces the stream to relayd instead: its packets go there. */
int ustd_stream_relay(struct ustd_stream *s, struct ustd_sink *sink, const char *path);

/*
 * Live streaming, on the live timer: closes the packet the writers have
 * open (ustcomm_cbuf_flush(); tsc: the application's clock is the TSC) so
 * that the next drain sends it; a stream that never sent a packet gets an
 * empty one (uuid: the trace's). Returns true when the stream holds
 * nothing at all to send: then relayd may be told that it is idle up to
 * a time read before this call.
 */
bool ustd_stream_live_flush(struct ustd_stream *s, int tsc, const uint8_t *uuid);

/* Asks relayd whether it has written every packet sent so far, and
 * remembers the answer (out.confirmed). */
int ustd_stream_confirm(struct ustd_stream *s);
/* The same, the answer taken when it comes (ustd_relay_poll()): the
 * drain never waits for a relayd that may be starved of CPU. */
int ustd_stream_confirm_later(struct ustd_stream *s);

/*
 * Called when the wakeup eventfd is readable: copies the complete packets
 * that end at or before limit (a ustcomm_cbuf_write_position() taken before
 * the application's socket was last read, so that the metadata of every
 * event copied is already on disk) to the file. Returns 0, 1 when the buffer turned out corrupted (said on
 * stderr; close the stream), or a negative errno when writing failed (the
 * file then ends with the last whole packet).
 */
int ustd_stream_drain(struct ustd_stream *s, uint64_t limit);

/* Waits for the writes of s's file still at the device (written straight
 * from the ring) and writes their index entries: what was drained is then
 * in the file whole. Returns 0 or the negative errno of a write that
 * failed (the file then ends with the last whole packet). */
int ustd_stream_settle(struct ustd_stream *s);

/*
 * Called when the application said GOODBYE, hung up or ustd is exiting:
 * copies what is left to the stream's file. rescue NULL: complete packets
 * only (the writers may still be running). With rescue (the writers are
 * dead), the incomplete packets too, fixed up (rescue.h). A flight
 * recorder's stream writes its ring (ustd_stream_write_ring()). Same
 * return values as ustd_stream_drain().
 */
int ustd_stream_finish(struct ustd_stream *s, const struct ustd_rescue_ctx *rescue);

/*
 * Flight recorder: writes the complete packets of the last ring, oldest
 * first, that begin at or after the last clear and end at or before
 * limit, to out; each is copied and then
 * checked not to have been overwritten meanwhile (copies that were are
 * left out). With rescue (writers dead), incomplete ones too. Returns 0,
 * 1 (corrupted) or a negative errno, as ustd_stream_drain().
 */
/*
 * Buffers per user: takes the packets before limit, as a drain does, and
 * each one left incomplete (a writer died inside it: the caller knows no
 * live writer is still there) as the crash rescue does, then hands it
 * back to the writers (ustcomm_cbuf_release_stalled()), counting it in
 * *rescued. 0, 1 when the stream was closed, or a negative errno.
 */
int ustd_stream_unstall(struct ustd_stream *s, uint64_t limit,
			const struct ustd_rescue_ctx *rescue, uint64_t *rescued);
int ustd_stream_write_ring(struct ustd_stream *s, struct ustd_stream_out *out,
			   uint64_t limit, const struct ustd_rescue_ctx *rescue);

/* The writers' position now (for the limit above). */
uint64_t ustd_stream_write_position(const struct ustd_stream *s);

/* Whether a drain to limit has packets left to take: the next one not
 * taken (written or in flight) ends at or before limit. */
bool ustd_stream_more_before(const struct ustd_stream *s, uint64_t limit);

/*
 * The trace stopped for a write error: the stream's files and wakeup
 * close (the caller removed wakeup_fd from its epoll set), but the ring
 * stays mapped, never drained again, so that what the trace loses is
 * counted (ustd_stream_lost()) until the process ends.
 */
void ustd_stream_hold(struct ustd_stream *s);

/*
 * Events of a held stream that no file holds and none will: those of its
 * complete packets ustd did not write (the one that failed included) and
 * those its writers discarded since the last packet written. Events of
 * a packet still open are not counted: the process's last flush closes
 * it. l: the layouts that size the events.
 */
uint64_t ustd_stream_lost(const struct ustd_stream *s, const struct ustd_layouts *l);

/* Unmaps and closes everything; the caller has removed wakeup_fd from its
 * epoll set. Safe on a closed stream. */
void ustd_stream_close(struct ustd_stream *s);

#endif
