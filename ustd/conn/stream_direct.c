/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include "libustcomm/ctf_layout.h"
#include "libustcomm/log.h"
#include "ustd/conn/stream_direct.h"
#include "ustd/output/direct_io.h"
#include "ustd/output/output.h"
#include "ustd/output/packet_index.h"
#include "ustd/output/writeback.h"

#define DIRECT_PADDED(len)	(((len) + USTD_DIO_ALIGN - 1) & ~(size_t)(USTD_DIO_ALIGN - 1))
/* Packets written through the page cache once the device lagged, at
 * least, before the ring is tried again: 16 MiB of default packets. And
 * not before their writeback caught up (writeback.h): a direct write
 * would wait behind it at the device. */
#define DIRECT_LAG_PACKETS	64
/* What stays of them in the page cache once written back: nothing, so
 * that what is known to be on disk (ustd_wb_caught_up()) is all of it but
 * the last MiBs, and a direct write after it does not wait long. */
#define DIRECT_CACHE_WINDOW	0
/* Copies kept for reuse while the device lags (fresh memory costs its
 * page faults on every copy); given back when it caught up. */
#define DIRECT_SPARES		256
/* Copies written through the page cache per call: more than one, so that
 * those left after a stall go out while the writers go on; not all, so
 * that the drain goes back to the ring before it fills. */
#define DIRECT_FLUSH_BATCH	2
/* Packets waiting for their index entry behind a write in flight, and
 * bytes of copies waiting for the writes in flight to end: past these the
 * drain waits, and the writers discard into the ring. The writes already
 * at the device cannot be called back: at full speed (30 M events/s on
 * the bench's machines, 360 MB/s) the copies cover about 180 ms of them,
 * four 256 KiB writes at 6 MB/s, and are freed as they are written. */
#define DIRECT_QUEUE_MAX	1024
#define DIRECT_COPIES_MAX	(64u << 20)

enum direct_state {
	DIRECT_HELD,		/* written from the ring, its sub-buffer held */
	DIRECT_MOVED,		/* written from the ring, or cancelled; its
				 * sub-buffer given back: PENDING when that ends */
	DIRECT_PENDING,		/* in copy, to go through the page cache once
				 * no write from a ring is in flight */
	DIRECT_DONE,		/* on disk, or in the page cache */
};

struct direct_pkt {
	struct ust_index_entry e;
	uint64_t offset;		/* in the file */
	uint64_t len;			/* padded */
	size_t content;			/* bytes of the packet in the ring */
	uint64_t discarded;
	uint64_t ts_begin, ts_end;	/* for ustd --stats */
	uint64_t drain_start, write_start;
	char *copy;			/* as on disk, len bytes */
	enum direct_state state;
};

/*
 * The queue holds the packets from the oldest without its index entry to
 * the newest, in file order; a write in flight carries its packet's
 * sequence number (first_seq for q[head]). The invariant: the held
 * packets are the newest `held` of the queue, and they are the ring's
 * sub-buffers from its consumed on, one each, in order; every other
 * packet's sub-buffer went back to the writers. So a sub-buffer is never
 * reused while the device may still read it, except a MOVED one's, whose
 * write is then done again from the copy taken before it went back.
 */
struct ustd_stream_direct {
	struct ustd_direct_file f;
	struct ustd_dio *dio;
	struct ustd_wb_file *wb;	/* the page cache of the lagging packets */
	struct direct_pkt *q;
	unsigned cap, head, count;
	uint64_t first_seq;
	unsigned held;
	unsigned lagging;		/* packets still to write through the page cache */
	bool closing;			/* to be closed: no more writes from the ring */
	uint64_t copies;		/* bytes of the MOVED and PENDING copies */
	char *spare[DIRECT_SPARES];	/* copies' memory, a sub-buffer each */
	unsigned spares;
	uint64_t end;			/* bytes of the file written or on their way */
};

int ustd_stream_direct_open(struct ustd_stream_direct **d, const struct ustd_direct_file *f,
			    const char **why)
{
	struct ustd_stream_direct *sd;
	struct ustd_dio *dio;
	int ret;

	*d = NULL;
	ret = ustd_dio_open(&dio, f->fd, f->wakeup_fd, why);
	if (ret != 0)
		return ret;
	sd = calloc(1, sizeof(*sd));
	if (!sd) {
		ustd_dio_close(dio);
		return -ENOMEM;
	}
	sd->f = *f;
	sd->dio = dio;
	*d = sd;
	return 0;
}

unsigned ustd_stream_direct_held(const struct ustd_stream_direct *d)
{
	return d->held;
}

bool ustd_stream_direct_in_flight(const struct ustd_stream_direct *d)
{
	return ustd_dio_in_flight(d->dio) != 0;
}

bool ustd_stream_direct_finished(const struct ustd_stream_direct *d)
{
	return !d->count && !ustd_dio_in_flight(d->dio);
}

static struct direct_pkt *direct_at(const struct ustd_stream_direct *d, uint64_t seq)
{
	return &d->q[(d->head + (unsigned)(seq - d->first_seq)) % d->cap];
}

uint64_t ustd_stream_direct_queued(const struct ustd_stream_direct *d)
{
	uint64_t bytes = 0;
	unsigned i;

	for (i = 0; i < d->count; i++)
		bytes += direct_at(d, d->first_seq + i)->len;
	return bytes;
}

/* The oldest held packet. */
static struct direct_pkt *direct_oldest_held(const struct ustd_stream_direct *d)
{
	return direct_at(d, d->first_seq + d->count - d->held);
}

/* Memory for a copy of p, a sub-buffer's size, or -ENOMEM. */
static int direct_copy_alloc(struct ustd_stream_direct *d, struct direct_pkt *p)
{
	if (d->spares)
		p->copy = d->spare[--d->spares];
	else if (posix_memalign((void **)&p->copy, USTD_DIO_ALIGN, d->f.cb->subbuf_size) != 0)
		p->copy = NULL;
	if (!p->copy)
		return -ENOMEM;
	d->copies += p->len;
	return 0;
}

static void direct_copy_free(struct ustd_stream_direct *d, struct direct_pkt *p)
{
	if (!p->copy)
		return;
	d->copies -= p->len;
	if (d->spares < DIRECT_SPARES)
		d->spare[d->spares++] = p->copy;
	else
		free(p->copy);
	p->copy = NULL;
}

/* A new packet at the end of the queue, or NULL (memory). */
static struct direct_pkt *direct_push(struct ustd_stream_direct *d, uint64_t *seq)
{
	struct direct_pkt *q;
	unsigned i, cap;

	if (d->count == d->cap) {
		cap = d->cap ? 2 * d->cap : 2 * USTD_DIO_DEPTH;
		q = malloc(cap * sizeof(*q));
		if (!q)
			return NULL;
		for (i = 0; i < d->count; i++)
			q[i] = *direct_at(d, d->first_seq + i);
		free(d->q);
		d->q = q;
		d->cap = cap;
		d->head = 0;
	}
	*seq = d->first_seq + d->count++;
	q = direct_at(d, *seq);
	memset(q, 0, sizeof(*q));
	return q;
}

static void direct_pop(struct ustd_stream_direct *d)
{
	direct_copy_free(d, &d->q[d->head]);
	d->head = (d->head + 1) % d->cap;
	d->first_seq++;
	d->count--;
}

/* p's sub-buffer (the ring's consumed) goes back to the writers. */
static void direct_put(struct ustd_stream_direct *d, const struct direct_pkt *p)
{
	ustcomm_cbuf_put(d->f.cb);
	if (d->f.stats)
		ustd_drain_stats_packet(d->f.stats, d->f.cb->subbuf_count, p->ts_begin, p->ts_end,
					p->drain_start, p->write_start,
					ustd_drain_stats_now(d->f.stats));
}

/* A packet copied out of the ring (copied) or written through the page
 * cache, for ustd --stats: while the device lagged or the file closed. */
static void direct_count(const struct ustd_stream_direct *d, bool copied)
{
	struct ustd_drain_stats *st = d->f.stats;

	if (!st)
		return;
	if (d->closing)
		*(copied ? &st->close_copied : &st->close_buffered) += 1;
	else
		*(copied ? &st->lag_copied : &st->lag_buffered) += 1;
}

/* The oldest packet's index entry written, its part of the totals in
 * done, the packet gone from the queue. */
static int direct_retire(struct ustd_stream_direct *d, struct ustd_direct_done *done)
{
	struct direct_pkt *p = &d->q[d->head];
	int ret = d->f.idx_fd >= 0 ? ustd_write_all(d->f.idx_fd, &p->e, sizeof(p->e)) : 0;

	if (ret < 0)
		return ret;
	done->idx_len += d->f.idx_fd >= 0 ? sizeof(p->e) : 0;
	done->written += p->len;
	done->discarded = p->discarded;
	done->ts_end = p->ts_end;
	done->packets++;
	direct_pop(d);
	return 0;
}

/* p, which left the ring, is cut off the file: its bytes go to the
 * caller to count its events. */
static void direct_cut(const struct ustd_stream_direct *d, const struct direct_pkt *p,
		       struct ustd_direct_done *done)
{
	struct ustd_direct_cut *c = malloc(sizeof(*c) + p->content);

	if (c && p->copy)
		memcpy(c->pkt, p->copy, p->content);
	/* Written through the page cache: read back before the cut. */
	else if (c && pread(d->f.fd, c->pkt, p->content, (off_t)p->offset) != (ssize_t)p->content) {
		free(c);
		c = NULL;
	}
	if (!c) {
		ustcomm_err("stream %s: a packet cut off its file after a failed write cannot be kept: its events are not counted as lost",
			    d->f.name);
		return;
	}
	c->len = p->content;
	c->next = done->cut;
	done->cut = c;
}

/*
 * A write failed (or waiting for one did): the file ends with the last
 * packet on disk before the first that is not, as on the page cache's
 * path. The writes still in flight are waited for first, since one of
 * them may land past the cut. The held sub-buffers of packets cut off
 * stay the writers' to discard into (ustd_stream_lost() counts them from
 * the ring); the packets cut off that had left the ring go to the caller
 * (done->cut).
 */
static int direct_failed(struct ustd_stream_direct *d, struct direct_pkt *failed, int err,
			 struct ustd_direct_done *done)
{
	struct direct_pkt *p;
	void *tag;
	int result;

	while (ustd_dio_reap(d->dio, true, &tag, &result) == 0) {
		p = direct_at(d, (uintptr_t)tag);
		/* A moved packet's own bytes never reached the disk. */
		if (p != failed && result == 0 && p->state != DIRECT_MOVED)
			p->state = DIRECT_DONE;
		else if (!failed || p->offset < failed->offset)
			failed = p;
	}
	/*
	 * What is on disk before the cut stays in the file; a held one among
	 * them goes back to the writers too, or the ring would still hold
	 * it and ustd_stream_lost() count its events a second time. The held
	 * packets are the newest of the queue, so the head is held (the
	 * oldest) when only held ones are left. Given back before its entry
	 * is written: if that fails, the packet is cut off as one that left
	 * the ring (read back from the file below).
	 */
	while (d->count && d->q[d->head].state == DIRECT_DONE && &d->q[d->head] != failed) {
		if (d->count == d->held) {
			direct_put(d, &d->q[d->head]);
			d->held--;
		}
		if (direct_retire(d, done) < 0)
			break;
	}
	done->cut_len = d->count ? d->q[d->head].offset : d->end;
	for (; d->count > d->held; direct_pop(d))
		direct_cut(d, &d->q[d->head], done);
	for (; d->count; direct_pop(d))
		;
	d->held = 0;
	d->lagging = 0;
	d->copies = 0;
	if (ftruncate(d->f.fd, (off_t)done->cut_len) < 0)
		ustcomm_dbg("stream %s: cutting off the packets after a failed write: %s",
			    d->f.name, strerror(errno));
	d->end = done->cut_len;
	return err;
}

/* Gives back the held sub-buffers whose writes are done, in ring order,
 * then writes the index entries of the done packets, in file order. */
static int direct_settle(struct ustd_stream_direct *d, struct ustd_direct_done *done)
{
	int ret;

	while (d->held && direct_oldest_held(d)->state == DIRECT_DONE) {
		direct_put(d, direct_oldest_held(d));
		d->held--;
	}
	while (d->count > d->held && d->q[d->head].state == DIRECT_DONE) {
		ret = direct_retire(d, done);
		if (ret < 0)
			return direct_failed(d, &d->q[d->head], ret, done);
	}
	return 0;
}

/* p through the page cache from iov, O_DIRECT taken off the file for
 * the write (a write from the ring that the kernel starts meanwhile goes
 * through the page cache too, which is as correct). */
static int direct_write_buffered(struct ustd_stream_direct *d, const struct direct_pkt *p,
				 struct iovec *iov, int iovcnt)
{
	int flags = fcntl(d->f.fd, F_GETFL), ret;

	if (flags < 0 || fcntl(d->f.fd, F_SETFL, flags & ~O_DIRECT) < 0)
		return -errno;
	ret = ustd_pwritev_all(d->f.fd, iov, iovcnt, p->offset);
	if (fcntl(d->f.fd, F_SETFL, flags) < 0 && ret == 0)
		ret = -errno;
	if (ret == 0)
		ustd_wb_written(d->wb, p->offset + p->len);
	return ret;
}

/*
 * The copies waiting, through the page cache, in file order, once no
 * write from a ring is in flight: on ext4 a direct write that extends the
 * file holds the inode's lock until the device has it, and a write
 * through the page cache meanwhile would wait for the device all the same.
 */
static int direct_write_pending(struct ustd_stream_direct *d, unsigned at_most,
				struct ustd_direct_done *done)
{
	struct direct_pkt *p;
	struct iovec iov;
	unsigned i;
	int ret;

	if (ustd_dio_in_flight(d->dio))
		return 0;
	for (i = 0; i < d->count && d->copies && at_most; i++) {
		p = direct_at(d, d->first_seq + i);
		if (p->state != DIRECT_PENDING)
			continue;
		iov = (struct iovec) { p->copy, p->len };
		ret = direct_write_buffered(d, p, &iov, 1);
		if (ret < 0)
			return direct_failed(d, p, ret, done);
		direct_copy_free(d, p);
		p->state = DIRECT_DONE;
		at_most--;
		direct_count(d, false);
	}
	return 0;
}

int ustd_stream_direct_complete(struct ustd_stream_direct *d, bool wait,
				struct ustd_direct_done *done)
{
	struct direct_pkt *p;
	void *tag;
	int ret, result;

	for (;;) {
		ret = ustd_dio_reap(d->dio, wait, &tag, &result);
		if (ret == -EAGAIN)
			break;
		if (ret < 0)
			return direct_failed(d, NULL, ret, done);
		p = direct_at(d, (uintptr_t)tag);
		/* Written from the ring or given up, it is written again
		 * from the copy: the ring may have held newer bytes. */
		if (p->state == DIRECT_MOVED && (result == 0 || result == -ECANCELED)) {
			p->state = DIRECT_PENDING;
			continue;
		}
		if (result < 0)
			return direct_failed(d, p, result, done);
		p->state = DIRECT_DONE;
	}
	ret = direct_write_pending(d, wait ? UINT_MAX : DIRECT_FLUSH_BATCH, done);
	return ret < 0 ? ret : direct_settle(d, done);
}

bool ustd_stream_direct_behind(const struct ustd_stream_direct *d)
{
	return d->copies && !ustd_dio_in_flight(d->dio);
}

/* Whether the writers have half the ring or less left: the held packets
 * and those waiting behind them. */
static bool direct_ring_pressed(const struct ustd_stream_direct *d)
{
	const struct ustcomm_cbuf *cb = d->f.cb;
	uint64_t ring = (uint64_t)cb->subbuf_size * cb->subbuf_count;

	return ustcomm_cbuf_write_position(cb) - cb->consumed >= ring / 2;
}

/* p as it is written: its header rewritten (packet_size), zeroes after. */
static void direct_image(char *dst, const char *packet, size_t content, uint64_t len)
{
	memcpy(dst, packet, content);
	ust_put_u64(dst + UST_PKT_PACKET_SIZE, len * 8);
	memset(dst + content, 0, len - content);
}

/*
 * The held packets are copied out and their sub-buffers given back, those
 * whose writes are in flight to be written again from the copies through
 * the page cache once those end (the writes not started are cancelled).
 * Returns how many were copied, or -ENOMEM (nothing changed: they stay
 * held until their writes end).
 */
static int direct_release_held(struct ustd_stream_direct *d)
{
	struct direct_pkt *p;
	uint64_t begin = d->f.cb->consumed;
	unsigned i;
	int copied = 0;

	for (i = 0; i < d->held; i++) {
		p = direct_at(d, d->first_seq + d->count - d->held + i);
		if (p->state != DIRECT_HELD)
			continue;
		if (direct_copy_alloc(d, p) < 0)
			goto undo;
		direct_image(p->copy, ustcomm_cbuf_subbuf(d->f.cb, begin + (uint64_t)i *
							  d->f.cb->subbuf_size),
			     p->content, p->len);
		copied++;
	}
	for (; d->held; d->held--) {
		p = direct_oldest_held(d);
		if (p->state == DIRECT_HELD)
			p->state = DIRECT_MOVED;
		direct_put(d, p);
	}
	/* Those not started need not wait for the device at all. */
	if (ustd_dio_cancel(d->dio) < 0)
		ustcomm_dbg("stream %s: cannot cancel the writes in flight", d->f.name);
	if (!d->wb)
		d->wb = ustd_wb_open(d->f.fd, 0, DIRECT_CACHE_WINDOW);
	return copied;
undo:
	for (i = 0; i < d->held; i++)
		direct_copy_free(d, direct_at(d, d->first_seq + d->count - d->held + i));
	return -ENOMEM;
}

/*
 * The device lags: the held packets go back to the writers and the next
 * packets go through the page cache, from copies while a write from the
 * ring is still in flight. Returns 0, or 1 when memory for the copies is
 * short (nothing changed: the drain waits for the device as before).
 */
static int direct_evacuate(struct ustd_stream_direct *d)
{
	int copied = direct_release_held(d);

	if (copied < 0)
		return 1;
	d->lagging = DIRECT_LAG_PACKETS;
	if (d->f.stats)
		d->f.stats->lag_copied += (unsigned)copied;
	ustcomm_dbg("stream %s: the device lags; %d packets copied out of the ring, the next %u through the page cache",
		    d->f.name, copied, d->lagging);
	return 0;
}

void ustd_stream_direct_lag(struct ustd_stream_direct *d)
{
	if (!d || d->held || d->lagging)
		return;
	if (!d->wb)
		d->wb = ustd_wb_open(d->f.fd, 0, DIRECT_CACHE_WINDOW);
	d->lagging = DIRECT_LAG_PACKETS;
}

void ustd_stream_direct_closing(struct ustd_stream_direct *d)
{
	int copied;

	if (!d || d->closing)
		return;
	/* Without memory for the copies the packets stay held, and the
	 * next ones are written from the ring behind them as before. */
	copied = direct_release_held(d);
	if (copied < 0) {
		ustcomm_dbg("stream %s: no memory to copy the packets in flight out of the ring; its close waits for them",
			    d->f.name);
		return;
	}
	d->closing = true;
	if (d->f.stats)
		d->f.stats->close_copied += (unsigned)copied;
	if (copied)
		ustcomm_dbg("stream %s: closing its file; %d packets in flight copied out of the ring",
			    d->f.name, copied);
}

/* The packet at the ring's consumed (none is held while lagging), through
 * the page cache: from the ring when no write from it is in flight and no
 * copy waits, else from a copy written after them. The sub-buffer goes
 * back at once. */
static int direct_write_lagging(struct ustd_stream_direct *d, struct direct_pkt *p,
				const char *packet, const char *head, struct ustd_direct_done *done)
{
	static const char zeroes[USTD_DIO_ALIGN];
	struct iovec iov[3] = {
		{ (char *)head, UST_PKT_HEADER_SIZE },
		{ (char *)packet + UST_PKT_HEADER_SIZE, p->content - UST_PKT_HEADER_SIZE },
		{ (char *)zeroes, p->len - p->content },
	};
	int ret;

	if (ustd_dio_in_flight(d->dio) || d->copies) {
		if (d->copies + p->len > DIRECT_COPIES_MAX || direct_copy_alloc(d, p) < 0) {
			d->count--;
			return 1;
		}
		direct_image(p->copy, packet, p->content, p->len);
		p->state = DIRECT_PENDING;
		direct_count(d, true);
	} else {
		ret = direct_write_buffered(d, p, iov, 3);
		if (ret < 0) {
			/* Still the ring's: counted from there. */
			d->count--;
			return direct_failed(d, NULL, ret, done);
		}
		p->state = DIRECT_DONE;
		direct_count(d, false);
	}
	direct_put(d, p);
	return 0;
}

int ustd_stream_direct_write(struct ustd_stream_direct *d, const char *packet, size_t len,
			     uint64_t offset, uint64_t drain_start, struct ustd_direct_done *done)
{
	char head[UST_PKT_HEADER_SIZE];
	struct direct_pkt *p;
	uint64_t seq;
	int ret;

	ret = ustd_stream_direct_complete(d, false, done);
	if (ret < 0)
		return ret;
	if (d->count >= DIRECT_QUEUE_MAX)
		return 1;
	if (!d->closing && !d->lagging && !d->copies &&
	    ustd_dio_in_flight(d->dio) == USTD_DIO_DEPTH &&
	    (!direct_ring_pressed(d) || direct_evacuate(d) != 0))
		return 1;
	p = direct_push(d, &seq);
	if (!p)
		return -ENOMEM;
	memcpy(head, packet, sizeof(head));
	p->content = len;
	p->len = DIRECT_PADDED(len);
	p->offset = offset;
	ust_put_u64(head + UST_PKT_PACKET_SIZE, p->len * 8);
	ustd_index_entry(&p->e, head, offset);
	p->discarded = ust_get_u64(packet + UST_PKT_EVENTS_DISCARDED);
	p->ts_begin = ust_get_u64(packet + UST_PKT_TIMESTAMP_BEGIN);
	p->ts_end = ust_get_u64(packet + UST_PKT_TIMESTAMP_END);
	p->drain_start = drain_start;
	p->write_start = d->f.stats ? ustd_drain_stats_now(d->f.stats) : 0;
	if (d->closing || d->lagging || d->copies || !ustd_wb_caught_up(d->wb)) {
		d->lagging -= d->lagging > 0;
		ret = direct_write_lagging(d, p, packet, head, done);
		if (ret != 0)
			return ret;
	} else {
		while (d->spares)
			free(d->spare[--d->spares]);
		ret = ustd_dio_submit(d->dio, packet, len, head, sizeof(head), offset,
				      (void *)(uintptr_t)seq);
		if (ret < 0) {
			d->count--;
			return ret;
		}
		p->state = DIRECT_HELD;
		d->held++;
	}
	if (offset + p->len > d->end)
		d->end = offset + p->len;
	return direct_settle(d, done);
}

int ustd_stream_direct_write_copy(struct ustd_stream_direct *d, const char *packet, size_t len,
				  const char *head, uint64_t offset)
{
	return ustd_dio_write_copy(d->dio, packet, len, head, UST_PKT_HEADER_SIZE, offset);
}

void ustd_stream_direct_close(struct ustd_stream_direct *d)
{
	if (!d)
		return;
	ustd_dio_close(d->dio);
	for (; d->count; direct_pop(d))
		;
	while (d->spares)
		free(d->spare[--d->spares]);
	ustd_wb_close(d->wb, d->end);
	free(d->q);
	free(d);
}
