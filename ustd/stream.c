/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "libustcomm/log.h"
#include "ustd/stream.h"

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

int ustd_stream_map(struct ustd_stream *s, const struct ustcomm_stream *desc,
		    int shm_fd, int wakeup_fd)
{
	int flags, ret = 0;

	memset(s, 0, sizeof(*s));
	s->shm_fd = shm_fd;
	s->wakeup_fd = wakeup_fd;
	s->out_fd = -1;
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
	ret = stream_seal(s);
	if (ret < 0)
		goto end;
	ret = ustcomm_cbuf_map(&s->cb, shm_fd, desc->subbuf_size, desc->subbuf_count);
end:
	if (ret < 0) {
		stream_close_fd(&s->shm_fd);
		stream_close_fd(&s->wakeup_fd);
		s->open = false;
	}
	return ret;
}

int ustd_stream_create_file(struct ustd_stream *s, const struct ustd_trace_dir *td)
{
	int fd = ustd_trace_dir_create_file(td, s->name);

	if (fd < 0)
		return fd;
	s->out_fd = fd;
	s->dir = td->path;
	return 0;
}

/*
 * Writes into a file whose directory was removed succeed and vanish: the
 * trace is stopped instead, with a reason, as for a full disk.
 */
static int stream_check_file(const struct ustd_stream *s)
{
	struct stat st;

	if (fstat(s->out_fd, &st) < 0)
		return -errno;
	return st.st_nlink == 0 ? -ENOENT : 0;
}

/*
 * Copies at most one ring's worth of complete packets, so that a writer
 * producing as fast as ustd writes cannot keep it in this loop while other
 * applications wait. Sets *more when it stopped with packets left.
 */
static int stream_copy(struct ustd_stream *s, const uint64_t *limit, bool *more)
{
	const char *packet;
	size_t len;
	uint32_t i;
	int ret = 0;

	*more = false;
	for (i = 0; i < s->cb.subbuf_count; i++) {
		if (limit && !ustcomm_cbuf_next_ends_before(&s->cb, *limit)) {
			/* Written after the socket was read: next round. */
			*more = ustcomm_cbuf_get(&s->cb, &packet, &len) != 0;
			goto end;
		}
		ret = ustcomm_cbuf_get(&s->cb, &packet, &len);
		if (ret == 0)
			goto end;
		if (ret < 0) {
			ustcomm_err("stream %s of trace %s is corrupted (%s); that stream is stopped, the rest of the trace continues",
				    s->name, s->dir, strerror(-ret));
			ret = 1;
			goto end;
		}
		ret = ustd_write_all(s->out_fd, packet, len);
		if (ret == 0)
			ret = stream_check_file(s);
		ustcomm_cbuf_put(&s->cb);
		if (ret < 0) {
			/* A packet running past the end of its file makes the
			 * whole trace unreadable: keep whole packets only. */
			if (ftruncate(s->out_fd, (off_t)s->out_len) < 0)
				ustcomm_dbg("stream %s: cutting off a partial packet: %s",
					    s->name, strerror(errno));
			goto end;
		}
		s->out_len += len;
	}
	*more = true;
end:
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
	ret = stream_copy(s, &limit, &more);
	if (ret == 0 && more) {
		/* Come back after the other descriptors had their turn. */
		count = 1;
		if (write(s->wakeup_fd, &count, sizeof(count)) < 0)
			ustcomm_dbg("stream %s: re-arming its wakeup: %s", s->name, strerror(errno));
	}
	return ret;
}

/*
 * With the writers gone, at most one ring's worth of packets is complete.
 * What an application that crashed left in its open packet is lost here for
 * now; rescuing it (fixing up that partial packet) belongs in this function.
 */
int ustd_stream_finish(struct ustd_stream *s)
{
	bool more;

	if (!s->open)
		return 0;
	return stream_copy(s, NULL, &more);
}

void ustd_stream_close(struct ustd_stream *s)
{
	if (!s->open)
		return;
	ustcomm_cbuf_unmap(&s->cb);
	stream_close_fd(&s->out_fd);
	stream_close_fd(&s->shm_fd);
	stream_close_fd(&s->wakeup_fd);
	s->open = false;
}
