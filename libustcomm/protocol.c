/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <ust/core.h>
#include "libustcomm/ctf_layout.h"
#include "libustcomm/event_context.h"
#include "libustcomm/bufsize.h"
#include "libustcomm/protocol.h"
#include "libustcomm/trace_output.h"

#define RX_CHUNK	65536u
#define RX_FDS_MAX	UST_ARRAY_SIZE(((struct ustcomm_receiver *)0)->fds)
#define HDR_SIZE	sizeof(struct ustcomm_msg_header)

_Static_assert(sizeof(struct ustcomm_msg_header) == 16, "wire header layout");
_Static_assert(sizeof(struct ustcomm_hello) == 120 + USTCOMM_PATH_MAX, "wire hello layout");
_Static_assert(sizeof(struct ustcomm_stream) == 104, "wire stream layout");
_Static_assert(sizeof(struct ustcomm_field_layout) == 8, "wire field layout");
_Static_assert(sizeof(struct ustcomm_event_layout) == 16, "wire event layout");

/*
 * connect() on a Unix stream socket waits while the listener's backlog is
 * full (a listener that is stopped or stuck accepts nobody), for as long
 * as SO_SNDTIMEO allows, then fails with EAGAIN.
 */
int ustcomm_connect_within(const char *path, int timeout_ms)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timespec now, deadline;
	int fd, ret;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += timeout_ms / 1000;
	deadline.tv_nsec += (timeout_ms % 1000) * 1000000L;
	for (;;) {
		long long left_us;
		struct timeval tv;

		if (timeout_ms > 0) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			left_us = (deadline.tv_sec - now.tv_sec) * 1000000LL +
				  (deadline.tv_nsec - now.tv_nsec) / 1000;
			if (left_us <= 0) {
				ret = -ETIMEDOUT;
				goto fail;
			}
			tv.tv_sec = (time_t)(left_us / 1000000);
			tv.tv_usec = (suseconds_t)(left_us % 1000000);
			if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0) {
				ret = -errno;
				goto fail;
			}
		}
		if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0)
			return fd;
		ret = -errno;
		if (ret == -EAGAIN && timeout_ms > 0)
			ret = -ETIMEDOUT;
		if (ret != -EINTR)
			goto fail;
	}
fail:
	close(fd);
	return ret;
}

int ustcomm_connect(const char *path)
{
	return ustcomm_connect_within(path, 0);
}

int ustcomm_send_msg(int sock, uint16_t type, const void *payload,
		     uint32_t payload_len, const int *fds, uint32_t nr_fds)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * USTCOMM_MAX_FDS)];
	} control;
	struct ustcomm_msg_header hdr = ustcomm_msg_header_make(type, payload_len, nr_fds);
	struct iovec iov[2] = {
		{ .iov_base = &hdr, .iov_len = HDR_SIZE },
		{ .iov_base = (void *)payload, .iov_len = payload_len },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = payload_len ? 2 : 1 };
	int ret = 0;

	if (nr_fds > USTCOMM_MAX_FDS || payload_len > USTCOMM_MAX_PAYLOAD ||
	    (payload_len && !payload) || (nr_fds && !fds)) {
		ret = -EINVAL;
		goto end;
	}
	if (nr_fds) {
		struct cmsghdr *cmsg;

		memset(&control, 0, sizeof(control));
		mh.msg_control = control.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nr_fds);
		cmsg = CMSG_FIRSTHDR(&mh);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int) * nr_fds);
		memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * nr_fds);
	}
	/* The descriptors ride with the first byte sent; later pieces carry none. */
	while (mh.msg_iovlen) {
		ssize_t n = sendmsg(sock, &mh, MSG_NOSIGNAL);
		size_t done;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto end;
		}
		mh.msg_control = NULL;
		mh.msg_controllen = 0;
		done = (size_t)n;
		while (mh.msg_iovlen && done >= mh.msg_iov->iov_len) {
			done -= mh.msg_iov->iov_len;
			mh.msg_iov++;
			mh.msg_iovlen--;
		}
		if (mh.msg_iovlen) {
			mh.msg_iov->iov_base = (char *)mh.msg_iov->iov_base + done;
			mh.msg_iov->iov_len -= done;
		}
	}
end:
	return ret;
}

static void close_fds(int *fds, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		close(fds[i]);
}

void ustcomm_msg_release(struct ustcomm_msg *msg)
{
	unsigned i;

	free(msg->payload);
	for (i = 0; i < msg->nr_fds && i < USTCOMM_MAX_FDS; i++)
		if (msg->fds[i] >= 0)
			close(msg->fds[i]);
	memset(msg, 0, sizeof(*msg));
	for (i = 0; i < USTCOMM_MAX_FDS; i++)
		msg->fds[i] = -1;
}

void ustcomm_receiver_init(struct ustcomm_receiver *rx)
{
	memset(rx, 0, sizeof(*rx));
}

void ustcomm_receiver_fini(struct ustcomm_receiver *rx)
{
	free(rx->buf);
	close_fds(rx->fds, rx->nr_fds);
	ustcomm_receiver_init(rx);
}

/* Moves the descriptors of a received control message to the pending list. */
static int receiver_take_fds(struct ustcomm_receiver *rx, struct msghdr *mh)
{
	struct cmsghdr *cmsg;
	int ret = 0;

	for (cmsg = CMSG_FIRSTHDR(mh); cmsg; cmsg = CMSG_NXTHDR(mh, cmsg)) {
		size_t i, n;

		if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS ||
		    cmsg->cmsg_len < CMSG_LEN(0))
			continue;
		n = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof(int), sizeof(int));
			if (rx->nr_fds < RX_FDS_MAX && !ret) {
				rx->fds[rx->nr_fds++] = fd;
			} else {
				close(fd);
				ret = -EPROTO;
			}
		}
	}
	return ret;
}

/*
 * A reader that alternates read() and next() never holds more than one
 * largest message plus one chunk; past that the peer is flooding and
 * read() refuses to grow the buffer.
 */
ssize_t ustcomm_receiver_read(struct ustcomm_receiver *rx, int sock)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * RX_FDS_MAX)];
	} control;
	struct iovec iov;
	struct msghdr mh;
	ssize_t n;
	int ret;

	if (rx->len >= HDR_SIZE + USTCOMM_MAX_PAYLOAD + RX_CHUNK) {
		n = -ENOBUFS;
		goto end;
	}
	if (rx->cap - rx->len < RX_CHUNK) {
		size_t cap = rx->cap ? rx->cap : RX_CHUNK;
		char *buf;

		while (cap - rx->len < RX_CHUNK)
			cap *= 2;
		buf = realloc(rx->buf, cap);
		if (!buf) {
			n = -ENOMEM;
			goto end;
		}
		rx->buf = buf;
		rx->cap = cap;
	}
	iov.iov_base = rx->buf + rx->len;
	iov.iov_len = RX_CHUNK;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = control.buf;
	mh.msg_controllen = sizeof(control.buf);
	do {
		n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		n = errno == EWOULDBLOCK ? -EAGAIN : -errno;
		goto end;
	}
	ret = receiver_take_fds(rx, &mh);
	if (mh.msg_flags & MSG_CTRUNC)
		ret = -EPROTO;
	rx->len += (size_t)n;
	if (ret)
		n = ret;
end:
	return n;
}

static int msg_type_fds(uint16_t type)
{
	switch (type) {
	case USTCOMM_MSG_HELLO:
	case USTCOMM_MSG_METADATA:
	case USTCOMM_MSG_GOODBYE:
	case USTCOMM_MSG_EVENT_LAYOUT:
	case USTCOMM_MSG_SNAPSHOT:
	case USTCOMM_MSG_SNAPSHOT_DONE:
	case USTCOMM_MSG_UID_CHANNEL:
	case USTCOMM_MSG_UID_CHANNEL_REPLY:
	case USTCOMM_MSG_UID_EVENT:
	case USTCOMM_MSG_UID_EVENT_REPLY:
		return 0;
	case USTCOMM_MSG_STREAM:
		return 2;
	case USTCOMM_MSG_TRIGGER_CHANNEL:
		return 1;
	default:
		return -1;
	}
}

int ustcomm_check_header(const struct ustcomm_msg_header *hdr)
{
	if (hdr->magic != USTCOMM_MAGIC || hdr->version != USTCOMM_VERSION ||
	    msg_type_fds(hdr->type) < 0)
		return -EPROTO;
	if (hdr->payload_len > USTCOMM_MAX_PAYLOAD)
		return -EMSGSIZE;
	if (hdr->nr_fds > USTCOMM_MAX_FDS || hdr->nr_fds != (uint32_t)msg_type_fds(hdr->type))
		return -EPROTO;
	return 0;
}

int ustcomm_receiver_next(struct ustcomm_receiver *rx, struct ustcomm_msg *msg)
{
	struct ustcomm_msg_header hdr;
	unsigned i;
	int ret = 0;

	if (rx->len < HDR_SIZE)
		goto end;
	memcpy(&hdr, rx->buf, HDR_SIZE);
	ret = ustcomm_check_header(&hdr);
	if (ret < 0)
		goto end;
	/* Descriptors arrive with the header's first byte, so they are all here. */
	if (hdr.nr_fds > rx->nr_fds) {
		ret = -EPROTO;
		goto end;
	}
	if (rx->len - HDR_SIZE < hdr.payload_len)
		goto end;

	memset(msg, 0, sizeof(*msg));
	msg->payload = malloc((size_t)hdr.payload_len + 1);
	if (!msg->payload) {
		ret = -ENOMEM;
		goto end;
	}
	memcpy(msg->payload, rx->buf + HDR_SIZE, hdr.payload_len);
	msg->payload[hdr.payload_len] = '\0';
	msg->type = hdr.type;
	msg->payload_len = hdr.payload_len;
	msg->nr_fds = hdr.nr_fds;
	for (i = 0; i < USTCOMM_MAX_FDS; i++)
		msg->fds[i] = i < hdr.nr_fds ? rx->fds[i] : -1;
	rx->nr_fds -= hdr.nr_fds;
	memmove(rx->fds, rx->fds + hdr.nr_fds, rx->nr_fds * sizeof(int));
	rx->len -= HDR_SIZE + hdr.payload_len;
	memmove(rx->buf, rx->buf + HDR_SIZE + hdr.payload_len, rx->len);
	ret = 1;
end:
	return ret;
}

/* A name that is safe in a file name, a directory name and a TSDL string. */
static int wire_name_ok(const char *s, size_t size)
{
	const unsigned char *end = memchr(s, '\0', size);
	const unsigned char *p;

	if (!end || end == (const unsigned char *)s)
		return 0;
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		return 0;
	for (p = (const unsigned char *)s; p < end; p++)
		if (*p < 0x20 || *p > 0x7e || *p == '/')
			return 0;
	return 1;
}

int ustcomm_check_hello(const struct ustcomm_msg *msg, const struct ustcomm_hello **out)
{
	const struct ustcomm_hello *hello = (const void *)msg->payload;
	struct ustcomm_relay_url url;
	const char *why;

	if (msg->type != USTCOMM_MSG_HELLO || msg->payload_len != sizeof(*hello) ||
	    hello->clock > USTCOMM_CLOCK_TSC ||
	    !wire_name_ok(hello->procname, sizeof(hello->procname)) ||
	    !wire_name_ok(hello->trace_name, sizeof(hello->trace_name)) ||
	    !memchr(hello->output, '\0', sizeof(hello->output)) ||
	    ustcomm_output_parse(hello->output, &url, &why) < 0)
		return -EPROTO;
	*out = hello;
	return 0;
}

int ustcomm_check_stream(const struct ustcomm_msg *msg, const struct ustcomm_stream **out)
{
	const struct ustcomm_stream *st = (const void *)msg->payload;

	if (msg->type != USTCOMM_MSG_STREAM || msg->payload_len != sizeof(*st) ||
	    msg->nr_fds != 2 ||
	    !wire_name_ok(st->channel, sizeof(st->channel)) ||
	    !ust_shm_sizes_valid(st->subbuf_size, st->subbuf_count) ||
	    (st->flags & ~UST_SHM_FLAGS_KNOWN) ||
	    ((st->flags & UST_SHM_FLAG_OVERWRITE) && (st->flags & UST_SHM_FLAG_THREAD)) || st->ctx_size > USTCOMM_CTX_SIZE_MAX ||
	    (st->tracefile_size && (st->tracefile_size < UST_TRACEFILE_SIZE_MIN ||
				    st->tracefile_size > UST_TRACEFILE_SIZE_MAX)) ||
	    st->tracefile_count > UST_TRACEFILE_COUNT_MAX)
		return -EPROTO;
	*out = st;
	return 0;
}

static int size_ok(uint8_t size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

static int field_layout_ok(const struct ustcomm_field_layout *f)
{
	if (f->reserved)
		return 0;
	switch (f->kind) {
	case UST_FIELD_INTEGER:
		return size_ok(f->size) && !f->len_size && !f->length;
	case UST_FIELD_FLOAT:
		return (f->size == 4 || f->size == 8) && !f->len_size && !f->length;
	case UST_FIELD_STRING:
		return !f->size && !f->len_size && !f->length;
	case UST_FIELD_ARRAY:
		return size_ok(f->size) && !f->len_size;
	case UST_FIELD_SEQUENCE:
		return size_ok(f->size) && size_ok(f->len_size) && !f->length;
	default:
		return 0;
	}
}

int ustcomm_check_event_layout(const struct ustcomm_msg *msg,
			       const struct ustcomm_event_layout **out)
{
	const struct ustcomm_event_layout *el = (const void *)msg->payload;
	const struct ustcomm_field_layout *f;
	uint32_t i;

	if (msg->type != USTCOMM_MSG_EVENT_LAYOUT || msg->payload_len < sizeof(*el) ||
	    el->event_id < UST_EVENT_ID_FIRST || el->reserved ||
	    (msg->payload_len - sizeof(*el)) / sizeof(*f) != el->nr_fields ||
	    (msg->payload_len - sizeof(*el)) % sizeof(*f))
		return -EPROTO;
	f = (const void *)(el + 1);
	for (i = 0; i < el->nr_fields; i++) {
		if (!field_layout_ok(&f[i]))
			return -EPROTO;
	}
	*out = el;
	return 0;
}

int ustcomm_check_snapshot(const struct ustcomm_msg *msg, const struct ustcomm_snapshot **out)
{
	const struct ustcomm_snapshot *sn = (const void *)msg->payload;

	if (msg->type != USTCOMM_MSG_SNAPSHOT || msg->payload_len != sizeof(*sn) ||
	    !memchr(sn->dir, '\0', sizeof(sn->dir)) || (sn->dir[0] && sn->dir[0] != '/'))
		return -EPROTO;
	*out = sn;
	return 0;
}

int ustcomm_check_snapshot_done(const struct ustcomm_msg *msg,
				const struct ustcomm_snapshot_done **out)
{
	const struct ustcomm_snapshot_done *d = (const void *)msg->payload;

	if (msg->type != USTCOMM_MSG_SNAPSHOT_DONE || msg->payload_len != sizeof(*d) ||
	    d->status > 0 || d->reserved || !memchr(d->text, '\0', sizeof(d->text)))
		return -EPROTO;
	*out = d;
	return 0;
}

int ustcomm_check_uid_channel(const struct ustcomm_msg *msg,
			      const struct ustcomm_uid_channel **out)
{
	const struct ustcomm_uid_channel *c = (const void *)msg->payload;
	uint32_t i;

	if (msg->type != USTCOMM_MSG_UID_CHANNEL || msg->payload_len != sizeof(*c) ||
	    !memchr(c->channel, '\0', sizeof(c->channel)) || !c->channel[0] ||
	    !ust_shm_sizes_valid(c->subbuf_size, c->subbuf_count) || !c->nr_cpus ||
	    c->nr_cpus > USTCOMM_UID_CPUS_MAX || c->ctx_nr > USTCOMM_UID_CTX_MAX)
		return -EPROTO;
	for (i = 0; i < c->ctx_nr; i++) {
		if (c->ctx_ids[i] >= USTCOMM_CTX_NR)
			return -EPROTO;
	}
	*out = c;
	return 0;
}

int ustcomm_check_uid_event(const struct ustcomm_msg *msg, const struct ustcomm_uid_event **out,
			    const char **name, const char **fields,
			    const struct ustcomm_field_layout **layouts)
{
	const struct ustcomm_uid_event *e = (const void *)msg->payload;
	const struct ustcomm_field_layout *f;
	const char *n;
	uint64_t need;
	uint32_t i;

	if (msg->type != USTCOMM_MSG_UID_EVENT || msg->payload_len < sizeof(*e))
		return -EPROTO;
	need = sizeof(*e) + (uint64_t)e->name_len + e->fields_len +
		(uint64_t)e->nr_fields * sizeof(*f);
	if (e->reserved || need != msg->payload_len || e->name_len < 2 || e->fields_len < 1 ||
	    (e->name_len + e->fields_len) % 4)
		return -EPROTO;
	n = (const char *)(e + 1);
	if (n[e->name_len - 1] || strlen(n) != e->name_len - 1 ||
	    n[e->name_len + e->fields_len - 1] ||
	    strlen(n + e->name_len) >= e->fields_len)
		return -EPROTO;
	f = (const void *)(n + e->name_len + e->fields_len);
	for (i = 0; i < e->nr_fields; i++) {
		if (!field_layout_ok(&f[i]))
			return -EPROTO;
	}
	*out = e;
	*name = n;
	*fields = n + e->name_len;
	*layouts = f;
	return 0;
}

int ustcomm_check_trigger_fired(const void *buf, size_t len, struct ustcomm_trigger_fired *fired,
				const char **dir)
{
	const size_t fixed = sizeof(struct ustcomm_msg_header) + sizeof(*fired);
	struct ustcomm_msg_header hdr;
	const char *d = (const char *)buf + fixed;

	if (len <= fixed || len > fixed + USTCOMM_PATH_MAX)
		return -EPROTO;
	memcpy(&hdr, buf, sizeof(hdr));
	if (hdr.magic != USTCOMM_MAGIC || hdr.version != USTCOMM_VERSION ||
	    hdr.type != USTCOMM_MSG_TRIGGER_FIRED || hdr.nr_fds ||
	    hdr.payload_len != len - sizeof(hdr) || d[len - fixed - 1] != '\0' ||
	    strlen(d) != len - fixed - 1)
		return -EPROTO;
	memcpy(fired, (const char *)buf + sizeof(hdr), sizeof(*fired));
	*dir = d;
	return 0;
}
