/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The trace of this process (trace.h): its life cycle, its channels, its
 * connection to ustd, and the enable rules.
 *
 * Async-signal-safe throughout, because the control server may call in
 * from a signal handler: memory from ust_zalloc(), text from
 * ustcomm_format(), and otherwise only system calls (socket, sendmsg, poll,
 * memfd_create, mmap, fallocate, eventfd). Serialised by ust_lock(), whose
 * holder keeps the control signal blocked, so the handler never waits for
 * the thread it interrupted.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "libust/channel.h"
#include "libust/channel_conf.h"
#include "libust/rules.h"
#include "libust/sigsafe_alloc.h"
#include "libust/trace.h"
#include "libustcomm/clock.h"
#include "libustcomm/format.h"
#include "libustcomm/log.h"
#include "libustcomm/metadata.h"
#include "libustcomm/perf_event.h"
#include "libustcomm/protocol.h"
#include "libustcomm/rundir.h"
#include "libustcomm/shm_layout.h"

#define MAX_CHANNELS		64
#define SEND_TIMEOUT_S		2
/* How long destroy-trace and exit wait for ustd to write the last data. */
#define DRAIN_WAIT_MS		5000

static struct {
	enum ust_trace_state state;
	char name[USTCOMM_CTL_TRACE_NAME_MAX];
	int sock;			/* to ustd; -1 when not connected */
	uint8_t uuid[16];
	struct ust_channel *channels[MAX_CHANNELS];
	unsigned nr_channels;
	struct ust_trace_config cfg;
	char error[256];
} t = { .sock = -1 };

static const char *const state_names[] = {
	[UST_TRACE_NONE] = "none",
	[UST_TRACE_CREATED] = "created",
	[UST_TRACE_ALLOCATED] = "allocated",
	[UST_TRACE_STARTED] = "started",
	[UST_TRACE_STOPPED] = "stopped",
};

static int fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ustcomm_vformat(t.error, sizeof(t.error), fmt, ap);
	va_end(ap);
	return err;
}

const char *ust_trace_error(void)
{
	return t.error;
}

const char *ust_trace_name(void)
{
	return t.name;
}

const char *ust_trace_procname(void)
{
	return t.cfg.procname;
}

const char *ust_trace_state_name(void)
{
	return state_names[t.state];
}

void ust_trace_init(const struct ust_trace_config *config)
{
	t.cfg = *config;
	if (!t.cfg.def_size)
		t.cfg.def_size = UST_SUBBUF_SIZE_DEFAULT;
	if (!t.cfg.def_num)
		t.cfg.def_num = UST_SUBBUF_NUM_DEFAULT;
	if (!t.cfg.nr_cpus)
		t.cfg.nr_cpus = 1;
}

static int valid_trace_name(const char *name)
{
	size_t i, len = strlen(name);

	if (!len || len >= USTCOMM_CTL_TRACE_NAME_MAX || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return 0;
	for (i = 0; i < len; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'))
			return 0;
	}
	return 1;
}

/* The trace a command names must be the process's trace. */
static int check_trace(const char **name)
{
	if (!*name || !**name)
		*name = "auto";
	if (!valid_trace_name(*name))
		return fail(-EINVAL, "invalid trace name '%s': use 1 to %u letters, digits, '_', '-' or '.'",
			    *name, USTCOMM_CTL_TRACE_NAME_MAX - 1);
	if (t.state == UST_TRACE_NONE)
		return fail(-ENOENT, "no trace '%s' in this process: run create-trace first", *name);
	if (strcmp(*name, t.name))
		return fail(-ENOENT, "no trace '%s' in this process; its trace is '%s'", *name,
			    t.name);
	return 0;
}

static void connection_lost(int err)
{
	ustcomm_err("lost the connection to ustd (%s): events already recorded stay in the buffers, no new event is enabled",
		    ustcomm_strerror(-err));
	close(t.sock);
	t.sock = -1;
}

static int send_msg(uint16_t type, const void *payload, uint32_t len, const int *fds,
		    uint32_t nr_fds)
{
	int ret;

	if (t.sock < 0)
		return fail(-ENOTCONN, "trace '%s' lost its connection to ustd", t.name);
	ret = ustcomm_send_msg(t.sock, type, payload, len, fds, nr_fds);
	if (ret < 0) {
		connection_lost(ret);
		return fail(ret, "sending to ustd failed: %s", ustcomm_strerror(-ret));
	}
	return 0;
}

static int send_metadata(struct ustcomm_strbuf *sb)
{
	if (sb->err)
		return fail(sb->err, "cannot describe the trace in CTF: %s",
			    ustcomm_strerror(-sb->err));
	return send_msg(USTCOMM_MSG_METADATA, sb->buf, (uint32_t)sb->len, NULL, 0);
}

static void channel_geometry(const char *channel, uint32_t *size, uint32_t *num)
{
	ust_chan_conf_geometry(channel, t.cfg.def_size, t.cfg.def_num, size, num);
}

/* The channel's stream block: before any event block or buffer of it. */
static int send_stream_block(const struct ust_channel *chan)
{
	struct ustcomm_strbuf sb = USTCOMM_STRBUF_INIT;
	int ret;

	ret = ustcomm_metadata_stream(&sb, chan->stream_id, chan->name, &chan->ctx);
	if (ret >= 0)
		ret = send_metadata(&sb);
	ustcomm_strbuf_free(&sb);
	return ret;
}

/* Each CPU's buffer of the channel (memfd and eventfd). */
static int send_buffers(const struct ust_channel *chan)
{
	uint32_t i;
	int ret = 0;

	for (i = 0; ret >= 0 && i < chan->nr_cpus; i++) {
		struct ustcomm_stream msg = {
			.stream_id = chan->stream_id,
			.cpu = i,
			.subbuf_size = chan->bufs[i].subbuf_size,
			.subbuf_count = chan->bufs[i].subbuf_count,
			.flags = t.cfg.overwrite ? UST_SHM_FLAG_OVERWRITE : 0,
			.ctx_size = chan->ctx_size,
		};
		int fds[2] = { chan->bufs[i].shm_fd, chan->bufs[i].wakeup_fd };

		memcpy(msg.channel, chan->name, strlen(chan->name));
		ret = send_msg(USTCOMM_MSG_STREAM, &msg, sizeof(msg), fds, 2);
	}
	return ret;
}

static int channel_get(struct ust_channel **out, const char *name)
{
	struct ust_channel *chan;
	struct ustcomm_ctx_set ctx;
	uint32_t size, num, i;
	int ret;

	for (i = 0; i < t.nr_channels; i++) {
		if (!strcmp(t.channels[i]->name, name)) {
			*out = t.channels[i];
			return 0;
		}
	}
	if (t.nr_channels == MAX_CHANNELS)
		return fail(-ENOSPC, "channel %s not created: a trace has at most %d channels",
			    name, MAX_CHANNELS);
	channel_geometry(name, &size, &num);
	ust_chan_conf_contexts(name, &ctx);
	ret = ust_channel_create(&chan, name, t.nr_channels, t.cfg.nr_cpus, size, num,
				 t.cfg.overwrite, t.uuid, &ctx);
	if (ret < 0)
		return fail(ret, "cannot create the buffers of channel %s: %s", name,
			    ustcomm_strerror(-ret));
	ret = send_stream_block(chan);
	if (ret >= 0)
		ret = send_buffers(chan);
	if (ret < 0) {
		ust_channel_destroy(chan);
		return ret;
	}
	t.channels[t.nr_channels++] = chan;
	*out = chan;
	return 0;
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
		return fail(-ENOMEM, "out of memory enabling %s", ev->full_name);
	el->stream_id = stream_id;
	el->event_id = event_id;
	el->nr_fields = ev->nr_fields;
	f = (struct ustcomm_field_layout *)(el + 1);
	for (i = 0; i < ev->nr_fields; i++) {
		f[i].kind = ev->fields[i].kind;
		f[i].size = ev->fields[i].kind == UST_FIELD_STRING ? 0 : ev->fields[i].size;
		f[i].len_size = ev->fields[i].kind == UST_FIELD_SEQUENCE ?
			ev->fields[i].len_size : 0;
		f[i].length = ev->fields[i].kind == UST_FIELD_ARRAY ? ev->fields[i].length : 0;
	}
	ret = send_msg(USTCOMM_MSG_EVENT_LAYOUT, el, len, NULL, 0);
	ust_free(el);
	return ret;
}

/* The event's block in the metadata, then its layout. */
static int send_event(const struct ust_event_state *ev, uint32_t stream_id, uint32_t id)
{
	struct ustcomm_strbuf sb = USTCOMM_STRBUF_INIT;
	int ret;

	ret = ustcomm_metadata_event(&sb, stream_id, id, ev->full_name, ev->loglevel, ev->fields,
				     ev->nr_fields);
	if (ret < 0) {
		ustcomm_err("event %s is left out: its fields cannot be described in CTF",
			    ev->full_name);
		ret = fail(ret, "event %s cannot be described in CTF", ev->full_name);
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

/* Gives the event an id in its channel's stream and describes it to ustd. */
static int event_bind(struct ust_event_state *ev)
{
	struct ust_event_binding *b;
	struct ust_channel *chan = NULL;
	int ret;

	if (ev->binding)
		return 0;
	ret = channel_get(&chan, ev->channel);
	if (ret < 0)
		return ret;
	b = ust_zalloc(sizeof(*b));
	if (!b)
		return fail(-ENOMEM, "out of memory enabling %s", ev->full_name);
	b->chan = chan;
	b->id = chan->next_event_id;
	ret = send_event(ev, chan->stream_id, b->id);
	if (ret < 0)
		goto end;
	chan->next_event_id++;
	/* Release: pairs with the acquire load of the binding in ust_event_reserve(). */
	__atomic_store_n(&ev->binding, b, __ATOMIC_RELEASE);
	b = NULL;
end:
	ust_free(b);
	return ret;
}

/* Makes the event's sites write exactly when it is enabled and the trace runs. */
static int event_apply(struct ust_event_state *ev)
{
	int ret = 0;

	if (ev->enabled && t.state >= UST_TRACE_ALLOCATED && t.sock >= 0)
		ret = event_bind(ev);
	ust_registry_set_active(ev, ev->enabled && t.state == UST_TRACE_STARTED &&
				ev->binding != NULL);
	return ret;
}

static int apply_all(void)
{
	struct ust_event_state *ev;
	int ret = 0, r;

	for (ev = ust_registry_first(); ev; ev = ev->next) {
		r = event_apply(ev);
		if (r < 0 && !ret)
			ret = r;
	}
	return ret;
}

void ust_trace_event_added(struct ust_event_state *ev)
{
	ust_rules_apply(ev);
	event_apply(ev);
}

int ust_trace_add_rule(const char *name, const struct ust_rule_spec *spec)
{
	struct ust_event_state *ev;
	int ret, count = 0;

	if (name && *name && t.state != UST_TRACE_NONE && strcmp(name, t.name))
		return fail(-ENOENT, "no trace '%s' in this process; its trace is '%s'", name,
			    t.name);
	ret = ust_rules_add(spec, t.error, sizeof(t.error));
	if (ret < 0)
		return ret;
	/* A rule can change any event: its level narrows, its filter adds up. */
	for (ev = ust_registry_first(); ev; ev = ev->next) {
		if (ust_rules_spec_matches(spec, ev))
			count++;
		ust_rules_apply(ev);
		event_apply(ev);
	}
	return count;
}

int ust_trace_create(const char *name)
{
	if (!name || !*name)
		name = "auto";
	if (!valid_trace_name(name))
		return fail(-EINVAL, "invalid trace name '%s': use 1 to %u letters, digits, '_', '-' or '.'",
			    name, USTCOMM_CTL_TRACE_NAME_MAX - 1);
	if (t.state != UST_TRACE_NONE)
		return fail(-EEXIST, "this process has a trace already: '%s' (%s); destroy it first",
			    t.name, state_names[t.state]);
	memcpy(t.name, name, strlen(name) + 1);
	t.state = UST_TRACE_CREATED;
	return 0;
}

static int daemon_connect(void)
{
	struct timeval tv = { .tv_sec = SEND_TIMEOUT_S };
	struct ucred cred;
	socklen_t credlen = sizeof(cred);
	int fd, ret;

	if (!t.cfg.daemon_path[0])
		return fail(-ENOENT, "no ustd socket path is known: set UST_DAEMON_SOCKET or UST_RUNDIR, or use set-sock-path");
	fd = ustcomm_connect(t.cfg.daemon_path);
	if (fd < 0)
		return fail(fd, "cannot reach ustd at %s: %s; start ustd, or point the program at one with set-sock-path",
			    t.cfg.daemon_path, ustcomm_strerror(-fd));
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &credlen) < 0) {
		ret = fail(-errno, "cannot check who runs ustd at %s", t.cfg.daemon_path);
		goto end;
	}
	if (cred.uid != geteuid() && cred.uid != 0) {
		ret = fail(-EPERM, "ustd at %s runs as uid %u, not as this program's user",
			   t.cfg.daemon_path, (unsigned)cred.uid);
		goto end;
	}
	/* A stuck ustd must not hang the application for long. */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return fd;
end:
	close(fd);
	return ret;
}

static int send_hello(void)
{
	struct ustcomm_strbuf sb = USTCOMM_STRBUF_INIT;
	struct ustcomm_clock_desc clock;
	struct ustcomm_hello hello = { .pid = (uint32_t)getpid() };
	struct ustcomm_trace_info info = {
		.procname = t.cfg.procname,
		.hostname = t.cfg.hostname,
		.vpid = getpid(),
		.trace_name = t.name,
		.clock = &clock,
	};
	int ret;

	ret = ustcomm_clock_describe(&clock);
	if (ret < 0)
		return fail(ret, "cannot describe the trace clock");
	memcpy(hello.uuid, t.uuid, sizeof(hello.uuid));
	memcpy(hello.procname, t.cfg.procname, strlen(t.cfg.procname));
	memcpy(hello.trace_name, t.name, strlen(t.name));
	hello.clock = ustcomm_clock_use_tsc ? USTCOMM_CLOCK_TSC : USTCOMM_CLOCK_MONOTONIC;
	ret = send_msg(USTCOMM_MSG_HELLO, &hello, sizeof(hello), NULL, 0);
	if (ret < 0)
		return ret;
	memcpy(info.uuid, t.uuid, sizeof(info.uuid));
	ret = ustcomm_metadata_trace(&sb, &info);
	if (ret >= 0)
		ret = send_metadata(&sb);
	ustcomm_strbuf_free(&sb);
	return ret;
}

static int trace_alloc(void)
{
	int ret;

	ret = daemon_connect();
	if (ret < 0)
		return ret;
	t.sock = ret;
	ret = ustcomm_uuid_generate(t.uuid);
	if (ret < 0) {
		ret = fail(ret, "cannot generate the trace's uuid");
		goto error;
	}
	ret = send_hello();
	if (ret < 0)
		goto error;
	t.state = UST_TRACE_ALLOCATED;
	ustcomm_dbg("trace '%s' reports to ustd at %s", t.name, t.cfg.daemon_path);
	return apply_all();
error:
	if (t.sock >= 0)
		close(t.sock);
	t.sock = -1;
	return ret;
}

int ust_trace_alloc(const char *name)
{
	int ret = check_trace(&name);

	if (ret < 0)
		return ret;
	if (t.state != UST_TRACE_CREATED)
		return fail(-EALREADY, "trace '%s' is %s already", t.name, state_names[t.state]);
	return trace_alloc();
}

int ust_trace_start(const char *name)
{
	int ret = check_trace(&name);

	if (ret < 0)
		return ret;
	if (t.state == UST_TRACE_STARTED)
		return fail(-EALREADY, "trace '%s' is started already", t.name);
	if (t.state == UST_TRACE_CREATED) {
		ret = trace_alloc();
		if (ret < 0 && t.state == UST_TRACE_CREATED)
			return ret;
	}
	t.state = UST_TRACE_STARTED;
	return apply_all();
}

static void flush_all(void)
{
	unsigned i;

	for (i = 0; i < t.nr_channels; i++)
		ust_channel_flush(t.channels[i]);
}

static void stop_writing(void)
{
	if (t.state == UST_TRACE_STARTED)
		t.state = UST_TRACE_STOPPED;
	apply_all();
	flush_all();
}

int ust_trace_stop(const char *name)
{
	int ret = check_trace(&name);

	if (ret < 0)
		return ret;
	if (t.state != UST_TRACE_STARTED)
		return fail(-EINVAL, "trace '%s' is %s, not started", t.name, state_names[t.state]);
	stop_writing();
	return 0;
}

/* check_trace(), and the trace must have its buffers. */
static int check_allocated(const char **name)
{
	int ret = check_trace(name);

	if (ret < 0)
		return ret;
	if (t.state == UST_TRACE_CREATED)
		return fail(-EINVAL, "trace '%s' has no buffers yet: run alloc-trace or start-trace",
			    t.name);
	return 0;
}

int ust_trace_force_switch(const char *name)
{
	int ret = check_allocated(&name);

	if (ret < 0)
		return ret;
	flush_all();
	return 0;
}

/*
 * ustd answers GOODBYE by writing every remaining packet and closing the
 * connection: end of file means the trace is complete on disk.
 */
static int wait_drained(int sock)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	char byte;
	int n;

	for (;;) {
		n = poll(&pfd, 1, DRAIN_WAIT_MS);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -ETIMEDOUT;
		n = (int)recv(sock, &byte, 1, MSG_DONTWAIT);
		if (n == 0)
			return 0;
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			return -errno;
	}
}

/* Reads exactly len bytes from the ustd socket, waiting at most timeout_ms for each part. */
static int recv_exact(int sock, char *buf, size_t len, int timeout_ms)
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

int ust_trace_snapshot(const char *name, const char *dir, char *path, size_t path_size)
{
	struct ustcomm_snapshot *req = NULL;
	struct {
		struct ustcomm_msg_header hdr;
		struct ustcomm_snapshot_done done;
	} *reply = NULL;
	const struct ustcomm_snapshot_done *done;
	struct ustcomm_msg msg = { .type = USTCOMM_MSG_SNAPSHOT_DONE };
	int ret = check_allocated(&name);

	if (ret < 0)
		return ret;
	if (!t.cfg.overwrite)
		return fail(-EINVAL, "trace '%s' is written to disk as it goes; snapshots are for flight-recorder traces (UST_OVERWRITE=1, usttrace --overwrite)",
			    t.name);
	if (strlen(dir) >= sizeof(req->dir) || (dir[0] && dir[0] != '/'))
		return fail(-EINVAL, "invalid snapshot directory '%s': give an absolute path", dir);
	if (t.sock < 0)
		return fail(-ENOTCONN, "trace '%s' lost its connection to ustd", t.name);
	req = ust_zalloc(sizeof(*req));
	reply = ust_zalloc(sizeof(*reply));
	if (!req || !reply) {
		ret = fail(-ENOMEM, "out of memory");
		goto end;
	}
	memcpy(req->dir, dir, strlen(dir));
	/* Open packets closed: ustd copies complete sub-buffers only. */
	flush_all();
	ret = send_msg(USTCOMM_MSG_SNAPSHOT, req, sizeof(*req), NULL, 0);
	if (ret < 0)
		goto end;
	ret = recv_exact(t.sock, (char *)reply, sizeof(*reply), USTCOMM_CTL_SNAPSHOT_WAIT_MS);
	if (ret < 0) {
		connection_lost(ret);
		ret = fail(ret, "ustd did not answer the snapshot request: %s",
			   ustcomm_strerror(-ret));
		goto end;
	}
	msg.payload_len = reply->hdr.payload_len;
	msg.payload = (char *)&reply->done;
	if (reply->hdr.magic != USTCOMM_MAGIC || reply->hdr.version != USTCOMM_VERSION ||
	    reply->hdr.type != USTCOMM_MSG_SNAPSHOT_DONE || reply->hdr.nr_fds ||
	    ustcomm_check_snapshot_done(&msg, &done) < 0) {
		connection_lost(-EPROTO);
		ret = fail(-EPROTO, "ustd answered the snapshot request with a malformed message");
		goto end;
	}
	if (done->status < 0) {
		ret = fail(done->status, "ustd could not write the snapshot: %s", done->text);
		goto end;
	}
	ustcomm_format(path, path_size, "%s", done->text);
	ret = 0;
end:
	ust_free(req);
	ust_free(reply);
	return ret;
}

/* Every site off, every event without a binding. The bindings stay
 * allocated: a preempted writer may still read one. */
static void unbind_all(void)
{
	struct ust_event_state *ev;

	for (ev = ust_registry_first(); ev; ev = ev->next) {
		ust_registry_set_active(ev, 0);
		__atomic_store_n(&ev->binding, NULL, __ATOMIC_RELEASE);
	}
}

/*
 * Ends the trace: sites stop, buffers are flushed, ustd writes the rest.
 * Channels are retired, not unmapped: a writer preempted between loading
 * its binding and committing may still touch them (see channel.h).
 */
static int trace_teardown(void)
{
	int drained = -ENOTCONN;
	unsigned i;

	if (t.state == UST_TRACE_NONE)
		return 0;
	stop_writing();
	if (t.sock >= 0) {
		if (ustcomm_send_msg(t.sock, USTCOMM_MSG_GOODBYE, NULL, 0, NULL, 0) == 0)
			drained = wait_drained(t.sock);
		close(t.sock);
		t.sock = -1;
	}
	unbind_all();
	for (i = 0; i < t.nr_channels; i++)
		ust_channel_retire(t.channels[i], drained == 0);
	t.nr_channels = 0;
	t.state = UST_TRACE_NONE;
	t.name[0] = '\0';
	return drained;
}

int ust_trace_destroy(const char *name)
{
	char was[USTCOMM_CTL_TRACE_NAME_MAX];
	int connected, ret = check_trace(&name);

	if (ret < 0)
		return ret;
	memcpy(was, t.name, sizeof(was));
	connected = t.sock >= 0;
	ret = trace_teardown();
	if (connected && ret < 0)
		return fail(ret, "trace '%s' destroyed, but ustd did not confirm it wrote everything: %s",
			    was, ustcomm_strerror(-ret));
	return 0;
}

void ust_trace_exit(void)
{
	trace_teardown();
}

/* Drops the parent's trace: its connection and buffers are the parent's. */
static void forget(void)
{
	unsigned i;

	if (t.sock >= 0)
		close(t.sock);
	t.sock = -1;
	unbind_all();
	/* The only thread of the child: nobody can be writing to them. */
	for (i = 0; i < t.nr_channels; i++)
		ust_channel_destroy(t.channels[i]);
	t.nr_channels = 0;
	t.state = UST_TRACE_NONE;
	t.name[0] = '\0';
}

int ust_trace_after_fork_child(void)
{
	char name[USTCOMM_CTL_TRACE_NAME_MAX];
	int was_started = t.state == UST_TRACE_STARTED;
	int ret;

	memcpy(name, t.name, sizeof(name));
	forget();
	if (!was_started)
		return 0;
	ret = ust_trace_create(name);
	if (ret >= 0)
		ret = ust_trace_start(name);
	return ret;
}

/* Whether ustd is still at the other end: it never closes a live trace's
 * connection, so end of file or a hang-up means it died. */
static int connection_alive(void)
{
	struct pollfd pfd = { .fd = t.sock, .events = POLLIN };
	char byte;

	if (t.sock < 0)
		return 0;
	if (poll(&pfd, 1, 0) < 0)
		return 1;
	if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))
		return 0;
	if ((pfd.revents & POLLIN) && recv(t.sock, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0)
		return 0;
	return 1;
}

/*
 * Describes the trace to the ustd at path exactly as it was described
 * before (same uuid, stream and event ids) and hands it every existing
 * buffer. ustd continues each from its consumed position, so what was
 * written while no ustd ran is kept, except what the full buffers had to
 * discard (counted in events_discarded, reported in the packets).
 */
int ust_trace_reconnect(const char *path)
{
	char old_path[sizeof(t.cfg.daemon_path)];
	struct ust_event_state *ev;
	unsigned i;
	int fd, ret;

	if (strlen(path) >= sizeof(t.cfg.daemon_path) || !path[0])
		return fail(-EINVAL, "invalid ustd socket path: it must have 1 to %zu characters",
			    sizeof(t.cfg.daemon_path) - 1);
	if (t.state < UST_TRACE_ALLOCATED)
		return 0;
	if (connection_alive()) {
		if (!strcmp(path, t.cfg.daemon_path))
			return fail(-EALREADY, "trace '%s' is connected to ustd at %s already",
				    t.name, path);
		/* Another ustd, alive, owns the trace: never taken from it. */
		return fail(-EBUSY, "trace '%s' is recorded by the ustd at %s, which is alive",
			    t.name, t.cfg.daemon_path);
	}
	memcpy(old_path, t.cfg.daemon_path, sizeof(old_path));
	memcpy(t.cfg.daemon_path, path, strlen(path) + 1);
	fd = daemon_connect();
	if (fd < 0) {
		memcpy(t.cfg.daemon_path, old_path, sizeof(old_path));
		return fd;
	}
	if (t.sock >= 0)
		close(t.sock);
	t.sock = fd;
	ret = send_hello();
	for (i = 0; ret >= 0 && i < t.nr_channels; i++)
		ret = send_stream_block(t.channels[i]);
	for (ev = ust_registry_first(); ret >= 0 && ev; ev = ev->next) {
		const struct ust_event_binding *b = ev->binding;

		if (b)
			ret = send_event(ev, b->chan->stream_id, b->id);
	}
	/* The buffers last: ustd may write their packets out at once, and
	 * every event in them must be described by then. */
	for (i = 0; ret >= 0 && i < t.nr_channels; i++)
		ret = send_buffers(t.channels[i]);
	if (ret < 0)
		return ret;
	ustcomm_dbg("trace '%s' reports to ustd at %s again", t.name, path);
	/* Events enabled while no ustd was there are bound now. */
	return apply_all();
}

static int check_settings_trace(const char *name)
{
	if (name && *name && t.state != UST_TRACE_NONE && strcmp(name, t.name))
		return fail(-ENOENT, "no trace '%s' in this process; its trace is '%s'", name,
			    t.name);
	return 0;
}

/* A channel's name, or "*" for every channel. */
static int check_channel_name(const char *channel)
{
	if (!strcmp(channel, UST_CHAN_CONF_ALL))
		return 0;
	if (strlen(channel) >= UST_SHM_CHANNEL_NAME_MAX ||
	    !ustcomm_metadata_valid_identifier(channel))
		return fail(-EINVAL, "invalid channel name '%s': an identifier of at most %d characters, or * for every channel",
			    channel, UST_SHM_CHANNEL_NAME_MAX - 1);
	return 0;
}

/* Settings apply to buffers yet to be created. */
static int check_not_allocated(const char *what)
{
	if (t.state >= UST_TRACE_ALLOCATED)
		return fail(-EBUSY, "trace '%s' is %s: its buffers are allocated, so %s are fixed until destroy-trace",
			    t.name, state_names[t.state], what);
	return 0;
}

int ust_trace_set_subbuf(const char *name, const char *channel, int is_num, uint32_t value)
{
	uint32_t min = is_num ? UST_SUBBUF_NUM_MIN : UST_SUBBUF_SIZE_MIN;
	uint32_t max = is_num ? UST_SUBBUF_NUM_MAX : UST_SUBBUF_SIZE_MAX;
	int ret = check_settings_trace(name);

	if (ret < 0)
		return ret;
	ret = check_channel_name(channel);
	if (ret < 0)
		return ret;
	if (value < min || value > max || (value & (value - 1)))
		return fail(-EINVAL, "%u is not a valid sub-buffer %s: a power of two between %u and %u",
			    value, is_num ? "count" : "size", min, max);
	ret = check_not_allocated("sub-buffer settings");
	if (ret < 0)
		return ret;
	if (ust_chan_conf_set_subbuf(channel, is_num, value) < 0)
		return fail(-ENOSPC, "settings for at most %d channels", MAX_CHANNELS);
	return 0;
}

int ust_trace_add_context(const char *name, const char *channel, const char *context)
{
	char why[200];
	int id, ret = check_settings_trace(name);

	if (ret < 0)
		return ret;
	ret = check_channel_name(channel);
	if (ret < 0)
		return ret;
	id = ustcomm_ctx_parse(context);
	if (id < 0)
		return fail(-EINVAL, "unknown context '%s': expected %s", context,
			    USTCOMM_CTX_CHOICES);
	ret = check_not_allocated("contexts");
	if (ret < 0)
		return ret;
	if (id >= USTCOMM_CTX_PERF_FIRST) {
		ret = ustcomm_perf_check(id, why, sizeof(why));
		if (ret < 0)
			return fail(ret, "%s", why);
	}
	ret = ust_chan_conf_add_context(channel, id);
	if (ret == -EEXIST)
		return fail(ret, "channel %s records context %s already", channel,
			    ustcomm_ctx_name(id));
	if (ret < 0)
		return fail(ret, "settings for at most %d channels", MAX_CHANNELS);
	return 0;
}

int ust_trace_get_subbuf(const char *name, const char *channel, int is_num, uint32_t *value)
{
	uint32_t size, num;
	int ret = check_settings_trace(name);

	if (ret < 0)
		return ret;
	channel_geometry(channel, &size, &num);
	*value = is_num ? num : size;
	return 0;
}

int ust_trace_set_daemon_path(const char *path)
{
	size_t len = strlen(path);

	if (!len || len >= sizeof(t.cfg.daemon_path))
		return fail(-EINVAL, "invalid ustd socket path: it must have 1 to %zu characters",
			    sizeof(t.cfg.daemon_path) - 1);
	memcpy(t.cfg.daemon_path, path, len + 1);
	return 0;
}

const char *ust_trace_daemon_path(void)
{
	return t.cfg.daemon_path;
}

int ust_trace_describe_session(const char *name, struct ustcomm_strbuf *sb, uint32_t *nr)
{
	int ret = check_settings_trace(name);

	if (ret < 0)
		return ret;
	*nr = 0;
	ret = ust_rules_describe(sb, nr);
	if (ret < 0)
		return ret;
	ust_chan_conf_describe(sb, t.cfg.def_size, t.cfg.def_num, nr);
	return sb->err;
}
