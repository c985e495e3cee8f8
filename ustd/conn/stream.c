/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include "libustcomm/clock.h"
#include "libustcomm/ctf_layout.h"
#include "libustcomm/log.h"
#include "ustd/conn/drain_stats.h"
#include "ustd/output/direct_io.h"
#include "ustd/output/output.h"
#include "ustd/output/packet_index.h"
#include "ustd/conn/rescue.h"
#include "ustd/conn/stream.h"
#include "ustd/conn/stream_direct.h"

/* What stream files are padded to: the page size of x86 and the block
 * size of common file systems, and no more than the smallest sub-buffer;
 * what O_DIRECT needs of offsets and lengths. */
#define STREAM_FILE_ALIGN	USTD_DIO_ALIGN
#define STREAM_PADDED(len)	(((len) + STREAM_FILE_ALIGN - 1) & ~(size_t)(STREAM_FILE_ALIGN - 1))
/* Blocks reserved ahead of a stream file at a time (writeback.h): a
 * default ring; a bounded file's size at most. */
#define STREAM_PREALLOC		(4u << 20)
/* What of a stream file stays in the page cache behind its end: four
 * default rings, a few hundred ms at full speed, long enough for the
 * writeback started a MiB at a time to be done (manual 10.7). */
#define STREAM_CACHE_WINDOW	(16u << 20)
/* How long the drain of an ended process's last packets waits for the
 * device, in all, before the rest goes through the page cache: a ring of
 * default packets is written in a few ms on a disk that keeps up, and
 * ustd's loop, which waits with it, serves every other process. */
#define STREAM_FINISH_WAIT_NS	50000000L

static void stream_close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * The mapping is shared with a process we do not trust to keep its size:
 * shrinking the memfd under the mapping would kill ustd with SIGBUS. libust
 * creates it sealable; a buffer that cannot be sealed against shrinking is
 * refused.
 */
static int stream_seal(struct ustd_stream *s)
{
	if (fcntl(s->shm_fd, F_ADD_SEALS, F_SEAL_SHRINK) < 0) {
		ustcomm_err("stream %s refused: its buffer cannot be sealed against shrinking (%s)",
			    s->name, strerror(errno));
		return -EPERM;
	}
	return 0;
}

/* image_at: where the buffer's image lies in the orphan file shm_fd, or
 * NULL for a memfd shared with the application. */
static int stream_map(struct ustd_stream *s, const struct ustcomm_stream *desc,
		      int shm_fd, int wakeup_fd, const uint64_t *image_at)
{
	int flags, ret = 0;

	memset(s, 0, sizeof(*s));
	s->shm_fd = shm_fd;
	s->wakeup_fd = wakeup_fd;
	s->out.fd = -1;
	s->out.idx_fd = -1;
	s->out.owner = s;
	s->stream_id = desc->stream_id;
	s->cpu = desc->cpu;
	s->ctx_size = desc->ctx_size;
	s->overwrite = desc->flags & UST_SHM_FLAG_OVERWRITE;
	s->out.tf.size = desc->tracefile_size;
	s->out.tf.count = desc->tracefile_size ? desc->tracefile_count : 0;
	s->open = true;
	s->dir = "";
	/* ustcomm_check_stream() made the channel name safe as a file name. */
	snprintf(s->name, sizeof(s->name), "%s_%u", desc->channel, desc->cpu);
	/* The writers' eventfd is non-blocking for them; make sure it is for us,
	 * whatever the application sent. */
	flags = fcntl(wakeup_fd, F_GETFL);
	if (flags < 0 || fcntl(wakeup_fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		ret = -errno;
		goto end;
	}
	/* An orphan's file is ours, read-only, and mapped as a private copy:
	 * nobody else shrinks it under us. */
	ret = image_at ? 0 : stream_seal(s);
	if (ret < 0)
		goto end;
	ret = ustcomm_cbuf_map_at(&s->cb, shm_fd, image_at ? *image_at : 0, image_at != NULL,
				  desc->subbuf_size, desc->subbuf_count);
	/* An orphan's image has no writer to hold off. */
	s->cb.thread = !image_at && (desc->flags & UST_SHM_FLAG_THREAD);
end:
	if (ret < 0) {
		stream_close_fd(&s->shm_fd);
		stream_close_fd(&s->wakeup_fd);
		s->open = false;
	}
	return ret;
}

int ustd_stream_map(struct ustd_stream *s, const struct ustcomm_stream *desc,
		    int shm_fd, int wakeup_fd)
{
	return stream_map(s, desc, shm_fd, wakeup_fd, NULL);
}

int ustd_stream_map_image(struct ustd_stream *s, const struct ustcomm_stream *desc,
			  int fd, uint64_t image_at, int wakeup_fd)
{
	return stream_map(s, desc, fd, wakeup_fd, &image_at);
}

/*
 * ext4 does the bookkeeping of delayed allocation for every block a
 * buffered write adds to a file; into blocks reserved beforehand with
 * fallocate() the same write costs about a third less CPU (ustd: 15 % less
 * per event), and the writeback that follows is cheaper too (manual 10.7).
 * Other file systems either reserve ahead on their own (XFS), cannot
 * reserve (copy-on-write btrfs) or would hold memory (tmpfs), and are left
 * alone.
 */
static bool stream_file_prealloc(int fd)
{
	struct statfs sfs;

	return fstatfs(fd, &sfs) == 0 && sfs.f_type == EXT4_SUPER_MAGIC;
}

/*
 * A drained stream's own file is written straight from its ring when the
 * file system and the kernel allow (direct_io.h), else through the page
 * cache; which one, and why, ustd --stats says per trace. Returns 0 or
 * -ENOMEM.
 */
static int stream_direct_open(struct ustd_stream_out *out)
{
	struct ustd_stream *s = out->owner;
	const char *why = "a flight recorder's ring is written from copies";
	struct ustd_direct_file f;
	int ret = 0;

	if (s->overwrite)
		goto end;
	why = "its ring is not page-aligned";
	if ((uintptr_t)s->cb.data % USTD_DIO_ALIGN || s->cb.subbuf_size % USTD_DIO_ALIGN)
		goto end;
	why = "no wake-up to signal its writes' completions";
	if (s->wakeup_fd < 0)
		goto end;
	f = (struct ustd_direct_file) {
		.fd = out->fd,
		.idx_fd = out->idx_fd,
		.wakeup_fd = s->wakeup_fd,
		.cb = &s->cb,
		.stats = s->stats,
		.name = s->name,
	};
	ret = ustd_stream_direct_open(&out->direct, &f, &why);
	if (ret == 0 && out->closing)
		ustd_stream_direct_lag(out->direct);
end:
	if (ret >= 0 && s->stats)
		ustd_drain_stats_path(s->stats, out->direct ? NULL : why);
	if (ret >= 0)
		ustcomm_dbg("stream %s of trace %s: written %s%s", s->name, out->td->path,
			    out->direct ? "with O_DIRECT through io_uring" :
			    "through the page cache: ", out->direct ? "" : why);
	return ret < 0 ? ret : 0;
}

/*
 * The file a drained stream writes for as long as it runs is locked
 * shared, then marked (write_mark.h): a ustd killed meanwhile leaves both
 * to the next one, which finds the file by its mark and waits on the lock
 * for the dead one's writes. Neither is worth failing the trace for:
 * without them a restart may leave a few packets in two files.
 */
static void stream_mark(struct ustd_stream_out *out, const char *file)
{
	const struct ustd_stream *s = out->owner;
	char path[PATH_MAX];
	int n, ret;

	if (!s->marks || !s->uuid || s->overwrite)
		return;
	n = snprintf(path, sizeof(path), "%s/%s", out->td->path, file);
	if (n < 0 || (size_t)n >= sizeof(path))
		ret = -ENAMETOOLONG;
	else if (flock(out->fd, LOCK_SH) < 0)
		ret = -errno;
	else
		ret = ustd_write_mark_set(s->marks, s->uuid, s->name, s->pid, path);
	if (ret < 0)
		ustcomm_dbg("stream %s: no write mark for its file in %s: %s", s->name,
			    out->td->path, strerror(-ret));
	else
		out->marked = true;
}

static int stream_out_create(struct ustd_stream_out *out, const struct ustd_trace_dir *td,
			     const char *name, bool grows)
{
	char file[sizeof(((struct ustd_stream *)0)->name) + 24];
	int ret = ustd_tracefile_name(&out->tf, name, file, sizeof(file));
	uint64_t prealloc;

	if (ret == 0)
		ret = ustd_trace_dir_create_stream(td, file, &out->fd, &out->idx_fd);
	out->td = td;

	/* A relayed stream falling back starts a new file; what it sent and
	 * the counts its packets carry stay. */
	out->len = 0;
	out->idx_len = sizeof(struct ust_index_file_header);
	out->wb = NULL;
	out->direct = NULL;
	out->marked = false;
	if (ret == 0 && grows && out->owner)
		stream_mark(out, file);
	if (ret == 0 && grows && out->owner && !out->sink)
		ret = stream_direct_open(out);
	if (ret == 0 && grows && !out->direct) {
		prealloc = stream_file_prealloc(out->fd) ? STREAM_PREALLOC : 0;
		if (out->tf.size && prealloc > out->tf.size)
			prealloc = out->tf.size;
		out->wb = ustd_wb_open(out->fd, prealloc, STREAM_CACHE_WINDOW);
	}
	return ret;
}

int ustd_stream_out_create(struct ustd_stream_out *out, const struct ustd_trace_dir *td,
			   const char *name)
{
	return stream_out_create(out, td, name, true);
}

int ustd_stream_out_create_once(struct ustd_stream_out *out, const struct ustd_trace_dir *td,
				const char *name)
{
	return stream_out_create(out, td, name, false);
}

/*
 * Adds what the direct file completed to out's totals. After a failed
 * write it cut the file; the index goes back to its last whole entry.
 */
static int stream_direct_done(struct ustd_stream_out *out, const struct ustd_direct_done *done,
			      int ret)
{
	struct ustd_direct_cut *cut;

	out->idx_len += done->idx_len;
	out->written += done->written;
	if (done->packets) {
		out->discarded = done->discarded;
		out->ts_end = done->ts_end;
	}
	for (cut = done->cut; cut && cut->next; cut = cut->next)
		;
	if (cut) {
		cut->next = out->cut;
		out->cut = done->cut;
	}
	if (ret < 0) {
		out->len = done->cut_len;
		if (out->idx_fd >= 0 && ftruncate(out->idx_fd, (off_t)out->idx_len) < 0)
			ustcomm_dbg("stream %s: cutting its index back after a failed write: %s",
				    out->owner->name, strerror(errno));
	}
	return ret;
}

/* Every packet in flight written and given back, or the error that
 * stopped them. */
static int stream_direct_settle(struct ustd_stream_out *out)
{
	struct ustd_direct_done done = { 0 };

	if (!out->direct)
		return 0;
	return stream_direct_done(out, &done,
				  ustd_stream_direct_complete(out->direct, true, &done));
}

/* What out's closed files completed, added to its totals: the cumulative
 * counts only ever grow. */
static void stream_closing_poll(struct ustd_stream_out *out, bool wait)
{
	struct ustd_direct_done done = { 0 };
	struct ustd_direct_cut *cut;

	if (!out->closing)
		return;
	ustd_closing_poll(&out->closing, wait, &done);
	if (done.discarded > out->discarded)
		out->discarded = done.discarded;
	if (done.ts_end > out->ts_end)
		out->ts_end = done.ts_end;
	for (cut = done.cut; cut && cut->next; cut = cut->next)
		;
	if (cut) {
		cut->next = out->cut;
		out->cut = done.cut;
	}
}

/* The file being written, closed: its writes in flight waited for. */
static void stream_out_close_file(struct ustd_stream_out *out)
{
	int ret;

	/* The wait below is then for the writes the device has begun only. */
	ustd_stream_direct_closing(out->direct);
	ret = stream_direct_settle(out);
	if (ret < 0)
		ustcomm_err("stream %s of trace %s: its last packets could not be written: %s",
			    out->owner->name, out->td->path, strerror(-ret));
	ustd_stream_direct_close(out->direct);
	out->direct = NULL;
	ustd_wb_close(out->wb, out->len);
	out->wb = NULL;
	/* Nothing of it holds the ring now: a restart has nothing to repair. */
	if (out->marked)
		ustd_write_mark_clear(out->owner->marks, out->owner->uuid, out->owner->name);
	out->marked = false;
	stream_close_fd(&out->fd);
	stream_close_fd(&out->idx_fd);
}

void ustd_stream_out_close(struct ustd_stream_out *out)
{
	stream_closing_poll(out, true);
	stream_out_close_file(out);
}

void ustd_stream_out_close_later(struct ustd_stream_out *out, struct ustd_close_wait *w)
{
	struct ustd_direct_done done = { 0 };
	int ret;

	ustd_stream_direct_closing(out->direct);
	/* What is done already goes to the totals as the file's own. */
	ret = out->direct ? stream_direct_done(out, &done, ustd_stream_direct_complete(out->direct,
									   false, &done)) : 0;
	/* Set aside only when no packet of it holds the ring (the copies
	 * out of it were made), and there is something to wait for. */
	if (ret == 0 && out->direct && !ustd_stream_direct_held(out->direct) &&
	    !ustd_stream_direct_finished(out->direct) &&
	    ustd_closing_add(&out->closing, out->direct, out->fd, out->idx_fd, out->idx_len, w,
			     out->owner->name) == 0) {
		/* The chunk ending now holds them: sized so (chunk_base). */
		out->written += ustd_stream_direct_queued(out->direct);
		out->direct = NULL;
		out->fd = -1;
		out->idx_fd = -1;
	}
	stream_out_close_file(out);
}

int ustd_stream_create_file(struct ustd_stream *s, const struct ustd_trace_dir *td)
{
	int ret = ustd_stream_out_create(&s->out, td, s->name);

	if (ret == 0)
		s->dir = td->path;
	return ret;
}

int ustd_stream_relay(struct ustd_stream *s, struct ustd_sink *sink, const char *path)
{
	/* lttng-relayd 2.13 divides by the count when it cuts a file (it
	 * died of SIGFPE on a size without a count): without a count, relayd
	 * writes one file. */
	uint64_t size = s->out.tf.count ? s->out.tf.size : 0;
	int ret = ustd_relay_add_stream(sink->relay, s->name, path, size, s->out.tf.count,
					&s->out.handle);

	if (ret == 0) {
		s->out.sink = sink;
		s->out.query = (struct ustd_relay_query) {
			.confirmed = &s->out.confirmed,
			.sent = &s->out.tx_sent,
		};
		s->dir = path;
	}
	return ret;
}

bool ustd_stream_live_flush(struct ustd_stream *s, int tsc, const uint8_t *uuid)
{
	const struct ustcomm_packet_id id = { uuid, s->stream_id, s->cpu };

	if (!s->open || s->overwrite || !s->out.sink)
		return false;
	/*
	 * relayd takes beacons only from streams that sent a packet: one
	 * that never did gets an empty packet, once, so that live viewers
	 * need not wait for it.
	 */
	ustcomm_cbuf_flush(&s->cb, tsc, s->out.sent ? NULL : &id);
	return ustcomm_cbuf_write_position(&s->cb) == s->cb.consumed;
}

int ustd_stream_confirm(struct ustd_stream *s)
{
	struct ustd_stream_out *o = &s->out;
	uint64_t sent;
	int ret;

	if (!o->sink || o->confirmed == o->sent)
		return 0;
	/*
	 * Asking about the newest packet each time would never hear "written"
	 * while packets keep coming: the packets asked about last time are
	 * asked about again until relayd has them, then the newest.
	 */
	if (o->asked <= o->confirmed)
		o->asked = o->sent;
	ret = ustd_relay_data_pending(o->sink->relay, o->handle, o->asked - 1);
	if (ret == 0) {
		/* Not past what the sending thread is done with (relay_tx.h);
		 * pairs with the store-release in relay_tx_thread(). */
		sent = __atomic_load_n(&o->tx_sent, __ATOMIC_ACQUIRE);
		o->confirmed = o->asked < sent ? o->asked : sent;
		if (o->confirmed == o->asked)
			o->asked = 0;
	}
	return ret < 0 ? ret : 0;
}

int ustd_stream_confirm_later(struct ustd_stream *s)
{
	struct ustd_stream_out *o = &s->out;

	if (!o->sink || o->confirmed == o->sent || o->query.busy)
		return 0;
	/* As above: the packets asked about until relayd has them. */
	if (o->asked <= o->confirmed)
		o->asked = o->sent;
	return ustd_relay_ask_pending(o->sink->relay, o->handle, o->asked - 1, &o->query);
}

/*
 * Writes into a file whose directory was removed succeed and vanish: the
 * trace is stopped instead, with a reason, as for a full disk. Checked once
 * per batch of packets, not per packet.
 */
static int stream_check_file(const struct ustd_stream_out *out)
{
	struct stat st;

	if (out->fd < 0 || out->sink)
		return 0;
	if (fstat(out->fd, &st) < 0)
		return -errno;
	return st.st_nlink == 0 ? -ENOENT : 0;
}

/*
 * Bounded disk: the file is full, the packet begins the next one. The
 * file it replaces goes first, so that the stream never holds more than
 * its count of files. A failure stops the trace as a full disk does; the
 * files written stay whole.
 */
static int stream_next_file(const struct ustd_stream *s, struct ustd_stream_out *out)
{
	const struct ustd_trace_dir *td = out->td;
	int ret;

	ustd_stream_out_close_later(out, NULL);
	ret = ustd_tracefile_advance(&out->tf, td, s->name);
	if (ret == 0)
		ret = ustd_stream_out_create(out, td, s->name);
	if (ret < 0)
		ustcomm_err("stream %s of trace %s: cannot begin its next file: %s",
			    s->name, s->dir, strerror(-ret));
	return ret;
}

/*
 * Appends one whole packet and its index entry, or nothing: a packet
 * running past the end of its file makes the whole trace unreadable.
 *
 * The packet goes out padded with zeroes to a multiple of
 * STREAM_FILE_ALIGN, its packet_size saying so (CTF readers skip from
 * content_size to packet_size), so that every write begins and ends on a
 * page boundary. The page cache then takes whole pages instead of
 * completing the page the previous write left part full: ustd spends 14 %
 * less CPU per event, and a full packet, the common case at speed, gains
 * at most a few bytes of padding (manual 10.7). The header is written from a
 * copy, so the same code serves the shared sub-buffer, which stays
 * untouched, and private copies.
 */
static int stream_write_local(const struct ustd_stream *s, struct ustd_stream_out *out,
			      const char *packet, size_t len, size_t *written)
{
	static const char zeroes[STREAM_FILE_ALIGN];
	char head[UST_PKT_HEADER_SIZE];
	size_t padded = STREAM_PADDED(len);
	struct iovec iov[3] = {
		{ head, sizeof(head) },
		{ (char *)packet + sizeof(head), len - sizeof(head) },
		{ (char *)zeroes, padded - len },
	};
	struct ust_index_entry e;
	int ret;

	if (ustd_tracefile_full(&out->tf, out->len, padded)) {
		ret = stream_next_file(s, out);
		if (ret < 0)
			return ret;
	}
	memcpy(head, packet, sizeof(head));
	ust_put_u64(head + UST_PKT_PACKET_SIZE, (uint64_t)padded * 8);
	/* A copy on the direct path: after the packets in flight, which
	 * come before it. */
	ret = out->direct ? stream_direct_settle(out) : 0;
	if (ret == 0 && out->direct)
		ret = ustd_stream_direct_write_copy(out->direct, packet, len, head, out->len);
	else if (ret == 0)
		ret = ustd_writev_all(out->fd, iov, 3);
	if (ret == 0 && out->idx_fd >= 0) {
		ustd_index_entry(&e, head, out->len);
		ret = ustd_write_all(out->idx_fd, &e, sizeof(e));
		if (ret < 0 && ftruncate(out->idx_fd, (off_t)out->idx_len) < 0)
			ustcomm_dbg("stream %s: cutting off a partial index entry: %s",
				    s->name, strerror(errno));
	}
	if (ret < 0) {
		if (ftruncate(out->fd, (off_t)out->len) < 0)
			ustcomm_dbg("stream %s: cutting off a partial packet: %s",
				    s->name, strerror(errno));
	} else {
		out->idx_len += out->idx_fd >= 0 ? sizeof(e) : 0;
		*written = padded;
		ustd_wb_written(out->wb, out->len + padded);
	}
	return ret;
}

/*
 * To relayd when the trace is relayed; when that fails, the trace moves
 * to local files (sink->lost) and the packet goes there.
 *
 * A relayed packet is copied before it is sent and kept until relayd
 * confirms writing it (relay_pending.h); lost() writes the copies, this
 * one included, to the fallback. out->len counts the fallback file only.
 * With the copy made, the sub-buffer goes back to the writers (release:
 * the packet is its next one, *released says so) before the send, so
 * that the copy does not keep it from them any longer than the send did.
 */
static int stream_write_packet(const struct ustd_stream *s, struct ustd_stream_out *out,
			       const char *packet, size_t len, struct ustcomm_cbuf *release,
			       bool *released)
{
	uint64_t ring = (uint64_t)s->cb.subbuf_size * s->cb.subbuf_count;
	/* Read now: a copy sent may be written to the fallback and reused. */
	uint64_t discarded = ust_get_u64(packet + UST_PKT_EVENTS_DISCARDED);
	uint64_t ts_end = ust_get_u64(packet + UST_PKT_TIMESTAMP_END);
	size_t written = len;
	int ret;

	/* A relayed stream: its sink sends it (stream_relay.c), or says
	 * that relayd is lost and the fallback's file takes it. */
	if (out->sink) {
		ret = out->sink->send(out->sink, out, ring, packet, len, release, released);
		if (ret < 0)
			return ret;
		written = 0;
		if (ret > 0)
			goto done;
	}
	ret = stream_write_local(s, out, packet, len, &written);
	if (ret < 0)
		return ret;
done:
	out->len += written;
	out->written += written;
	out->discarded = discarded;
	out->ts_end = ts_end;
	return 0;
}

static void stream_corrupted(const struct ustd_stream *s, int err)
{
	ustcomm_err("stream %s of trace %s is corrupted (%s); that stream is stopped, the rest of the trace continues",
		    s->name, s->dir, strerror(-err));
}

/* The next packet to take: after those written and those in flight. */
static uint64_t stream_next(const struct ustd_stream *s)
{
	unsigned n = s->out.direct ? ustd_stream_direct_held(s->out.direct) : 0;

	return s->cb.consumed + (uint64_t)n * s->cb.subbuf_size;
}

bool ustd_stream_more_before(const struct ustd_stream *s, uint64_t limit)
{
	return stream_next(s) + s->cb.subbuf_size <= limit;
}

/*
 * Writes the packet straight from the ring (stream_direct.h). Returns 0,
 * 1 when the drain is to wait for a write to complete (the stream's
 * wakeup brings it back), or a negative errno. The stream's next file may
 * be written through the page cache: *copy then says to write the packet
 * as on that path.
 */
static int stream_submit(struct ustd_stream *s, const char *packet, size_t len,
			 uint64_t drain_start, bool *copy)
{
	struct ustd_stream_out *out = &s->out;
	struct ustd_direct_done done = { 0 };
	size_t padded = STREAM_PADDED(len);
	int ret = 0;

	if (ustd_tracefile_full(&out->tf, out->len, padded))
		ret = stream_next_file(s, out);
	*copy = ret == 0 && !out->direct;
	if (ret < 0 || *copy)
		return ret;
	ret = stream_direct_done(out, &done, ustd_stream_direct_write(out->direct, packet, len,
								      out->len, drain_start,
								      &done));
	if (ret == 0)
		out->len += padded;
	return ret;
}

/*
 * Copies at most one ring's worth of complete packets, so that a writer
 * producing as fast as ustd writes cannot keep it in this loop while other
 * applications wait. Sets *more when it stopped with packets left. On the
 * direct path, the packets are written from the ring instead, and the
 * writes still in flight at the end wake the drain again when they
 * complete (the stream's wakeup is their eventfd).
 */
static int stream_copy(struct ustd_stream *s, const uint64_t *limit, bool *more)
{
	uint64_t drain_start = 0, write_start = 0, ts_begin = 0, ts_end = 0, waiting = 0;
	const char *packet;
	bool released, copy;
	size_t len;
	uint32_t i;
	int ret = 0;

	*more = false;
	if (s->stats)
		drain_start = ustd_drain_stats_now(s->stats);
	for (i = 0; i < s->cb.subbuf_count; i++) {
		if (limit && stream_next(s) + s->cb.subbuf_size > *limit) {
			/* Written after the socket was read: next round. */
			*more = ustcomm_cbuf_get_at(&s->cb, stream_next(s), &packet, &len) != 0;
			goto end;
		}
		ret = ustcomm_cbuf_get_at(&s->cb, stream_next(s), &packet, &len);
		if (ret == 0)
			goto end;
		if (ret < 0) {
			stream_corrupted(s, ret);
			ret = 1;
			goto end;
		}
		copy = true;
		ret = s->out.direct ? stream_submit(s, packet, len, drain_start, &copy) : 0;
		/* Finishing (no limit): the writes in flight end first; past
		 * the bound, the device lags and the file closes as a rotation
		 * closes it, through the page cache. */
		while (ret > 0 && !limit) {
			waiting = waiting ? waiting : ust_clock_read_kind(0);
			ret = stream_direct_settle(&s->out);
			if (ust_clock_read_kind(0) - waiting > STREAM_FINISH_WAIT_NS)
				ustd_stream_direct_closing(s->out.direct);
			if (ret == 0)
				ret = stream_submit(s, packet, len, drain_start, &copy);
		}
		if (ret < 0)
			goto end;
		/* Back when a write completes. */
		if (ret > 0) {
			ret = 0;
			goto end;
		}
		if (!copy)
			continue;
		if (s->stats) {
			/* Read now: the release clears the sub-buffer. */
			ts_begin = ust_get_u64(packet + UST_PKT_TIMESTAMP_BEGIN);
			ts_end = ust_get_u64(packet + UST_PKT_TIMESTAMP_END);
			write_start = ustd_drain_stats_now(s->stats);
		}
		released = false;
		ret = stream_write_packet(s, &s->out, packet, len, &s->cb, &released);
		if (ret < 0)
			goto end;
		if (!released)
			ustcomm_cbuf_put(&s->cb);
		if (s->stats)
			ustd_drain_stats_packet(s->stats, s->cb.subbuf_count, ts_begin, ts_end,
						drain_start, write_start,
						ustd_drain_stats_now(s->stats));
	}
	*more = true;
end:
	if (ret == 0 && s->out.direct) {
		struct ustd_direct_done done = { 0 };

		ret = stream_direct_done(&s->out, &done,
					 ustd_stream_direct_complete(s->out.direct, false, &done));
		/* Copies left after a stall: written a few at a time. */
		if (ret == 0 && ustd_stream_direct_behind(s->out.direct))
			*more = true;
	}
	if (ret == 0 && i > 0)
		ret = stream_check_file(&s->out);
	return ret;
}

int ustd_stream_drain(struct ustd_stream *s, uint64_t limit)
{
	uint64_t count;
	bool more;
	int ret;

	if (!s->open)
		return 0;
	/* Reset the wakeup before looking at the buffer: a packet completed
	 * after this read signals again, so none is left behind unseen. */
	if (read(s->wakeup_fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		ustcomm_dbg("stream %s: reading its wakeup: %s", s->name, strerror(errno));
	stream_closing_poll(&s->out, false);
	ret = stream_copy(s, &limit, &more);
	if (ret == 0 && more) {
		/* Come back after the other descriptors had their turn. */
		count = 1;
		if (write(s->wakeup_fd, &count, sizeof(count)) < 0)
			ustcomm_dbg("stream %s: re-arming its wakeup: %s", s->name, strerror(errno));
	}
	return ret;
}

int ustd_stream_settle(struct ustd_stream *s)
{
	return stream_direct_settle(&s->out);
}

uint64_t ustd_stream_write_position(const struct ustd_stream *s)
{
	return ustcomm_cbuf_write_position(&s->cb);
}

/* The crash rescue of the incomplete sub-buffer of the cycle that began at
 * begin, from a private copy (copy, a sub-buffer's size). */
static int stream_rescue(const struct ustd_stream *s, const struct ustd_stream_out *out,
			 uint64_t begin, const struct ustcomm_writer_state *ws,
			 const struct ustd_rescue_ctx *rescue, char *copy,
			 struct ustd_rescue_out *res)
{
	uint32_t size = s->cb.subbuf_size;
	uint64_t target = ust_shm_commit_target(size, s->cb.subbuf_count, begin);
	uint64_t count = ustcomm_cbuf_commit_count(&s->cb, begin);
	struct ustd_rescue_in in;
	int ret;

	memcpy(copy, ustcomm_cbuf_subbuf(&s->cb, begin), size);
	in = (struct ustd_rescue_in) {
		.pkt = copy,
		.subbuf_size = size,
		.seq_num = begin / size,
		.stream_id = s->stream_id,
		.cpu = s->cpu,
		.ctx_size = s->ctx_size,
		.uuid = rescue->uuid,
		.reserved = ws->write_offset - begin < size ?
			(uint32_t)(ws->write_offset - begin) : size,
		.stale = s->overwrite && begin >= (uint64_t)size * s->cb.subbuf_count,
		.committed = count + size >= target ? count + size - target : 0,
		.last_timestamp = ws->last_timestamp,
		.discarded = out->discarded > ws->events_discarded ?
			out->discarded : ws->events_discarded,
		.prev_end = out->ts_end,
		.layouts = rescue->layouts,
	};
	ret = ustd_rescue_packet(&in, res);
	if (ret == 0)
		ustcomm_dbg("stream %s: packet %llu rescued: %llu events kept, %llu lost",
			    s->name, (unsigned long long)in.seq_num,
			    (unsigned long long)res->kept, (unsigned long long)res->dropped);
	return ret;
}

/*
 * Writes the packet of the cycle that began at begin: as it is when
 * complete (copied, then checked not overwritten meanwhile), fixed up when
 * incomplete and the writers are dead (rescue), else not at all.
 */
static int stream_take(struct ustd_stream *s, struct ustd_stream_out *out, uint64_t begin,
		       const struct ustcomm_writer_state *ws,
		       const struct ustd_rescue_ctx *rescue, char *copy)
{
	uint32_t size = s->cb.subbuf_size;
	uint64_t target = ust_shm_commit_target(size, s->cb.subbuf_count, begin);
	uint64_t count = ustcomm_cbuf_commit_count(&s->cb, begin);
	struct ustd_rescue_out res;
	size_t len;
	int ret;

	if (count == target) {
		ret = ustcomm_cbuf_copy_stable(&s->cb, begin, copy, &len);
		if (ret < 0) {
			stream_corrupted(s, ret);
			return 1;
		}
		if (ret == 0)
			return 0;
		/* After a rescued packet, whose count already includes every
		 * discard the writers made: the count must not go back. */
		if (ust_get_u64(copy + UST_PKT_EVENTS_DISCARDED) < out->discarded)
			ust_put_u64(copy + UST_PKT_EVENTS_DISCARDED, out->discarded);
		return stream_write_packet(s, out, copy, len, NULL, NULL);
	}
	if (!rescue || count > target)
		return 0;
	ret = stream_rescue(s, out, begin, ws, rescue, copy, &res);
	if (ret < 0)
		return ret;
	if (res.buf)
		ret = stream_write_packet(s, out, res.buf, res.len, NULL, NULL);
	free(res.buf);
	return ret;
}

/* The packets from first up to the writers' position, at most one ring. */
static int stream_take_range(struct ustd_stream *s, struct ustd_stream_out *out,
			     uint64_t first, uint64_t limit,
			     const struct ustd_rescue_ctx *rescue)
{
	struct ustcomm_writer_state ws;
	uint32_t size = s->cb.subbuf_size, i;
	uint64_t b;
	char *copy;
	int ret = 0;

	copy = malloc(size);
	if (!copy)
		return -ENOMEM;
	ustcomm_cbuf_writer_state(&s->cb, &ws);
	for (b = first, i = 0; b < ws.write_offset && i < s->cb.subbuf_count; b += size, i++) {
		if (b + size > limit)
			break;
		ret = stream_take(s, out, b, &ws, rescue, copy);
		if (ret)
			break;
	}
	if (ret == 0 && i > 0)
		ret = stream_check_file(out);
	free(copy);
	return ret;
}

int ustd_stream_write_ring(struct ustd_stream *s, struct ustd_stream_out *out,
			   uint64_t limit, const struct ustd_rescue_ctx *rescue)
{
	uint64_t ring = (uint64_t)s->cb.subbuf_size * s->cb.subbuf_count;
	uint64_t end = ustcomm_cbuf_write_position(&s->cb);

	/* The sub-buffers that began before the writers' position, one ring. */
	end = (end + s->cb.subbuf_size - 1) & ~(uint64_t)(s->cb.subbuf_size - 1);
	end = end > ring ? end - ring : 0;
	return stream_take_range(s, out, end > s->cleared ? end : s->cleared, limit, rescue);
}

int ustd_stream_finish(struct ustd_stream *s, const struct ustd_rescue_ctx *rescue)
{
	bool more;
	int ret;

	if (!s->open)
		return 0;
	if (s->overwrite)
		return ustd_stream_write_ring(s, &s->out, UINT64_MAX, rescue);
	/* With the writers gone, at most one ring's worth is complete in order. */
	ret = stream_copy(s, NULL, &more);
	if (ret == 0)
		ret = stream_direct_settle(&s->out);
	if (ret || !rescue)
		return ret;
	/* Then what follows the first incomplete sub-buffer, each fixed up or
	 * as it is. */
	return stream_take_range(s, &s->out, s->cb.consumed, UINT64_MAX, rescue);
}

/* A flight recorder's: every sub-buffer of the last ring before limit
 * whose cycle is incomplete is rescued in place (no consumer takes it:
 * a snapshot reads it later). */
static int stream_repair(struct ustd_stream *s, uint64_t limit,
			 const struct ustd_rescue_ctx *rescue, char *copy, uint64_t *rescued)
{
	uint64_t ring = (uint64_t)s->cb.subbuf_size * s->cb.subbuf_count, b;
	struct ustcomm_writer_state ws;
	struct ustd_rescue_out res;
	int ret;

	ustcomm_cbuf_writer_state(&s->cb, &ws);
	b = limit & ~(uint64_t)(s->cb.subbuf_size - 1);
	for (b = b >= ring ? b - ring + s->cb.subbuf_size : 0; b < limit; b += s->cb.subbuf_size) {
		if (ustcomm_cbuf_commit_count(&s->cb, b) >=
		    ust_shm_commit_target(s->cb.subbuf_size, s->cb.subbuf_count, b))
			continue;
		ret = stream_rescue(s, &s->out, b, &ws, rescue, copy, &res);
		if (ret < 0)
			return ret;
		ustcomm_cbuf_repair(&s->cb, b, res.buf, res.len);
		free(res.buf);
		(*rescued)++;
	}
	return 0;
}

int ustd_stream_unstall(struct ustd_stream *s, uint64_t limit,
			const struct ustd_rescue_ctx *rescue, uint64_t *rescued)
{
	struct ustcomm_writer_state ws;
	const char *packet;
	uint64_t before;
	size_t len;
	bool more;
	uint32_t i;
	char *copy;
	int ret = 0;

	if (!s->open)
		return 0;
	copy = malloc(s->cb.subbuf_size);
	if (!copy)
		return -ENOMEM;
	if (s->overwrite) {
		ret = stream_repair(s, limit, rescue, copy, rescued);
		free(copy);
		return ret;
	}
	for (i = 0; i < s->cb.subbuf_count && ret == 0; i++) {
		ret = stream_copy(s, &limit, &more);
		/* What follows is taken at consumed: nothing in flight. */
		if (ret == 0)
			ret = stream_direct_settle(&s->out);
		if (ret || !ustcomm_cbuf_next_ends_before(&s->cb, limit))
			break;
		/* Complete since the copy stopped: the next round takes it. */
		if (ustcomm_cbuf_get(&s->cb, &packet, &len) != 0)
			continue;
		ustcomm_cbuf_writer_state(&s->cb, &ws);
		before = s->out.discarded > ws.events_discarded ? s->out.discarded :
			ws.events_discarded;
		ret = stream_take(s, &s->out, s->cb.consumed, &ws, rescue, copy);
		if (ret)
			break;
		/* The writers go on counting from what the rescued packet
		 * says, the unfinished events included: the count of the
		 * stream's packets never goes back. */
		if (s->out.discarded > before)
			__atomic_fetch_add(&s->cb.ctl->events_discarded, s->out.discarded - before,
					   __ATOMIC_RELAXED);
		ustcomm_cbuf_release_stalled(&s->cb);
		(*rescued)++;
	}
	free(copy);
	return ret;
}

void ustd_stream_hold(struct ustd_stream *s)
{
	if (!s->open)
		return;
	ustd_stream_out_close(&s->out);
	stream_close_fd(&s->wakeup_fd);
	s->open = false;
	s->held = true;
}

uint64_t ustd_stream_lost(const struct ustd_stream *s, const struct ustd_layouts *l)
{
	const struct ustd_direct_cut *cut;
	struct ustcomm_writer_state ws;
	uint32_t size = s->cb.subbuf_size, i;
	uint64_t b, lost = 0;
	char *copy;
	size_t len;

	/* A flight recorder overwrites by design, and is not drained. */
	if (!s->held || s->overwrite)
		return 0;
	ustcomm_cbuf_writer_state(&s->cb, &ws);
	/* The counter is cumulative; the packets written carried its part. */
	if (ws.events_discarded > s->out.discarded)
		lost = ws.events_discarded - s->out.discarded;
	for (cut = s->out.cut; cut; cut = cut->next)
		lost += ustd_rescue_count_events(cut->pkt, cut->len, s->stream_id, s->ctx_size, l);
	copy = malloc(size);
	if (!copy)
		return lost;
	for (b = s->cb.consumed, i = 0; i < s->cb.subbuf_count && b + size <= ws.write_offset;
	     b += size, i++) {
		if (ustcomm_cbuf_copy_stable(&s->cb, b, copy, &len) == 1)
			lost += ustd_rescue_count_events(copy, len, s->stream_id, s->ctx_size, l);
	}
	free(copy);
	return lost;
}

void ustd_stream_close(struct ustd_stream *s)
{
	if (!s->open && !s->held)
		return;
	/* The writes in flight read the ring: they end first. */
	ustd_stream_out_close(&s->out);
	while (s->out.cut) {
		struct ustd_direct_cut *next = s->out.cut->next;

		free(s->out.cut);
		s->out.cut = next;
	}
	ustcomm_cbuf_unmap(&s->cb);
	stream_close_fd(&s->shm_fd);
	stream_close_fd(&s->wakeup_fd);
	s->open = false;
	s->held = false;
}
