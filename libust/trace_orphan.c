/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The trace ended (exit, destroy-trace) and its ustd is gone: what its
 * buffers hold is kept for the next ustd in an orphan file
 * (libustcomm/orphan.h) instead of vanishing with the process. The file
 * holds the messages a reconnect sends (trace_ustd.c writes them here
 * instead of to a socket) and, for each buffer, its control block and the
 * sub-buffers not consumed yet. Bounded: at most the buffers' size (which
 * was checked against the memory available), never when the file system
 * has not that much free, and at most ORPHAN_TIME_MS. What cannot be kept
 * is counted and said once.
 *
 * Async-signal-safe (destroy-trace may come from the control handler):
 * system calls, ustcomm_format(), no memory allocated.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <urcu/uatomic.h>

#include "libust/trace_internal.h"
#include "libustcomm/clock.h"
#include "libustcomm/field_size.h"
#include "libustcomm/format.h"
#include "libustcomm/log.h"
#include "libustcomm/orphan.h"
#include "libustcomm/rundir.h"

/* A program that exits waits this long at most: memory to a local file
 * system goes at a few ms per MiB, so only a stuck one reaches it. */
#define ORPHAN_TIME_MS		2000
/* sendfile() a MiB at a time, looking at the clock in between. */
#define ORPHAN_CHUNK		(1u << 20)
/* Room kept for the metadata and for the file system's other users. */
#define ORPHAN_SPARE		(1u << 20)

struct ust_trace_orphan {
	int fd;
	uint64_t end;			/* bytes of the file so far */
	uint64_t deadline_ms;
};

static int orphan_write(struct ust_trace_orphan *o, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = pwrite(o->fd, p, len, (off_t)o->end);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
		o->end += (uint64_t)n;
	}
	return 0;
}

/* Copies len bytes at from in the memfd to at in the file. */
static int orphan_copy(struct ust_trace_orphan *o, int shm_fd, uint64_t from, uint64_t at,
		       uint64_t len)
{
	off_t in = (off_t)from;
	ssize_t n;

	if (lseek(o->fd, (off_t)at, SEEK_SET) < 0)
		return -errno;
	while (len) {
		if (ust_clock_read_kind(0) / 1000000 > o->deadline_ms)
			return -ETIMEDOUT;
		n = sendfile(o->fd, shm_fd, &in, len < ORPHAN_CHUNK ? (size_t)len : ORPHAN_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		len -= (uint64_t)n;
	}
	return 0;
}

/* The buffer's image after its STREAM record: the control block and the
 * sub-buffers from consumed to the writers' position (the whole ring in
 * overwrite mode, which ustd never consumes); the rest stays a hole. */
static int orphan_image(struct ust_trace_orphan *o, int shm_fd)
{
	struct ust_shm_ctl ctl;
	uint64_t at = ustcomm_orphan_image_at(o->end), ring, pos, end;
	uint32_t idx;
	int ret;

	if (pread(shm_fd, &ctl, sizeof(ctl), 0) != (ssize_t)sizeof(ctl))
		return -EIO;
	if (!ust_shm_sizes_valid(ctl.subbuf_size, ctl.subbuf_count))
		return -EPROTO;
	ring = (uint64_t)ctl.subbuf_size * ctl.subbuf_count;
	ret = orphan_copy(o, shm_fd, 0, at, ctl.data_offset);
	pos = ctl.consumed;
	end = ctl.write_offset;
	if ((ctl.flags & UST_SHM_FLAG_OVERWRITE) || end - pos >= ring)
		pos = end - ring;
	for (; ret >= 0 && pos < end; pos += ctl.subbuf_size) {
		idx = ust_shm_subbuf_index(ctl.subbuf_size, ctl.subbuf_count, pos);
		ret = orphan_copy(o, shm_fd, ctl.data_offset + (uint64_t)idx * ctl.subbuf_size,
				  at + ctl.data_offset + (uint64_t)idx * ctl.subbuf_size,
				  ctl.subbuf_size);
	}
	o->end = at + ctl.map_size;
	if (ret >= 0 && ftruncate(o->fd, (off_t)o->end) < 0)
		ret = -errno;
	return ret;
}

/* What ust_trace_send_msg() would send to ustd, into the file (ust_t.divert). */
static int orphan_put(void *arg, uint16_t type, const void *payload, uint32_t len,
		      const int *fds, uint32_t nr_fds)
{
	struct ust_trace_orphan *o = arg;
	struct ustcomm_msg_header hdr = ustcomm_msg_header_make(type, len, nr_fds);
	int ret;

	ret = orphan_write(o, &hdr, sizeof(hdr));
	if (ret >= 0 && len)
		ret = orphan_write(o, payload, len);
	if (ret >= 0 && type == USTCOMM_MSG_STREAM)
		ret = orphan_image(o, fds[0]);
	return ret;
}

/* The most the file takes: every buffer whole, and the metadata. */
static uint64_t orphan_size_max(void)
{
	uint64_t size = ORPHAN_SPARE;
	unsigned i, j;

	for (i = 0; i < ust_t.nr_channels; i++)
		for (j = 0; j < ust_t.channels[i]->nr_bufs; j++)
			size += USTCOMM_ORPHAN_ALIGN + ust_t.channels[i]->bufs[j].map_size;
	return size;
}

/* Writes the orphan under tmp; 0 or a negative errno. */
static int orphan_write_file(const char *tmp)
{
	struct ustcomm_orphan_head head = {
		.magic = USTCOMM_ORPHAN_MAGIC,
		.version = USTCOMM_ORPHAN_VERSION,
		.pid = (uint32_t)getpid(),
	};
	struct ust_trace_orphan o = {
		.deadline_ms = ust_clock_read_kind(0) / 1000000 + ORPHAN_TIME_MS,
	};
	struct statvfs vfs;
	int ret;

	o.fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (o.fd < 0)
		return -errno;
	if (fstatvfs(o.fd, &vfs) < 0) {
		ret = -errno;
		goto end;
	}
	if ((uint64_t)vfs.f_bavail * vfs.f_frsize < orphan_size_max()) {
		ret = -ENOSPC;
		goto end;
	}
	ret = orphan_write(&o, &head, sizeof(head));
	if (ret < 0)
		goto end;
	ust_t.divert_arg = &o;
	ust_t.divert = orphan_put;
	ret = ust_trace_describe();
	ust_t.divert = NULL;
end:
	close(o.fd);
	return ret;
}

/* The event of chan with id, if enabled in it. */
static const struct ust_event_state *orphan_event(const struct ust_channel *chan, uint32_t id)
{
	const struct ust_event_state *ev;

	for (ev = ust_registry_first(); ev; ev = ev->next) {
		if (ev->bound[ust_t.slot] && ev->bound[ust_t.slot]->chan == chan &&
		    ev->bound[ust_t.slot]->id == id)
			return ev;
	}
	return NULL;
}

/* The finished events of the packet at begin, walked as ustd walks a
 * dead writer's (ustd/rescue.c): up to the first unfinished one. */
static uint64_t orphan_count_packet(const struct ust_channel *chan, const struct ust_rb *rb,
				    uint64_t begin, uint64_t write_offset)
{
	const char *pkt = ust_rb_pos_ptr(rb, begin);
	const struct ust_event_state *ev;
	struct ustcomm_field_layout f;
	uint64_t limit = ust_get_u64(pkt + UST_PKT_CONTENT_SIZE) / 8, o, count = 0;
	uint32_t id, i;
	int64_t n;

	if (!limit || limit > rb->subbuf_size)
		limit = write_offset - begin < rb->subbuf_size ? write_offset - begin : rb->subbuf_size;
	for (o = UST_PKT_HEADER_SIZE; o < limit && pkt[o]; count++) {
		if ((uint8_t)pkt[o] == UST_EVENT_ID_EXTENDED) {
			if (limit - o < UST_EVENT_HEADER_EXTENDED_SIZE)
				break;
			id = ust_get_u32(pkt + o + 1);
			o += UST_EVENT_HEADER_EXTENDED_SIZE;
		} else {
			id = ust_get_u32(pkt + o) & 31u;
			o += UST_EVENT_HEADER_COMPACT_SIZE;
		}
		ev = orphan_event(chan, id);
		if (!ev || limit - o < chan->ctx_size)
			break;
		o += chan->ctx_size;
		for (i = 0; i < ev->nr_fields; i++) {
			ust_trace_field_layout(&ev->fields[i], &f);
			n = ustcomm_field_size(&f, pkt + o, limit - o);
			if (n < 0)
				return count;
			o += (uint64_t)n;
		}
	}
	return count;
}

/* Events written and not consumed, and those the full buffers discarded. */
static uint64_t orphan_count_lost(void)
{
	const struct ust_channel *chan;
	const struct ust_rb *rb;
	uint64_t lost = 0, pos, end, ring;
	unsigned i, j;

	for (i = 0; i < ust_t.nr_channels; i++) {
		chan = ust_t.channels[i];
		for (j = 0; j < chan->nr_bufs; j++) {
			rb = &chan->bufs[j];
			ring = (uint64_t)rb->subbuf_size * rb->subbuf_count;
			lost += uatomic_read(&rb->ctl->events_discarded);
			pos = uatomic_read(&rb->ctl->consumed);
			end = uatomic_read(&rb->ctl->write_offset);
			if (rb->overwrite || end - pos > ring)
				pos = end > ring ? end - ring : 0;
			for (; pos < end; pos += rb->subbuf_size)
				lost += orphan_count_packet(chan, rb, pos, end);
		}
	}
	return lost;
}

void ust_trace_orphan_save(void)
{
	char dir[USTCOMM_PATH_MAX], tmp[USTCOMM_PATH_MAX], name[USTCOMM_PATH_MAX], uuid[37];
	int ret;

	if (!ust_t.nr_channels)
		return;
	ustcomm_uuid_format(ust_t.uuid, uuid);
	ret = ustcomm_orphans_dir(dir, sizeof(dir));
	if (ret >= 0 &&
	    (ustcomm_format(tmp, sizeof(tmp), "%s/.%d-%s", dir, (int)getpid(), uuid) < 0 ||
	     ustcomm_format(name, sizeof(name), "%s/%d-%s", dir, (int)getpid(), uuid) < 0))
		ret = -ENAMETOOLONG;
	if (ret < 0) {
		ustcomm_err("ustd is gone: %llu events of trace %s are lost (no run directory to keep them in: %s)",
			    (unsigned long long)orphan_count_lost(), ust_t.name, ustcomm_strerror(-ret));
		return;
	}
	ret = orphan_write_file(tmp);
	if (ret >= 0 && rename(tmp, name) < 0)
		ret = -errno;
	if (ret < 0) {
		unlink(tmp);
		ustcomm_err("ustd is gone: %llu events of trace %s are lost (they could not be kept in %s for the next ustd: %s)",
			    (unsigned long long)orphan_count_lost(), ust_t.name, dir,
			    ustcomm_strerror(-ret));
		return;
	}
	ustcomm_dbg("ustd is gone: trace %s is kept in %s for the next ustd", ust_t.name, name);
}
