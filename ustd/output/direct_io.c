/* SPDX-License-Identifier: GPL-2.0-only */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include "ustd/output/direct_io.h"

static const char *dio_refusal;

void ustd_dio_refuse(void)
{
	dio_refusal = "ustd --page-cache";
}

#ifdef USTD_HAVE_LIBURING
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <liburing.h>

#define DIO_ROUND_UP(n)		(((n) + USTD_DIO_ALIGN - 1) & ~(size_t)(USTD_DIO_ALIGN - 1))

/*
 * One write: the packet's first block and its last, partial one are
 * written from blocks of bounce (the header rewritten, the zeroes after
 * the content), the whole blocks between from the packet itself.
 */
struct dio_slot {
	char *bounce;			/* 2 * USTD_DIO_ALIGN, aligned */
	struct iovec iov[3];
	int iovcnt;
	size_t len;			/* bytes of the write, aligned */
	uint64_t offset;
	void *tag;
};

struct ustd_dio {
	struct io_uring ring;
	int fd;
	unsigned busy;			/* a bit per slot in flight */
	unsigned count;			/* writes in flight */
	char *bounce;
	struct dio_slot slot[USTD_DIO_DEPTH];
};

/* Why fd is written through the page cache, or NULL. */
static const char *dio_refused(int fd)
{
	struct statfs sfs;
	int flags;

	if (fstatfs(fd, &sfs) == 0 && sfs.f_type == TMPFS_MAGIC)
		return "tmpfs: its page cache is the file";
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_DIRECT) < 0)
		return "the file system refuses O_DIRECT";
	return NULL;
}

static const char *dio_uring_refusal(int err)
{
	if (err == -ENOSYS)
		return "the kernel has no io_uring";
	if (err == -EPERM || err == -EACCES)
		return "io_uring is disabled (sysctl kernel.io_uring_disabled or seccomp)";
	return "io_uring cannot be set up (memory locked, open files)";
}

int ustd_dio_open(struct ustd_dio **d, int fd, int notify_fd, const char **why)
{
	struct ustd_dio *dio = NULL;
	unsigned i;
	int ret, flags = fcntl(fd, F_GETFL);

	*d = NULL;
	*why = dio_refusal ? dio_refusal : dio_refused(fd);
	if (*why)
		return 1;
	dio = calloc(1, sizeof(*dio));
	if (!dio || posix_memalign((void **)&dio->bounce, USTD_DIO_ALIGN,
				   2 * USTD_DIO_ALIGN * USTD_DIO_DEPTH) != 0) {
		ret = -ENOMEM;
		goto end;
	}
	dio->fd = fd;
	for (i = 0; i < USTD_DIO_DEPTH; i++)
		dio->slot[i].bounce = dio->bounce + (size_t)i * 2 * USTD_DIO_ALIGN;
	ret = io_uring_queue_init(USTD_DIO_DEPTH, &dio->ring, 0);
	if (ret < 0) {
		*why = dio_uring_refusal(ret);
		ret = 1;
		goto end;
	}
	ret = io_uring_register_eventfd(&dio->ring, notify_fd);
	if (ret < 0) {
		io_uring_queue_exit(&dio->ring);
		*why = dio_uring_refusal(ret);
		ret = 1;
		goto end;
	}
	*d = dio;
	dio = NULL;
	ret = 0;
end:
	if (dio) {
		free(dio->bounce);
		free(dio);
	}
	/* Refused after the flag was set: the page cache's file as before. */
	if (ret != 0 && flags >= 0)
		fcntl(fd, F_SETFL, flags);
	return ret;
}

unsigned ustd_dio_in_flight(const struct ustd_dio *d)
{
	return d->count;
}

/* Lays out the write of pkt in s (see struct dio_slot). */
static void dio_prepare(struct dio_slot *s, const char *pkt, size_t len, const char *head,
			size_t head_len, uint64_t offset)
{
	size_t first = len < USTD_DIO_ALIGN ? len : USTD_DIO_ALIGN;
	size_t whole_end = len & ~(size_t)(USTD_DIO_ALIGN - 1);
	char *tail = s->bounce + USTD_DIO_ALIGN;

	memcpy(s->bounce, pkt, first);
	memcpy(s->bounce, head, head_len);
	memset(s->bounce + first, 0, USTD_DIO_ALIGN - first);
	s->iov[0] = (struct iovec) { s->bounce, USTD_DIO_ALIGN };
	s->iovcnt = 1;
	if (whole_end > USTD_DIO_ALIGN)
		s->iov[s->iovcnt++] = (struct iovec) { (char *)pkt + USTD_DIO_ALIGN,
						       whole_end - USTD_DIO_ALIGN };
	if (len > USTD_DIO_ALIGN && len > whole_end) {
		memcpy(tail, pkt + whole_end, len - whole_end);
		memset(tail + (len - whole_end), 0, USTD_DIO_ALIGN - (len - whole_end));
		s->iov[s->iovcnt++] = (struct iovec) { tail, USTD_DIO_ALIGN };
	}
	s->len = DIO_ROUND_UP(len);
	s->offset = offset;
}

int ustd_dio_submit(struct ustd_dio *d, const char *pkt, size_t len, const char *head,
		    size_t head_len, uint64_t offset, void *tag)
{
	struct io_uring_sqe *sqe;
	struct dio_slot *s;
	unsigned i;
	int ret;

	if ((uintptr_t)pkt % USTD_DIO_ALIGN || offset % USTD_DIO_ALIGN || head_len > len ||
	    head_len > USTD_DIO_ALIGN)
		return -EINVAL;
	if (d->count == USTD_DIO_DEPTH)
		return -EBUSY;
	sqe = io_uring_get_sqe(&d->ring);
	if (!sqe)
		return -EBUSY;
	for (i = 0; d->busy & 1u << i; i++)
		;
	s = &d->slot[i];
	dio_prepare(s, pkt, len, head, head_len, offset);
	s->tag = tag;
	io_uring_prep_writev(sqe, d->fd, s->iov, (unsigned)s->iovcnt, offset);
	io_uring_sqe_set_data(sqe, s);
	do
		ret = io_uring_submit(&d->ring);
	while (ret == -EINTR);
	if (ret < 0)
		return ret;
	d->busy |= 1u << i;
	d->count++;
	return 0;
}

/*
 * What a completion left undone (a short write, a write the kernel gave up
 * on for now), written synchronously from where it stopped.
 */
static int dio_finish(struct ustd_dio *d, const struct dio_slot *s, int res)
{
	size_t done = res > 0 ? (size_t)res : 0, skip;
	struct iovec iov[3];
	int i, cnt;
	ssize_t w;

	if (res < 0 && res != -EAGAIN && res != -EINTR)
		return res;
	while (done < s->len) {
		for (i = 0, cnt = 0, skip = done; i < s->iovcnt; i++) {
			if (skip >= s->iov[i].iov_len) {
				skip -= s->iov[i].iov_len;
				continue;
			}
			iov[cnt].iov_base = (char *)s->iov[i].iov_base + skip;
			iov[cnt++].iov_len = s->iov[i].iov_len - skip;
			skip = 0;
		}
		w = pwritev(d->fd, iov, cnt, (off_t)(s->offset + done));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		done += (size_t)w;
	}
	return 0;
}

int ustd_dio_reap(struct ustd_dio *d, bool wait, void **tag, int *result)
{
	struct io_uring_cqe *cqe;
	struct dio_slot *s;
	int ret;

	for (;;) {
		if (!d->count)
			return -EAGAIN;
		ret = wait ? io_uring_wait_cqe(&d->ring, &cqe) : io_uring_peek_cqe(&d->ring, &cqe);
		if (ret == -EINTR)
			continue;
		if (ret < 0)
			return ret;
		s = io_uring_cqe_get_data(cqe);
		ret = cqe->res;
		io_uring_cqe_seen(&d->ring, cqe);
		/* A cancellation's own answer: the writes it names say. */
		if (s)
			break;
	}
	*result = (size_t)ret == s->len ? 0 : ret == -ECANCELED ? ret : dio_finish(d, s, ret);
	*tag = s->tag;
	d->busy &= ~(1u << (unsigned)(s - d->slot));
	d->count--;
	return 0;
}

int ustd_dio_cancel(struct ustd_dio *d)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&d->ring);
	int ret;

	if (!sqe)
		return -EBUSY;
	io_uring_prep_cancel(sqe, NULL, IORING_ASYNC_CANCEL_ANY | IORING_ASYNC_CANCEL_ALL);
	io_uring_sqe_set_data(sqe, NULL);
	do
		ret = io_uring_submit(&d->ring);
	while (ret == -EINTR);
	return ret < 0 ? ret : 0;
}

int ustd_dio_write_copy(struct ustd_dio *d, const char *pkt, size_t len, const char *head,
			size_t head_len, uint64_t offset)
{
	size_t padded = DIO_ROUND_UP(len);
	char *buf;
	int ret, result;
	void *tag;

	if (posix_memalign((void **)&buf, USTD_DIO_ALIGN, padded) != 0)
		return -ENOMEM;
	memcpy(buf, pkt, len);
	memset(buf + len, 0, padded - len);
	ret = ustd_dio_submit(d, buf, padded, head, head_len, offset, NULL);
	if (ret == 0)
		ret = ustd_dio_reap(d, true, &tag, &result);
	free(buf);
	return ret < 0 ? ret : result;
}

void ustd_dio_close(struct ustd_dio *d)
{
	void *tag;
	int result;

	if (!d)
		return;
	while (ustd_dio_reap(d, true, &tag, &result) == 0)
		;
	io_uring_queue_exit(&d->ring);
	free(d->bounce);
	free(d);
}

#else

int ustd_dio_open(struct ustd_dio **d, int fd, int notify_fd, const char **why)
{
	(void)fd;
	(void)notify_fd;
	*d = NULL;
	*why = dio_refusal ? dio_refusal : "ustd was built without liburing";
	return 1;
}

void ustd_dio_close(struct ustd_dio *d)
{
	(void)d;
}

unsigned ustd_dio_in_flight(const struct ustd_dio *d)
{
	(void)d;
	return 0;
}

int ustd_dio_submit(struct ustd_dio *d, const char *pkt, size_t len, const char *head,
		    size_t head_len, uint64_t offset, void *tag)
{
	(void)d, (void)pkt, (void)len, (void)head, (void)head_len, (void)offset, (void)tag;
	return -ENOSYS;
}

int ustd_dio_reap(struct ustd_dio *d, bool wait, void **tag, int *result)
{
	(void)d, (void)wait, (void)tag, (void)result;
	return -EAGAIN;
}

int ustd_dio_cancel(struct ustd_dio *d)
{
	(void)d;
	return -ENOSYS;
}

int ustd_dio_write_copy(struct ustd_dio *d, const char *pkt, size_t len, const char *head,
			size_t head_len, uint64_t offset)
{
	(void)d, (void)pkt, (void)len, (void)head, (void)head_len, (void)offset;
	return -ENOSYS;
}

#endif
