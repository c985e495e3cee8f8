/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The trace's connection to ustd (protocol.h): HELLO, the metadata, the
 * buffers' file descriptors, and the end-of-trace handshake. A stuck ustd
 * never holds the application long: sends time out, waits are bounded.
 * Async-signal-safe: system calls, ustcomm_format(), ust_zalloc().
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <urcu/uatomic.h>

#include "libust/sigsafe_alloc.h"
#include "libust/trace_internal.h"
#include "libustcomm/clock.h"
#include "libustcomm/format.h"
#include "libustcomm/log.h"
#include "libustcomm/metadata.h"
#include "libustcomm/protocol.h"
#include "libustcomm/shm_layout.h"

#define SEND_TIMEOUT_S		2
/* How long destroy-trace and exit wait for ustd to write the last data. */
#define DRAIN_WAIT_MS		5000

void ust_trace_connection_lost(int err)
{
	ustcomm_err("lost the connection to ustd (%s): events already recorded stay in the buffers, no new event is enabled",
		    ustcomm_strerror(-err));
	close(ust_t.sock);
	ust_t.sock = -1;
}

/*
 * For writers waiting for a release (ring_buffer_wait.c), outside the
 * lock: ustd holds its end of our socket while it lives, so its death, by
 * any signal, hangs it up. The descriptor is read without the lock: when
 * the connection is dropped it is -1 from then on, and a look at a
 * number closed and reused meanwhile errs for one slice at most.
 */
static int sock_alive(const struct ust_trace_data *t)
{
	struct pollfd p = { .fd = uatomic_read(&t->sock), .events = POLLRDHUP };

	if (p.fd < 0)
		return 0;
	if (poll(&p, 1, 0) < 0)
		return 1;	/* EINTR, ENOMEM: look again after the next slice */
	return !(p.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL));
}

int ust_trace_consumer_alive(void)
{
	return sock_alive(&ust_t);
}

static int alive_0(void)
{
	return sock_alive(&ust_traces[0]);
}

static int alive_1(void)
{
	return sock_alive(&ust_traces[1]);
}

static int alive_2(void)
{
	return sock_alive(&ust_traces[2]);
}

static int alive_3(void)
{
	return sock_alive(&ust_traces[3]);
}

int (*ust_trace_consumer_alive_fn(void))(void)
{
	static int (*const fns[UST_TRACES_MAX])(void) = { alive_0, alive_1, alive_2, alive_3 };

	return fns[ust_t.slot];
}

int ust_trace_send_msg(uint16_t type, const void *payload, uint32_t len, const int *fds,
		    uint32_t nr_fds)
{
	int ret;

	if (ust_t.divert)
		return ust_t.divert(ust_t.divert_arg, type, payload, len, fds, nr_fds);
	if (ust_t.sock < 0)
		return ust_trace_fail(-ENOTCONN, "trace '%s' lost its connection to ustd", ust_t.name);
	ret = ustcomm_send_msg(ust_t.sock, type, payload, len, fds, nr_fds);
	if (ret < 0) {
		ust_trace_connection_lost(ret);
		return ust_trace_fail(ret, "sending to ustd failed: %s", ustcomm_strerror(-ret));
	}
	return 0;
}

static int send_metadata(struct ustcomm_strbuf *sb)
{
	if (sb->err)
		return ust_trace_fail(sb->err, "cannot describe the trace in CTF: %s",
			    ustcomm_strerror(-sb->err));
	return ust_trace_send_msg(USTCOMM_MSG_METADATA, sb->buf, (uint32_t)sb->len, NULL, 0);
}

/* The channel's stream block: before any event block or buffer of it. */
int ust_trace_send_stream_block(const struct ust_channel *chan)
{
	struct ustcomm_strbuf sb = USTCOMM_STRBUF_INIT;
	int ret;

	ret = ustcomm_metadata_stream(&sb, chan->stream_id, chan->name, &chan->ctx);
	if (ret >= 0)
		ret = send_metadata(&sb);
	ustcomm_strbuf_free(&sb);
	return ret;
}

/* Each buffer of the channel (memfd and eventfd): one per CPU, then its
 * thread buffers, numbered on after the CPUs. */
int ust_trace_send_buffers(const struct ust_channel *chan)
{
	uint32_t i;
	int ret = 0;

	for (i = 0; ret >= 0 && i < chan->nr_bufs; i++) {
		struct ustcomm_stream msg = {
			.stream_id = chan->stream_id,
			.cpu = i,
			.subbuf_size = chan->bufs[i].subbuf_size,
			.subbuf_count = chan->bufs[i].subbuf_count,
			.flags = (ust_t.cfg.overwrite ? UST_SHM_FLAG_OVERWRITE : 0) |
				 (chan->bufs[i].thread ? UST_SHM_FLAG_THREAD : 0),
			.ctx_size = chan->ctx_size,
			.tracefile_count = chan->tracefile_count,
			.tracefile_size = chan->tracefile_size,
		};
		int fds[2] = { chan->bufs[i].shm_fd, chan->bufs[i].wakeup_fd };

		memcpy(msg.channel, chan->name, strlen(chan->name));
		ret = ust_trace_send_msg(USTCOMM_MSG_STREAM, &msg, sizeof(msg), fds, 2);
	}
	return ret;
}

void ust_trace_field_layout(const struct ust_field_desc *d, struct ustcomm_field_layout *f)
{
	*f = (struct ustcomm_field_layout) {
		.kind = d->kind,
		.size = d->kind == UST_FIELD_STRING ? 0 : d->size,
		.len_size = d->kind == UST_FIELD_SEQUENCE ? d->len_size : 0,
		.length = d->kind == UST_FIELD_ARRAY ? d->length : 0,
	};
}

/* The field layout ustd walks packets with after a crash (protocol.h). */
static int send_layout(uint32_t stream_id, uint32_t event_id, const struct ust_event_state *ev)
{
	struct ustcomm_event_layout *el;
	struct ustcomm_field_layout *f;
	uint32_t i, len = sizeof(*el) + ev->nr_fields * sizeof(*f);
	int ret;

	el = ust_zalloc(len);
	if (!el)
		return ust_trace_fail(-ENOMEM, "out of memory enabling %s", ev->full_name);
	el->stream_id = stream_id;
	el->event_id = event_id;
	el->nr_fields = ev->nr_fields;
	f = (struct ustcomm_field_layout *)(el + 1);
	for (i = 0; i < ev->nr_fields; i++)
		ust_trace_field_layout(&ev->fields[i], &f[i]);
	ret = ust_trace_send_msg(USTCOMM_MSG_EVENT_LAYOUT, el, len, NULL, 0);
	ust_free(el);
	return ret;
}

/* The event's block in the metadata, then its layout. */
int ust_trace_send_event(const struct ust_event_state *ev, uint32_t stream_id, uint32_t id)
{
	struct ustcomm_strbuf sb = USTCOMM_STRBUF_INIT;
	int ret;

	ret = ustcomm_metadata_event(&sb, stream_id, id, ev->full_name, ev->loglevel, ev->fields,
				     ev->nr_fields);
	if (ret < 0) {
		ustcomm_err("event %s is left out: its fields cannot be described in CTF",
			    ev->full_name);
		ret = ust_trace_fail(ret, "event %s cannot be described in CTF", ev->full_name);
		goto end;
	}
	/* Metadata first: ustd must know the id before any event carries it. */
	ret = send_metadata(&sb);
	if (ret >= 0)
		ret = send_layout(stream_id, id, ev);
end:
	ustcomm_strbuf_free(&sb);
	return ret;
}

int ust_trace_ustd_connect(void)
{
	struct ucred cred;
	socklen_t credlen = sizeof(cred);
	int fd, ret;

	if (!ust_t.cfg.daemon_path[0])
		return ust_trace_fail(-ENOENT, "no ustd socket path is known: set UST_DAEMON_SOCKET or UST_RUNDIR, or use set-sock-path");
	/* A stuck ustd must not hang the application for long: neither the
	 * connect (its backlog full) nor a send (its socket full) waits more
	 * than SEND_TIMEOUT_S. */
	fd = ustcomm_connect_within(ust_t.cfg.daemon_path, SEND_TIMEOUT_S * 1000);
	if (fd < 0)
		return ust_trace_fail(fd, "cannot reach ustd at %s: %s; start ustd, or point the program at one with set-sock-path",
			    ust_t.cfg.daemon_path, ustcomm_strerror(-fd));
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &credlen) < 0) {
		ret = ust_trace_fail(-errno, "cannot check who runs ustd at %s", ust_t.cfg.daemon_path);
		goto end;
	}
	if (cred.uid != geteuid() && cred.uid != 0) {
		ret = ust_trace_fail(-EPERM, "ustd at %s runs as uid %u, not as this program's user",
			   ust_t.cfg.daemon_path, (unsigned)cred.uid);
		goto end;
	}
	return fd;
end:
	close(fd);
	return ret;
}

int ust_trace_send_hello(void)
{
	struct ustcomm_strbuf sb = USTCOMM_STRBUF_INIT;
	struct ustcomm_clock_desc clock;
	struct ustcomm_hello *hello;
	struct ustcomm_trace_info info = {
		.procname = ust_t.cfg.procname,
		.hostname = ust_t.cfg.hostname,
		.vpid = getpid(),
		.ncpus = ust_t.cfg.nr_cpus,
		.trace_name = ust_t.name,
		.clock = &clock,
	};
	int ret;

	ret = ustcomm_clock_describe(&clock);
	if (ret < 0)
		return ust_trace_fail(ret, "cannot describe the trace clock");
	/* Not on the stack: it holds a path, and this may run on a small
	 * signal stack. */
	hello = ust_zalloc(sizeof(*hello));
	if (!hello)
		return ust_trace_fail(-ENOMEM, "out of memory");
	hello->pid = (uint32_t)getpid();
	memcpy(hello->uuid, ust_t.uuid, sizeof(hello->uuid));
	memcpy(hello->procname, ust_t.cfg.procname, strlen(ust_t.cfg.procname));
	memcpy(hello->trace_name, ust_t.name, strlen(ust_t.name));
	memcpy(hello->output, ust_t.output, strlen(ust_t.output));
	hello->clock = ustcomm_clock_use_tsc ? USTCOMM_CLOCK_TSC : USTCOMM_CLOCK_MONOTONIC;
	ret = ust_trace_send_msg(USTCOMM_MSG_HELLO, hello, sizeof(*hello), NULL, 0);
	ust_free(hello);
	/* Buffers per user: the set's metadata is ustd's. */
	if (ret < 0 || ust_t.cfg.per_uid)
		return ret;
	memcpy(info.uuid, ust_t.uuid, sizeof(info.uuid));
	ret = ustcomm_metadata_trace(&sb, &info);
	if (ret >= 0)
		ret = send_metadata(&sb);
	ustcomm_strbuf_free(&sb);
	return ret;
}

int ust_trace_describe(void)
{
	struct ust_event_state *ev;
	unsigned i;
	int ret;

	/* Its rings and ids were the ustd's that made them: no other takes
	 * them over, nor an orphan file. */
	if (ust_t.cfg.per_uid && ust_t.nr_channels)
		return ust_trace_fail(-ENOTSUP, "trace '%s' writes into the buffers per user of the ustd it began with, which no other ustd takes over: it ends with that ustd",
				      ust_t.name);
	ret = ust_trace_send_hello();
	for (i = 0; ret >= 0 && i < ust_t.nr_channels; i++)
		ret = ust_trace_send_stream_block(ust_t.channels[i]);
	for (ev = ust_registry_first(); ret >= 0 && ev; ev = ev->next) {
		const struct ust_event_binding *b = ev->bound[ust_t.slot];

		if (b)
			ret = ust_trace_send_event(ev, b->chan->stream_id, b->id);
	}
	/* The buffers last: ustd may write their packets out at once, and
	 * every event in them must be described by then. */
	for (i = 0; ret >= 0 && i < ust_t.nr_channels; i++)
		ret = ust_trace_send_buffers(ust_t.channels[i]);
	return ret;
}

/*
 * ustd answers GOODBYE by writing every remaining packet and closing the
 * connection: end of file means the trace is complete on disk. Once ustd
 * stopped the trace (a write error) it has shut its side, and its end of
 * file is no answer: its close is, after it counted from the buffers what
 * they lost, so they must stay whole until then (the caller frees them).
 */
int ust_trace_wait_drained(int sock)
{
	struct pollfd pfd = { .fd = sock, .events = ust_trace_consumer_alive() ? POLLIN : 0 };
	char byte;
	int n;

	for (;;) {
		n = poll(&pfd, 1, DRAIN_WAIT_MS);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -ETIMEDOUT;
		if (!pfd.events && (pfd.revents & POLLHUP))
			return 0;
		n = (int)recv(sock, &byte, 1, MSG_DONTWAIT);
		/* End of file: ustd's close (a hang-up too), or its shutdown
		 * of a trace it stopped, which only the close answers. */
		if (n == 0 && (pfd.revents & POLLHUP))
			return 0;
		if (n == 0) {
			pfd.events = 0;
			continue;
		}
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			return -errno;
	}
}

/* Reads exactly len bytes from the ustd socket, waiting at most timeout_ms for each part. */
int ust_trace_recv_exact(int sock, char *buf, size_t len, int timeout_ms)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	size_t got = 0;
	ssize_t n;
	int r;

	while (got < len) {
		r = poll(&pfd, 1, timeout_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -ETIMEDOUT;
		n = recv(sock, buf + got, len - got, MSG_DONTWAIT);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		got += (size_t)n;
	}
	return 0;
}

/* Whether ustd is still at the other end and takes what is sent: it never
 * closes a live trace's connection, so end of file or a hang-up means it
 * died, or stopped the trace (ust_trace_stopped_by_ustd()). */
int ust_trace_connection_alive(void)
{
	struct pollfd pfd = { .fd = ust_t.sock, .events = POLLIN };
	char byte;

	if (ust_t.sock < 0)
		return 0;
	if (poll(&pfd, 1, 0) < 0)
		return 1;
	if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))
		return 0;
	if ((pfd.revents & POLLIN) && recv(ust_t.sock, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0)
		return 0;
	return 1;
}

/*
 * Whether ustd stopped the trace and lives: after a write error it shuts
 * its side of the connection (its app_stop_trace()), an end of file with
 * no hang-up here, and counts what the rings hold once the process ends,
 * so they are neither kept for another ustd nor emptied. A ustd that died
 * hung the connection up. Async-signal-safe: poll() only.
 */
int ust_trace_stopped_by_ustd(void)
{
	struct pollfd pfd = { .fd = ust_t.sock, .events = POLLRDHUP };

	if (ust_t.sock < 0 || poll(&pfd, 1, 0) < 0)
		return 0;
	return (pfd.revents & POLLRDHUP) && !(pfd.revents & (POLLHUP | POLLERR | POLLNVAL));
}
