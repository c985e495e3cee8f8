/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Start-up tracing: when the environment asks for it (UST_TRACE), libust
 * connects to ustd at load time, describes the trace, and enables the events
 * that match UST_AUTOPROBE as their objects register. Channels and their
 * buffers are created on the first enabled event that needs them and handed
 * to ustd at once. At exit every buffer is flushed and ustd told so.
 *
 * Everything here runs under ust_lock(), on slow paths only (load, dlopen,
 * exit); the write path never takes it.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "libust/channel.h"
#include "libust/session.h"
#include "libustcomm/bufsize.h"
#include "libustcomm/clock.h"
#include "libustcomm/log.h"
#include "libustcomm/metadata.h"
#include "libustcomm/protocol.h"
#include "libustcomm/rundir.h"

#define UST_MAX_CHANNELS	64
#define UST_SEND_TIMEOUT_S	2

static struct {
	int sock;			/* to ustd; -1 when not tracing */
	uint8_t uuid[16];
	uint32_t subbuf_size;
	uint32_t subbuf_count;
	char **patterns;
	unsigned nr_patterns;
	struct ust_channel *channels[UST_MAX_CHANNELS];
	unsigned nr_channels;
} session = { .sock = -1 };

static void session_lost(int err)
{
	ustcomm_err("lost the connection to ustd (%s): events already recorded stay in the "
		    "buffers, no new event is enabled", strerror(-err));
	close(session.sock);
	session.sock = -1;
}

static int session_send(uint16_t type, const void *payload, uint32_t len,
			const int *fds, uint32_t nr_fds)
{
	int ret;

	if (session.sock < 0)
		return -ENOTCONN;
	ret = ustcomm_send_msg(session.sock, type, payload, len, fds, nr_fds);
	if (ret < 0)
		session_lost(ret);
	return ret;
}

static int send_metadata(struct ustcomm_strbuf *sb)
{
	if (sb->err)
		return sb->err;
	return session_send(USTCOMM_MSG_METADATA, sb->buf, (uint32_t)sb->len, NULL, 0);
}

static int channel_get(struct ust_channel **out, const char *name)
{
	struct ustcomm_strbuf sb = USTCOMM_STRBUF_INIT;
	struct ust_channel *chan;
	unsigned i;
	int ret;

	for (i = 0; i < session.nr_channels; i++) {
		if (!strcmp(session.channels[i]->name, name)) {
			*out = session.channels[i];
			return 0;
		}
	}
	if (session.nr_channels == UST_MAX_CHANNELS) {
		ustcomm_err("channel %s not created: a trace has at most %d channels",
			    name, UST_MAX_CHANNELS);
		return -ENOSPC;
	}
	ret = ust_channel_create(&chan, name, session.nr_channels, session.subbuf_size,
				 session.subbuf_count, session.uuid);
	if (ret < 0) {
		ustcomm_err("cannot create the buffers of channel %s: %s", name, strerror(-ret));
		return ret;
	}
	/* The stream block must be in the metadata before any event of it. */
	ret = ustcomm_metadata_stream(&sb, chan->stream_id, name);
	if (ret >= 0)
		ret = send_metadata(&sb);
	for (i = 0; ret >= 0 && i < chan->nr_cpus; i++) {
		struct ustcomm_stream msg = {
			.stream_id = chan->stream_id,
			.cpu = i,
			.subbuf_size = session.subbuf_size,
			.subbuf_count = session.subbuf_count,
		};
		int fds[2] = { chan->bufs[i].shm_fd, chan->bufs[i].wakeup_fd };

		strncpy(msg.channel, name, sizeof(msg.channel) - 1);
		ret = session_send(USTCOMM_MSG_STREAM, &msg, sizeof(msg), fds, 2);
	}
	ustcomm_strbuf_free(&sb);
	if (ret < 0) {
		ust_channel_destroy(chan);
		return ret;
	}
	session.channels[session.nr_channels++] = chan;
	*out = chan;
	return 0;
}

static void event_enable(struct ust_event_state *ev)
{
	struct ustcomm_strbuf sb = USTCOMM_STRBUF_INIT;
	struct ust_event_binding *b = NULL;
	struct ust_channel *chan;
	int ret;

	if (ev->binding)
		goto enable;
	ret = channel_get(&chan, ev->channel);
	if (ret < 0)
		return;
	b = malloc(sizeof(*b));
	if (!b)
		goto end;
	b->chan = chan;
	b->id = chan->next_event_id;
	ret = ustcomm_metadata_event(&sb, chan->stream_id, b->id, ev->full_name,
				     ev->fields, ev->nr_fields);
	if (ret < 0) {
		ustcomm_err("event %s is left out: its fields cannot be described in CTF",
			    ev->full_name);
		goto end;
	}
	/* Metadata first: ustd must know the id before any event carries it. */
	if (send_metadata(&sb) < 0)
		goto end;
	chan->next_event_id++;
	/* Release: pairs with the acquire load of the binding in ust_event_reserve(). */
	__atomic_store_n(&ev->binding, b, __ATOMIC_RELEASE);
	b = NULL;
enable:
	ust_registry_set_enabled(ev, 1);
end:
	free(b);
	ustcomm_strbuf_free(&sb);
}

void ust_session_event_added(struct ust_event_state *ev)
{
	unsigned i;

	if (session.sock < 0)
		return;
	for (i = 0; i < session.nr_patterns; i++) {
		if (ust_pattern_match(session.patterns[i], ev->full_name)) {
			event_enable(ev);
			return;
		}
	}
}

/* A buffer geometry variable: a power of two, k and M suffixes allowed. */
static uint32_t env_size(const char *var, uint32_t def, uint32_t min, uint32_t max)
{
	const char *s = getenv(var);
	uint32_t v;

	if (!s || !*s)
		return def;
	if (ustcomm_parse_pow2(s, min, max, &v) < 0) {
		ustcomm_err("%s=%s is not a power of two between %u and %u; using %u",
			    var, s, min, max, def);
		return def;
	}
	return v;
}

static int parse_patterns(const char *spec)
{
	char *copy, *tok, *save = NULL;

	if (!spec || !*spec || !strcmp(spec, "1"))
		spec = "*";
	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char **p = realloc(session.patterns,
				   (session.nr_patterns + 1) * sizeof(*p));

		if (!p || !(p[session.nr_patterns] = strdup(tok))) {
			if (p)
				session.patterns = p;
			free(copy);
			return -ENOMEM;
		}
		session.patterns = p;
		session.nr_patterns++;
	}
	free(copy);
	return 0;
}

static int daemon_connect(char *path, size_t len)
{
	struct timeval tv = { .tv_sec = UST_SEND_TIMEOUT_S };
	struct ucred cred;
	socklen_t credlen = sizeof(cred);
	int fd, ret;

	ret = ustcomm_daemon_socket_path(path, len);
	if (ret < 0)
		return ret;
	fd = ustcomm_connect(path);
	if (fd < 0)
		return fd;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &credlen) < 0) {
		ret = -errno;
		goto end;
	}
	if (cred.uid != geteuid() && cred.uid != 0) {
		ret = -EPERM;
		goto end;
	}
	/* A stuck ustd must not hang the application for long. */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return fd;
end:
	close(fd);
	return ret;
}

static int send_hello(const char *procname)
{
	struct ustcomm_strbuf sb = USTCOMM_STRBUF_INIT;
	struct ustcomm_clock_desc clock;
	struct ustcomm_hello hello = { .pid = (uint32_t)getpid() };
	struct ustcomm_trace_info info = {
		.procname = procname,
		.vpid = getpid(),
		.trace_name = "auto",
		.clock = &clock,
	};
	char host[HOST_NAME_MAX + 1] = "";
	int ret;

	memcpy(hello.uuid, session.uuid, sizeof(hello.uuid));
	strncpy(hello.procname, procname, sizeof(hello.procname) - 1);
	strcpy(hello.trace_name, "auto");
	ret = session_send(USTCOMM_MSG_HELLO, &hello, sizeof(hello), NULL, 0);
	if (ret < 0)
		return ret;
	gethostname(host, sizeof(host) - 1);
	info.hostname = host;
	memcpy(info.uuid, session.uuid, sizeof(info.uuid));
	ret = ustcomm_clock_describe(&clock);
	if (ret >= 0)
		ret = ustcomm_metadata_trace(&sb, &info);
	if (ret >= 0)
		ret = send_metadata(&sb);
	ustcomm_strbuf_free(&sb);
	return ret;
}

/* ustd names the trace directory after it: keep it printable, no '/'. */
static void sanitize_procname(char *name)
{
	char *p;

	for (p = name; *p; p++) {
		if (*p < 0x21 || *p > 0x7e || *p == '/')
			*p = '_';
	}
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		strcpy(name, "unknown");
}

static void session_start(void)
{
	char path[PATH_MAX], procname[17] = "";
	const char *overwrite;
	struct ust_event_state *ev;
	int ret;

	session.subbuf_size = env_size("UST_SUBBUF_SIZE", UST_SUBBUF_SIZE_DEFAULT,
				       UST_SUBBUF_SIZE_MIN, UST_SUBBUF_SIZE_MAX);
	session.subbuf_count = env_size("UST_SUBBUF_NUM", UST_SUBBUF_NUM_DEFAULT,
					UST_SUBBUF_NUM_MIN, UST_SUBBUF_NUM_MAX);
	overwrite = getenv("UST_OVERWRITE");
	if (overwrite && *overwrite && strcmp(overwrite, "0"))
		ustcomm_err("UST_OVERWRITE: flight-recorder mode is not available yet; "
			    "tracing in discard mode");
	if (parse_patterns(getenv("UST_AUTOPROBE")) < 0)
		return;
	ret = daemon_connect(path, sizeof(path));
	if (ret < 0) {
		ustcomm_dbg("no ustd to trace to at %s (%s): running untraced", path,
			    strerror(-ret));
		return;
	}
	session.sock = ret;
	ret = ustcomm_uuid_generate(session.uuid);
	prctl(PR_GET_NAME, procname);
	sanitize_procname(procname);
	if (ret >= 0)
		ret = send_hello(procname);
	if (ret < 0) {
		if (session.sock >= 0)
			session_lost(ret);
		return;
	}
	ustcomm_dbg("tracing to ustd at %s", path);
	for (ev = ust_registry_first(); ev; ev = ev->next)
		ust_session_event_added(ev);
}

static void session_end(void)
{
	unsigned i;

	for (i = 0; i < session.nr_channels; i++)
		ust_channel_flush(session.channels[i]);
	if (session.sock >= 0) {
		session_send(USTCOMM_MSG_GOODBYE, NULL, 0, NULL, 0);
		close(session.sock);
		session.sock = -1;
	}
}

static void atfork_prepare(void)
{
	ust_lock();
}

static void atfork_parent(void)
{
	ust_unlock();
}

/*
 * The child shares the parent's buffers through MAP_SHARED and its socket:
 * it must drop both before it can write anything, or it would corrupt the
 * parent's trace.
 */
static void atfork_child(void)
{
	char prefix[32];
	unsigned i;

	snprintf(prefix, sizeof(prefix), "ust[%d]", (int)getpid());
	ustcomm_log_set_prefix(prefix);
	ust_registry_unbind_all();
	if (session.sock >= 0)
		close(session.sock);
	session.sock = -1;
	for (i = 0; i < session.nr_channels; i++)
		ust_channel_destroy(session.channels[i]);
	session.nr_channels = 0;
	ust_unlock();
}

static void __attribute__((constructor)) ust_init(void)
{
	char prefix[32];
	const char *trace = getenv("UST_TRACE");

	snprintf(prefix, sizeof(prefix), "ust[%d]", (int)getpid());
	ustcomm_log_set_prefix(prefix);
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	if (!trace || !*trace || !strcmp(trace, "0"))
		return;
	ust_lock();
	session_start();
	ust_unlock();
}

static void __attribute__((destructor)) ust_fini(void)
{
	ust_lock();
	session_end();
	ust_unlock();
}
