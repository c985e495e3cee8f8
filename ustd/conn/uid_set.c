/* SPDX-License-Identifier: GPL-2.0-only */
/* Buffers per user (uid_set.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include "libustcomm/clock.h"
#include "libustcomm/ctf_layout.h"
#include "libustcomm/event_context.h"
#include "libustcomm/log.h"
#include "libustcomm/mem_avail.h"
#include "libustcomm/metadata.h"
#include "libustcomm/rundir.h"
#include "libustcomm/shm_layout.h"
#include "ustd/conn/app.h"
#include "ustd/conn/app_rotate.h"
#include "ustd/conn/uid_set.h"

/*
 * How long a live writer may take to finish the event it was in when
 * another process of the set died: a writer preempted inside an event
 * runs again within a few scheduler periods. One stopped longer (SIGSTOP,
 * a debugger) while a process of its uid dies may have its event cut: the
 * manual (4.6) says so.
 */
#define UID_STALL_GRACE_MS	500
/* Event ids past the compact header's are still ids: the layouts' bound. */
#define UID_EVENT_ID_MAX	65535u

struct uid_channel {
	char name[UST_SHM_CHANNEL_NAME_MAX];
	uint32_t stream_id;
	uint32_t subbuf_size, subbuf_count, nr_cpus;
	struct ustcomm_ctx_set ctx;
	uint32_t next_id;
	int *fds;			/* per CPU: memfd, eventfd */
};

struct uid_event {
	uint32_t stream_id, id;
	size_t key_len;
	char *key;			/* the request's payload after its stream id */
};

struct uid_timer {
	struct ustd_watch watch;	/* USTD_WATCH_UID_TIMER */
	struct ustd_uid_set *set;
	int fd;
	bool armed;
};

struct ustd_uid_set {
	const struct ustd_ctx *ctx;
	struct ustd_app *sink;
	uid_t uid;
	uint8_t uuid[16];
	uint32_t clock;
	bool overwrite;			/* a flight recorder's */
	struct uid_channel *chans;
	size_t nr_chans;
	struct uid_event *events;
	size_t nr_events;
	struct uid_timer timer;
	uint64_t rescued;		/* sub-buffers rescued after deaths */
};

/* Hands the sink a message as if its program had sent it. */
static int sink_take(struct ustd_uid_set *set, uint16_t type, const void *payload, uint32_t len,
		     int *fds, uint32_t nr_fds)
{
	struct ustcomm_msg msg = { .type = type, .payload_len = len, .nr_fds = nr_fds };
	uint32_t i;
	int ret;

	msg.payload = malloc(len + 1);
	if (!msg.payload) {
		for (i = 0; i < nr_fds; i++)
			close(fds[i]);
		return -ENOMEM;
	}
	memcpy(msg.payload, payload, len);
	msg.payload[len] = '\0';
	for (i = 0; i < nr_fds; i++)
		msg.fds[i] = fds[i];
	ret = set->sink ? ustd_app_take(set->sink, &msg, UINT64_MAX) : -EPIPE;
	ustcomm_msg_release(&msg);
	return ret;
}

static int sink_metadata(struct ustd_uid_set *set, struct ustcomm_strbuf *sb)
{
	int ret = sb->err ? sb->err :
		sink_take(set, USTCOMM_MSG_METADATA, sb->buf, (uint32_t)sb->len, NULL, 0);

	ustcomm_strbuf_free(sb);
	return ret;
}

static int sink_hello(struct ustd_uid_set *set, const char *trace_name)
{
	struct ustcomm_strbuf sb = USTCOMM_STRBUF_INIT;
	struct ustcomm_clock_desc clock;
	struct ustcomm_hello hello;
	char host[65] = "", procname[32];
	struct ustcomm_trace_info info = {
		.hostname = host,
		.procname = procname,
		.trace_name = trace_name,
		.clock = &clock,
	};
	int ret;

	ret = ustcomm_clock_describe(&clock);
	if (ret < 0)
		return ret;
	if ((set->clock == USTCOMM_CLOCK_TSC) != !!ustcomm_clock_use_tsc) {
		ustcomm_err("buffers per user of uid %u: the program reads the %s, ustd the %s; start ustd with the program's clock settings",
			    (unsigned)set->uid,
			    set->clock == USTCOMM_CLOCK_TSC ? "TSC" : "monotonic clock",
			    ustcomm_clock_use_tsc ? "TSC" : "monotonic clock");
		return -EINVAL;
	}
	memset(&hello, 0, sizeof(hello));
	hello.pid = (uint32_t)set->uid;
	hello.clock = set->clock;
	memcpy(hello.uuid, set->uuid, sizeof(hello.uuid));
	/* Its directory is uid-UID: the sink's pid is the uid. */
	snprintf(hello.procname, sizeof(hello.procname), "uid");
	snprintf(hello.trace_name, sizeof(hello.trace_name), "%s", trace_name);
	ret = sink_take(set, USTCOMM_MSG_HELLO, &hello, sizeof(hello), NULL, 0);
	if (ret < 0)
		return ret;
	/* Its directory, or its stream to relayd, could not be made (said). */
	if (set->sink->stopped)
		return -EIO;
	gethostname(host, sizeof(host) - 1);
	snprintf(procname, sizeof(procname), "uid-%u", (unsigned)set->uid);
	memcpy(info.uuid, set->uuid, sizeof(info.uuid));
	ustcomm_metadata_trace(&sb, &info);
	return sink_metadata(set, &sb);
}

int ustd_uid_set_new(struct ustd_uid_set **out, const struct ustd_ctx *ctx,
		     const char *trace_name, uid_t uid, uint32_t clock, bool overwrite,
		     struct ustd_app **sink)
{
	struct ustd_uid_set *set = calloc(1, sizeof(*set));
	int ret = -ENOMEM;

	if (!set)
		return -ENOMEM;
	set->ctx = ctx;
	set->uid = uid;
	set->clock = clock;
	set->overwrite = overwrite;
	set->timer.fd = -1;
	set->timer.set = set;
	set->timer.watch.kind = USTD_WATCH_UID_TIMER;
	ret = ustcomm_uuid_generate(set->uuid);
	if (ret < 0)
		goto error;
	set->sink = ustd_app_new_orphan(ctx, (pid_t)uid);
	if (!set->sink) {
		ret = -ENOMEM;
		goto error;
	}
	set->sink->uid_sink = true;
	set->sink->uid = uid;
	ret = sink_hello(set, trace_name);
	if (ret < 0) {
		ustd_app_end_flushed(set->sink);
		ustd_app_free(set->sink);
		set->sink = NULL;
		goto error;
	}
	*sink = set->sink;
	*out = set;
	return 0;
error:
	free(set);
	return ret;
}

uid_t ustd_uid_set_uid(const struct ustd_uid_set *set)
{
	return set->uid;
}

static int reply(struct ustd_app *member, uint16_t type, int status, uint32_t id,
		 const struct ustd_uid_set *set, uint32_t nr_cpus, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

static int reply(struct ustd_app *member, uint16_t type, int status, uint32_t id,
		 const struct ustd_uid_set *set, uint32_t nr_cpus, const char *fmt, ...)
{
	struct ustcomm_uid_reply r;
	va_list ap;

	memset(&r, 0, sizeof(r));
	r.status = status;
	r.id = id;
	r.nr_cpus = nr_cpus;
	memcpy(r.uuid, set->uuid, sizeof(r.uuid));
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(r.error, sizeof(r.error), fmt, ap);
		va_end(ap);
	}
	return ustcomm_send_msg(member->sock, type, &r, sizeof(r), NULL, 0);
}

/* One CPU's ring: a sealed memfd with every page made (a machine short of
 * memory refuses here, not with a SIGBUS in a writer), and its eventfd. */
static int ring_make(const struct uid_channel *c, uint32_t cpu, const uint8_t uuid[16],
		     uint32_t flags, int *shm_fd, int *wakeup_fd)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t size = ust_shm_map_size(c->subbuf_size, c->subbuf_count, page);
	char name[UST_SHM_CHANNEL_NAME_MAX + 24];
	void *mem;
	int ret;

	snprintf(name, sizeof(name), "ust-uid-%s-%u", c->name, cpu);
	*wakeup_fd = -1;
	*shm_fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (*shm_fd < 0)
		return -errno;
	if (ftruncate(*shm_fd, (off_t)size) < 0 || fallocate(*shm_fd, 0, 0, (off_t)size) < 0 ||
	    fcntl(*shm_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0)
		goto error;
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, *shm_fd, 0);
	if (mem == MAP_FAILED)
		goto error;
	ust_shm_ctl_init(mem, c->subbuf_size, c->subbuf_count, c->stream_id, cpu, page, uuid,
			 c->name, flags);
	munmap(mem, size);
	*wakeup_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (*wakeup_fd < 0)
		goto error;
	return 0;
error:
	ret = -errno;
	close(*shm_fd);
	*shm_fd = -1;
	return ret;
}

static struct ustcomm_stream stream_desc(const struct ustd_uid_set *set,
					 const struct uid_channel *c, uint32_t cpu)
{
	struct ustcomm_stream d;

	memset(&d, 0, sizeof(d));
	d.stream_id = c->stream_id;
	d.cpu = cpu;
	d.subbuf_size = c->subbuf_size;
	d.subbuf_count = c->subbuf_count;
	memcpy(d.channel, c->name, strlen(c->name));
	d.ctx_size = ustcomm_ctx_set_size(&c->ctx);
	d.flags = set->overwrite ? UST_SHM_FLAG_OVERWRITE : 0;
	return d;
}

/* The channel's stream block, then its rings, each handed to the sink. */
static int channel_make(struct ustd_uid_set *set, struct uid_channel *c)
{
	struct ustcomm_strbuf sb = USTCOMM_STRBUF_INIT;
	uint32_t cpu;
	int ret, fds[2];

	c->fds = malloc(2 * c->nr_cpus * sizeof(*c->fds));
	if (!c->fds)
		return -ENOMEM;
	for (cpu = 0; cpu < 2 * c->nr_cpus; cpu++)
		c->fds[cpu] = -1;
	ustcomm_metadata_stream(&sb, c->stream_id, c->name, &c->ctx);
	ret = sink_metadata(set, &sb);
	for (cpu = 0; ret == 0 && cpu < c->nr_cpus; cpu++) {
		struct ustcomm_stream d = stream_desc(set, c, cpu);

		ret = ring_make(c, cpu, set->uuid, d.flags, &c->fds[2 * cpu], &c->fds[2 * cpu + 1]);
		if (ret < 0)
			break;
		fds[0] = dup(c->fds[2 * cpu]);
		fds[1] = fds[0] < 0 ? -1 : dup(c->fds[2 * cpu + 1]);
		if (fds[1] < 0) {
			ret = -errno;
			if (fds[0] >= 0)
				close(fds[0]);
			break;
		}
		ret = sink_take(set, USTCOMM_MSG_STREAM, &d, sizeof(d), fds, 2);
	}
	return ret;
}

static void channel_free(struct uid_channel *c)
{
	uint32_t i;

	for (i = 0; c->fds && i < 2 * c->nr_cpus; i++) {
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	}
	free(c->fds);
}

static struct uid_channel *channel_find(struct ustd_uid_set *set, const char *name)
{
	size_t i;

	for (i = 0; i < set->nr_chans; i++) {
		if (!strcmp(set->chans[i].name, name))
			return &set->chans[i];
	}
	return NULL;
}

static bool same_ctx(const struct uid_channel *c, const struct ustcomm_uid_channel *req)
{
	return c->ctx.nr == req->ctx_nr && !memcmp(c->ctx.ids, req->ctx_ids, req->ctx_nr);
}

int ustd_uid_set_on_channel(struct ustd_uid_set *set, struct ustd_app *member,
			    const struct ustcomm_uid_channel *req)
{
	struct uid_channel *c = channel_find(set, req->channel), *grown;
	struct ustcomm_mem_request mreq;
	struct ustcomm_mem_avail avail;
	char why[200];
	uint32_t cpu;
	int ret;

	memset(&mreq, 0, sizeof(mreq));

	if (!set->sink || set->sink->stopped)
		return reply(member, USTCOMM_MSG_UID_CHANNEL_REPLY, -EIO, 0, set, 0,
			     "the trace of uid %u's buffers is stopped (said by ustd)",
			     (unsigned)set->uid);
	if (member->clock != set->clock)
		return reply(member, USTCOMM_MSG_UID_CHANNEL_REPLY, -EINVAL, 0, set, 0,
			     "the other processes of uid %u read another clock (UST_CLOCK)",
			     (unsigned)set->uid);
	if (c && !same_ctx(c, req))
		return reply(member, USTCOMM_MSG_UID_CHANNEL_REPLY, -EINVAL, 0, set, 0,
			     "channel %s of the buffers of uid %u records other contexts: add contexts to the session, not to one process",
			     c->name, (unsigned)set->uid);
	if (!c) {
		grown = realloc(set->chans, (set->nr_chans + 1) * sizeof(*grown));
		if (!grown)
			return reply(member, USTCOMM_MSG_UID_CHANNEL_REPLY, -ENOMEM, 0, set, 0,
				     "ustd is out of memory");
		set->chans = grown;
		c = &set->chans[set->nr_chans];
		memset(c, 0, sizeof(*c));
		memcpy(c->name, req->channel, strlen(req->channel));
		c->stream_id = (uint32_t)set->nr_chans;
		c->subbuf_size = req->subbuf_size;
		c->subbuf_count = req->subbuf_count;
		c->nr_cpus = req->nr_cpus;
		c->ctx.nr = (uint8_t)req->ctx_nr;
		memcpy(c->ctx.ids, req->ctx_ids, req->ctx_nr);
		c->next_id = UST_EVENT_ID_FIRST;
		/* Before anything is allocated: the OOM killer must never
		 * decide (libustcomm/mem_avail.h), in ustd least of all. */
		ustcomm_mem_request_add(&mreq, c->subbuf_size, c->subbuf_count, c->nr_cpus, 0);
		ustcomm_mem_avail(&avail);
		if (ustcomm_mem_check(&mreq, &avail, why, sizeof(why)) < 0) {
			ustcomm_err("buffers per user of uid %u: channel %s not made: %s",
				    (unsigned)set->uid, c->name, why);
			return reply(member, USTCOMM_MSG_UID_CHANNEL_REPLY, -ENOMEM, 0, set, 0,
				     "%s; make the session's sub-buffers smaller or fewer (ustctl create-session --subbuf-size, --subbuf-num)",
				     why);
		}
		ret = channel_make(set, c);
		if (ret < 0) {
			channel_free(c);
			ustcomm_err("cannot make the buffers per user of channel %s (uid %u, %u CPUs of %u x %u bytes): %s",
				    c->name, (unsigned)set->uid, c->nr_cpus, c->subbuf_count,
				    c->subbuf_size, strerror(-ret));
			return reply(member, USTCOMM_MSG_UID_CHANNEL_REPLY, ret, 0, set, 0,
				     "ustd cannot make the buffers of channel %s: %s", c->name,
				     strerror(-ret));
		}
		set->nr_chans++;
	}
	ret = reply(member, USTCOMM_MSG_UID_CHANNEL_REPLY, 0, c->stream_id, set, c->nr_cpus, NULL);
	for (cpu = 0; ret == 0 && cpu < c->nr_cpus; cpu++) {
		struct ustcomm_stream d = stream_desc(set, c, cpu);

		ret = ustcomm_send_msg(member->sock, USTCOMM_MSG_STREAM, &d, sizeof(d),
				       &c->fds[2 * cpu], 2);
	}
	return ret;
}

static struct uid_channel *channel_of(struct ustd_uid_set *set, uint32_t stream_id)
{
	return stream_id < set->nr_chans ? &set->chans[stream_id] : NULL;
}

/* The event's block, then its layout: on disk before any process can
 * write an event with the id, which it learns from the reply after. */
static int event_describe(struct ustd_uid_set *set, const struct ustcomm_uid_event *e,
			  const char *name, const char *fields, uint32_t id)
{
	struct ustcomm_strbuf sb = USTCOMM_STRBUF_INIT;
	struct ustcomm_event_layout *el;
	uint32_t flen = e->nr_fields * (uint32_t)sizeof(struct ustcomm_field_layout);
	int ret;

	ustcomm_metadata_event_block(&sb, e->stream_id, id, name, e->loglevel, fields);
	ret = sink_metadata(set, &sb);
	if (ret < 0)
		return ret;
	el = calloc(1, sizeof(*el) + flen);
	if (!el)
		return -ENOMEM;
	el->stream_id = e->stream_id;
	el->event_id = id;
	el->nr_fields = e->nr_fields;
	memcpy(el + 1, fields + e->fields_len, flen);
	ret = sink_take(set, USTCOMM_MSG_EVENT_LAYOUT, el, (uint32_t)(sizeof(*el) + flen), NULL, 0);
	free(el);
	return ret;
}

int ustd_uid_set_on_event(struct ustd_uid_set *set, struct ustd_app *member,
			  const struct ustcomm_msg *msg)
{
	const struct ustcomm_uid_event *e;
	const struct ustcomm_field_layout *layouts;
	const char *name, *fields, *key;
	struct uid_channel *c;
	struct uid_event *ev, *grown;
	size_t i, key_len;
	int ret;

	ret = ustcomm_check_uid_event(msg, &e, &name, &fields, &layouts);
	if (ret < 0)
		return ret;
	c = channel_of(set, e->stream_id);
	if (!c)
		return reply(member, USTCOMM_MSG_UID_EVENT_REPLY, -EINVAL, 0, set, 0,
			     "event %s names stream %u, which ustd never gave", name, e->stream_id);
	/* The same request from any process is the same event. */
	key = msg->payload + sizeof(e->stream_id);
	key_len = msg->payload_len - sizeof(e->stream_id);
	for (i = 0; i < set->nr_events; i++) {
		ev = &set->events[i];
		if (ev->stream_id == e->stream_id && ev->key_len == key_len &&
		    !memcmp(ev->key, key, key_len))
			return reply(member, USTCOMM_MSG_UID_EVENT_REPLY, 0, ev->id, set, 0, NULL);
	}
	if (c->next_id > UID_EVENT_ID_MAX)
		return reply(member, USTCOMM_MSG_UID_EVENT_REPLY, -ENOSPC, 0, set, 0,
			     "channel %s of the buffers of uid %u has %u events already",
			     c->name, (unsigned)set->uid, UID_EVENT_ID_MAX);
	grown = realloc(set->events, (set->nr_events + 1) * sizeof(*grown));
	if (!grown)
		return reply(member, USTCOMM_MSG_UID_EVENT_REPLY, -ENOMEM, 0, set, 0,
			     "ustd is out of memory");
	set->events = grown;
	ev = &set->events[set->nr_events];
	ev->key = malloc(key_len);
	if (!ev->key)
		return reply(member, USTCOMM_MSG_UID_EVENT_REPLY, -ENOMEM, 0, set, 0,
			     "ustd is out of memory");
	memcpy(ev->key, key, key_len);
	ev->key_len = key_len;
	ev->stream_id = e->stream_id;
	ev->id = c->next_id;
	ret = event_describe(set, e, name, fields, ev->id);
	if (ret < 0) {
		free(ev->key);
		return reply(member, USTCOMM_MSG_UID_EVENT_REPLY, ret, 0, set, 0,
			     "ustd cannot describe event %s in the trace of uid %u: %s", name,
			     (unsigned)set->uid, strerror(-ret));
	}
	c->next_id++;
	set->nr_events++;
	return reply(member, USTCOMM_MSG_UID_EVENT_REPLY, 0, ev->id, set, 0, NULL);
}

/* Closes every open packet; the positions reached are returned in each
 * stream's stall_limit when mark, else drained up to. */
static void close_packets(struct ustd_uid_set *set, bool mark)
{
	struct ustd_app_stream *as;
	int tsc = set->clock == USTCOMM_CLOCK_TSC, i;

	for (as = set->sink ? set->sink->streams : NULL; as; as = as->next) {
		if (!as->stream.open)
			continue;
		ustcomm_cbuf_flush(&as->stream.cb, tsc, NULL);
		if (mark) {
			as->stall_limit = ustd_stream_write_position(&as->stream);
			continue;
		}
		/* A flight recorder's ring is written on a snapshot and at
		 * its end (ustd_stream_finish()), never drained. */
		if (as->stream.overwrite)
			continue;
		/* Drains of one ring each: the flushed packet, those behind it. */
		for (i = 0; i < 3 && ustd_app_drain_to(as, ustd_stream_write_position(&as->stream));
		     i++)
			;
	}
}

static int timer_arm(struct ustd_uid_set *set)
{
	struct itimerspec its = {
		.it_value = { UID_STALL_GRACE_MS / 1000, (UID_STALL_GRACE_MS % 1000) * 1000000L },
	};
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &set->timer.watch };

	if (set->timer.fd < 0) {
		set->timer.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (set->timer.fd < 0)
			return -errno;
		if (epoll_ctl(set->ctx->epfd, EPOLL_CTL_ADD, set->timer.fd, &ev) < 0) {
			close(set->timer.fd);
			set->timer.fd = -1;
			return -errno;
		}
	}
	if (timerfd_settime(set->timer.fd, 0, &its, NULL) < 0)
		return -errno;
	set->timer.armed = true;
	return 0;
}

void ustd_uid_set_member_ended(struct ustd_uid_set *set, bool flushed)
{
	int ret;

	if (flushed || !set->sink)
		return;
	/* A later death before the check moves the limits on and the check
	 * later: the grace holds for the writers of every death. */
	close_packets(set, true);
	ret = timer_arm(set);
	if (ret < 0)
		ustcomm_err("buffers per user of uid %u: cannot time the check of a dead writer's packets (%s); they are rescued when the session stops",
			    (unsigned)set->uid, strerror(-ret));
}

/* What no live writer can still be inside: rescued, handed back. */
static void unstall(struct ustd_uid_set *set)
{
	const struct ustd_rescue_ctx rescue = { .layouts = &set->sink->layouts,
						.uuid = set->uuid };
	struct ustd_app_stream *as;
	uint64_t before = set->rescued;
	int ret;

	for (as = set->sink->streams; as && !set->sink->closed; as = as->next) {
		if (!as->stall_limit)
			continue;
		ret = ustd_stream_unstall(&as->stream, as->stall_limit, &rescue, &set->rescued);
		as->stall_limit = 0;
		if (ret < 0)
			set->sink->ops->fail(set->sink, ret);
		else if (ret > 0)
			set->sink->ops->close_stream(as);
	}
	if (set->rescued > before)
		ustcomm_err("buffers per user of uid %u: a process died inside an event; %llu packet%s rescued (its unfinished events are counted as discarded), the other processes write on",
			    (unsigned)set->uid, (unsigned long long)(set->rescued - before),
			    set->rescued - before == 1 ? "" : "s");
}

void ustd_uid_set_on_timer(struct ustd_watch *w)
{
	struct uid_timer *t = (struct uid_timer *)w;
	uint64_t expirations;

	if (read(t->fd, &expirations, sizeof(expirations)) < 0)
		return;
	t->armed = false;
	if (t->set->sink)
		unstall(t->set);
}

const struct ustd_uid_member_ops ustd_uid_set_member_ops = {
	.on_channel = ustd_uid_set_on_channel,
	.on_event = ustd_uid_set_on_event,
	.member_ended = ustd_uid_set_member_ended,
};

void ustd_uid_set_flush(struct ustd_uid_set *set)
{
	if (set->sink && !set->sink->closed)
		close_packets(set, false);
}

void ustd_uid_set_end(struct ustd_uid_set *set)
{
	struct ustd_app_stream *as;

	if (!set->sink)
		return;
	ustd_uid_set_flush(set);
	/* Every member is gone or stopped: what is still incomplete was
	 * left by a writer that died. */
	for (as = set->sink->streams; as; as = as->next) {
		if (as->stream.open)
			as->stall_limit = ustd_stream_write_position(&as->stream);
	}
	unstall(set);
	ustd_app_end_flushed(set->sink);
	/* main() frees it with the other ended applications. */
	set->sink = NULL;
}

void ustd_uid_set_free(struct ustd_uid_set *set)
{
	size_t i;

	if (!set)
		return;
	ustd_uid_set_end(set);
	if (set->timer.fd >= 0) {
		epoll_ctl(set->ctx->epfd, EPOLL_CTL_DEL, set->timer.fd, NULL);
		close(set->timer.fd);
	}
	for (i = 0; i < set->nr_chans; i++)
		channel_free(&set->chans[i]);
	for (i = 0; i < set->nr_events; i++)
		free(set->events[i].key);
	free(set->chans);
	free(set->events);
	free(set);
}
