/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Buffers per user (a session's --buffers-uid): the trace's channels are
 * rings ustd made and shares among the processes of the uid, and its
 * events' ids are the ones ustd gives, the same in every process of the
 * set (protocol.h). Each is asked once, under the lock, and waited for
 * (bounded): the first event of a kind in a process pays one round trip
 * to ustd, the writes after it none.
 *
 * Async-signal-safe: system calls, ust_zalloc() and a strbuf
 * (libustcomm/strbuf.c says why it is).
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "libust/sigsafe_alloc.h"
#include "libust/trace_internal.h"
#include "libustcomm/format.h"
#include "libustcomm/log.h"
#include "libustcomm/metadata.h"
#include "libustcomm/protocol.h"

/* ustd answers from its event loop: a busy loop takes milliseconds. */
#define UID_REPLY_WAIT_MS	5000

/*
 * Receives one message of type, whose payload is exactly len bytes, with
 * exactly nr_fds descriptors (into fds). The descriptors ride with the
 * message's first byte (ustcomm_send_msg()), so the first recvmsg() takes
 * them; the rest of the bytes follow.
 */
static int recv_msg(int sock, uint16_t type, void *payload, uint32_t len, int *fds,
		    uint32_t nr_fds)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * USTCOMM_MAX_FDS)];
	} control;
	struct ustcomm_msg_header hdr;
	struct iovec iov = { .iov_base = &hdr, .iov_len = sizeof(hdr) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	struct cmsghdr *cmsg;
	uint32_t got_fds = 0, i;
	ssize_t n;
	int r, ret;

	for (;;) {
		r = poll(&pfd, 1, UID_REPLY_WAIT_MS);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -ETIMEDOUT;
		memset(&control, 0, sizeof(control));
		mh.msg_control = control.buf;
		mh.msg_controllen = sizeof(control.buf);
		n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ECONNRESET;
		break;
	}
	for (cmsg = CMSG_FIRSTHDR(&mh); cmsg; cmsg = CMSG_NXTHDR(&mh, cmsg)) {
		if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS)
			continue;
		got_fds = (uint32_t)((cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		memcpy(fds, CMSG_DATA(cmsg), got_fds * sizeof(int));
	}
	ret = (size_t)n < sizeof(hdr) ?
		ust_trace_recv_exact(sock, (char *)&hdr + n, sizeof(hdr) - (size_t)n,
				     UID_REPLY_WAIT_MS) : 0;
	if (ret == 0 && (hdr.magic != USTCOMM_MAGIC || hdr.version != USTCOMM_VERSION ||
			 hdr.type != type || hdr.payload_len != len || hdr.nr_fds != nr_fds ||
			 got_fds != nr_fds || (mh.msg_flags & MSG_CTRUNC)))
		ret = -EPROTO;
	if (ret == 0)
		ret = ust_trace_recv_exact(sock, payload, len, UID_REPLY_WAIT_MS);
	if (ret < 0) {
		for (i = 0; i < got_fds && i < USTCOMM_MAX_FDS; i++)
			close(fds[i]);
	}
	return ret;
}

/* A failed exchange leaves the connection out of step: it is dropped. */
static int exchange_failed(int err, const char *what)
{
	ust_trace_connection_lost(err);
	return ust_trace_fail(err, "ustd did not answer for %s: %s", what, ustcomm_strerror(-err));
}

static int refused(const struct ustcomm_uid_reply *reply, const char *what)
{
	if (reply->status >= 0 || !memchr(reply->error, '\0', sizeof(reply->error)))
		return exchange_failed(-EPROTO, what);
	return ust_trace_fail(reply->status, "ustd refused %s: %s", what, reply->error);
}

static int uid_streams(uint32_t nr_cpus, int *shm_fds, int *wakeup_fds,
		       struct ustcomm_stream *desc)
{
	struct ustcomm_stream one;
	int fds[2];
	uint32_t i;
	int ret;

	for (i = 0; i < nr_cpus; i++) {
		ret = recv_msg(ust_t.sock, USTCOMM_MSG_STREAM, &one, sizeof(one), fds, 2);
		if (ret < 0)
			return ret;
		shm_fds[i] = fds[0];
		wakeup_fds[i] = fds[1];
		if (one.cpu != i || (i && (one.subbuf_size != desc->subbuf_size ||
					   one.subbuf_count != desc->subbuf_count ||
					   one.stream_id != desc->stream_id)))
			return -EPROTO;
		*desc = one;
	}
	return 0;
}

int ust_trace_uid_channel(struct ust_channel **out, const char *name, uint32_t size,
			  uint32_t num, const struct ustcomm_ctx_set *ctx)
{
	struct ustcomm_uid_channel req;
	struct ustcomm_uid_reply *reply;
	struct ustcomm_stream desc;
	int *fds = NULL;
	char what[UST_SHM_CHANNEL_NAME_MAX + 32];
	uint32_t i, nr;
	int ret;

	ustcomm_format(what, sizeof(what), "the buffers of channel %s", name);
	memset(&req, 0, sizeof(req));
	memcpy(req.channel, name, strnlen(name, sizeof(req.channel) - 1));
	req.subbuf_size = size;
	req.subbuf_count = num;
	req.nr_cpus = ust_t.cfg.nr_cpus;
	req.ctx_nr = ctx->nr;
	memcpy(req.ctx_ids, ctx->ids, ctx->nr);
	reply = ust_zalloc(sizeof(*reply));
	if (!reply)
		return ust_trace_fail(-ENOMEM, "out of memory asking ustd for %s", what);
	ret = ust_trace_send_msg(USTCOMM_MSG_UID_CHANNEL, &req, sizeof(req), NULL, 0);
	if (ret < 0)
		goto end;
	ret = recv_msg(ust_t.sock, USTCOMM_MSG_UID_CHANNEL_REPLY, reply, sizeof(*reply), NULL, 0);
	if (ret < 0) {
		ret = exchange_failed(ret, what);
		goto end;
	}
	if (reply->status) {
		ret = refused(reply, what);
		goto end;
	}
	nr = reply->nr_cpus;
	if (!nr || nr > USTCOMM_UID_CPUS_MAX) {
		ret = exchange_failed(-EPROTO, what);
		goto end;
	}
	fds = ust_zalloc(2 * nr * sizeof(*fds));
	if (!fds) {
		/* The streams are on their way: the connection is out of step. */
		ret = exchange_failed(-ENOMEM, what);
		goto end;
	}
	for (i = 0; i < 2 * nr; i++)
		fds[i] = -1;
	memset(&desc, 0, sizeof(desc));
	ret = uid_streams(nr, fds, fds + nr, &desc);
	if (ret < 0) {
		for (i = 0; i < 2 * nr; i++) {
			if (fds[i] >= 0)
				close(fds[i]);
		}
		ret = exchange_failed(ret, what);
		goto end;
	}
	/* ust_rb_attach() checks the buffers' own flags against the trace's. */
	ret = ust_channel_attach(out, name, desc.stream_id, nr, desc.subbuf_size,
				 desc.subbuf_count, ust_t.cfg.overwrite, reply->uuid, ctx, fds,
				 fds + nr);
	if (ret < 0)
		ret = ust_trace_fail(ret, "cannot map %s: %s", what, ustcomm_strerror(-ret));
end:
	ust_free(fds);
	ust_free(reply);
	return ret;
}

int ust_trace_uid_event(const struct ust_event_state *ev, uint32_t stream_id, uint32_t *id)
{
	struct ustcomm_strbuf fields = USTCOMM_STRBUF_INIT;
	struct ustcomm_uid_reply *reply = NULL;
	struct ustcomm_uid_event *req;
	struct ustcomm_field_layout *f;
	uint32_t name_len = (uint32_t)strlen(ev->full_name) + 1, fields_len, len, i;
	char *p = NULL;
	int ret;

	ret = ustcomm_metadata_fields(&fields, ev->fields, ev->nr_fields);
	if (ret < 0) {
		ustcomm_err("event %s is left out: its fields cannot be described in CTF",
			    ev->full_name);
		ret = ust_trace_fail(ret, "event %s cannot be described in CTF", ev->full_name);
		goto end;
	}
	/* NULs up to a multiple of 4, where the layouts begin (protocol.h). */
	fields_len = (uint32_t)fields.len + 1;
	fields_len += (4 - (name_len + fields_len) % 4) % 4;
	len = (uint32_t)sizeof(*req) + name_len + fields_len +
		ev->nr_fields * (uint32_t)sizeof(*f);
	p = ust_zalloc(len);
	reply = ust_zalloc(sizeof(*reply));
	if (!p || !reply) {
		ret = ust_trace_fail(-ENOMEM, "out of memory enabling %s", ev->full_name);
		goto end;
	}
	req = (struct ustcomm_uid_event *)p;
	req->stream_id = stream_id;
	req->loglevel = ev->loglevel;
	req->nr_fields = ev->nr_fields;
	req->name_len = name_len;
	req->fields_len = fields_len;
	memcpy(p + sizeof(*req), ev->full_name, name_len);
	memcpy(p + sizeof(*req) + name_len, fields.buf, fields.len);
	f = (struct ustcomm_field_layout *)(p + sizeof(*req) + name_len + fields_len);
	for (i = 0; i < ev->nr_fields; i++)
		ust_trace_field_layout(&ev->fields[i], &f[i]);
	ret = ust_trace_send_msg(USTCOMM_MSG_UID_EVENT, p, len, NULL, 0);
	if (ret < 0)
		goto end;
	ret = recv_msg(ust_t.sock, USTCOMM_MSG_UID_EVENT_REPLY, reply, sizeof(*reply), NULL, 0);
	if (ret < 0) {
		ret = exchange_failed(ret, ev->full_name);
		goto end;
	}
	if (reply->status) {
		ret = refused(reply, ev->full_name);
		goto end;
	}
	if (reply->id < UST_EVENT_ID_FIRST) {
		ret = exchange_failed(-EPROTO, ev->full_name);
		goto end;
	}
	*id = reply->id;
end:
	ustcomm_strbuf_free(&fields);
	ust_free(reply);
	ust_free(p);
	return ret;
}
