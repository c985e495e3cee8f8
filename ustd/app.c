/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "libustcomm/clock.h"
#include "libustcomm/log.h"
#include "libustcomm/trace_output.h"
#include "ustd/app.h"
#include "ustd/session.h"
#include "ustd/session_settings.h"
#include "ustd/trigger.h"
#include "ustd/relay_fallback.h"
#include "ustd/relay_share.h"
#include "ustd/session_relay.h"

/*
 * A busy relayed stream asks relayd what it has written once this many
 * packets are unconfirmed (and on every live tick), without waiting for
 * the answer: a relayd starved of CPU by the writers answered a round
 * trip in milliseconds, during which the rings filled.
 */
#define APP_CONFIRM_EVERY	4

/* -v messages: what ustd is doing, as opposed to what went wrong. */
static __attribute__((format(printf, 2, 3)))
void app_note(const struct ustd_app *app, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (!app->ctx->verbose)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "ustd: %s\n", buf);
}

static void app_close_stream(struct ustd_app_stream *as)
{
	struct ustd_stream *s = &as->stream;

	if (!s->open)
		return;
	/* The application still holds the eventfd: closing ours would not
	 * take it out of the epoll set. */
	epoll_ctl(as->app->ctx->epfd, EPOLL_CTL_DEL, s->wakeup_fd, NULL);
	ustd_stream_close(s);
}

static void app_close_streams(struct ustd_app *app)
{
	struct ustd_app_stream *as;

	for (as = app->streams; as; as = as->next)
		app_close_stream(as);
}

/* A directory with nothing but its empty metadata file would make every
 * reader of the output directory fail: it goes. */
static void app_close_trace_dir(struct ustd_app *app)
{
	if (app->td.path && app->td.metadata_len == 0 && !app->streams)
		ustd_trace_dir_discard(&app->td);
	else
		ustd_trace_dir_close(&app->td);
}

/* Where the trace goes, for messages. */
static const char *app_where(const struct ustd_app *app)
{
	if (app->relayed)
		return app->relay_path;
	return app->td.path ? app->td.path : app->trace_name;
}

/*
 * The trace stops streaming. Its own connection closes; a session's stays
 * for the session's other processes, once the sending thread is done with
 * this trace's packets and no answer owed by relayd points at its streams.
 * There, streams left open (close_streams: the trace stopped midway) are
 * closed at relayd, which would otherwise keep live viewers waiting for
 * them until the session ends.
 */
static void app_relay_release(struct ustd_app *app, bool close_streams)
{
	struct ustd_relay *r = app->sink.relay;
	struct ustd_app_stream *as;
	int ret = 0;

	app->relayed = false;
	if (!app->sink.share) {
		ustd_relay_close(&app->sink.own);
		return;
	}
	if (!r->broken)
		ustd_relay_sync(r);
	for (as = app->streams; as && close_streams && ret == 0 && !r->broken; as = as->next) {
		if (as->stream.out.sink)
			ret = ustd_relay_close_stream(r, as->stream.out.handle,
						      as->stream.out.sent - 1);
	}
	if (close_streams && ret == 0 && !r->broken)
		ustd_relay_close_stream(r, app->meta_handle, UINT64_MAX);
	for (as = app->streams; as; as = as->next)
		ustd_relay_forget(r, &as->stream.out.query);
	ustd_relay_share_leave(app->sink.share, &app->sink);
}

/* The relay session the trace streams into, for messages. */
static const char *app_relay_session(const struct ustd_app *app)
{
	return app->sink.share ? app->sink.share->name : app->trace_name;
}

/* A write error ends this trace only: the application keeps running, its
 * buffers fill and discard, and ustd keeps serving the others. */
static void app_stop_trace(struct ustd_app *app, int err)
{
	/* Stopped already: said so then (the relay fallback may stop a
	 * trace while a stream of it is in use, and leave the rest to us).
	 * A session outlives the error: what becomes of its process is said. */
	if (!app->stopped)
		ustcomm_err("cannot write trace %s: %s; tracing of %s stopped, other traces continue%s",
			    app_where(app), strerror(-err), app->label,
			    app->session ? "; what it wrote stays whole (in the session's next chunk if the session rotates), and the process is traced again only once restarted" : "");
	app->stopped = true;
	app_close_streams(app);
	app_close_trace_dir(app);
	if (app->relayed)
		app_relay_release(app, true);
	ustd_relay_pending_free(&app->sink.pending);
}

/* The packets relayd may lack, stream by stream, for the message. */
static uint64_t app_unconfirmed(const struct ustd_app *app, char *buf, size_t size)
{
	const struct ustd_app_stream *as;
	const struct ustd_stream_out *o;
	uint64_t total = 0;
	size_t used = 0;
	int n;

	buf[0] = '\0';
	for (as = app->streams; as; as = as->next) {
		o = &as->stream.out;
		if (!o->sink || o->sent == o->confirmed)
			continue;
		total += o->sent - o->confirmed;
		n = snprintf(buf + used, size - used, "%s%s packets %llu-%llu", used ? ", " : "",
			     as->stream.name, (unsigned long long)o->confirmed,
			     (unsigned long long)(o->sent - 1));
		if (n > 0 && (size_t)n < size - used)
			used += (size_t)n;
	}
	return total;
}

/*
 * relayd went away (sink->lost): the trace goes on in a local directory
 * of the same name under the output directory (relay_fallback.h), which
 * begins with every packet relayd had not confirmed writing (for a
 * session's trace, <procname>-<pid> in the session's local directory).
 * Streams are not closed here: a caller may be in the middle of one.
 */
static void app_relay_lost(struct ustd_sink *sink)
{
	struct ustd_app *app = ustd_fallback_app(sink);
	struct ustd_app_stream *as;
	char unconfirmed[512];
	uint64_t lost;
	int ret;

	if (!app->relayed)
		return;
	lost = app_unconfirmed(app, unconfirmed, sizeof(unconfirmed));
	app->relayed = false;
	ustd_relay_close(sink->relay);
	ret = ustd_fallback_open(app);
	if (ret == 0)
		ret = ustd_fallback_write_kept(app);
	ustd_relay_pending_free(&sink->pending);
	for (as = app->streams; as; as = as->next) {
		as->stream.out.sink = NULL;
		as->stream.dir = app->td.path ? app->td.path : as->stream.dir;
	}
	if (ret < 0) {
		ustcomm_err("lost lttng-relayd at %s while streaming %s (%s), and cannot keep the trace in %s either: %s; tracing of %s stopped",
			    app->relay_text, app->label, sink->relay->err, app->dir,
			    strerror(-ret), app->label);
		app->stopped = true;
	} else if (lost) {
		ustcomm_err("lost lttng-relayd at %s while streaming %s (%s); the rest of the trace goes to %s, beginning with the %llu packets relayd had not confirmed writing: %s",
			    app->relay_text, app->label, sink->relay->err, app->td.path,
			    (unsigned long long)lost, unconfirmed);
	} else {
		ustcomm_err("lost lttng-relayd at %s while streaming %s (%s); relayd has every packet sent before, the rest of the trace goes to %s",
			    app->relay_text, app->label, sink->relay->err, app->td.path);
	}
	/* Last: the session's other traces move to their fallback too. */
	if (sink->share)
		ustd_relay_share_leave(sink->share, sink);
}

/* A relay call failed: the trace falls back to local files. */
static void app_relay_check(struct ustd_app *app, int ret)
{
	if (ret < 0 && app->relayed)
		app_relay_lost(&app->sink);
}

/* The live timer runs while some trace is streamed (ustd.c stops it). */
static void app_live_timer_arm(const struct ustd_ctx *ctx)
{
	struct itimerspec its;

	if (ctx->live_fd < 0 || timerfd_gettime(ctx->live_fd, &its) < 0 ||
	    its.it_interval.tv_sec || its.it_interval.tv_nsec)
		return;
	its.it_interval.tv_sec = (time_t)(ctx->live_timer_us / 1000000);
	its.it_interval.tv_nsec = (long)(ctx->live_timer_us % 1000000) * 1000;
	its.it_value = its.it_interval;
	if (timerfd_settime(ctx->live_fd, 0, &its, NULL) < 0)
		ustcomm_err("cannot start the live timer: %s; live viewers see packets only as they fill",
			    strerror(errno));
}

/*
 * relayd files a session under its name without saying whether that name
 * is taken: two traces of one process started within the same second
 * would share a directory, the second overwriting the first. The names
 * given out lately are remembered, and a repeated one gets a suffix, as a
 * local directory would.
 */
#define APP_RECENT_NAMES	16
static char app_recent_names[APP_RECENT_NAMES][USTD_TRACE_NAME_MAX];
static unsigned app_recent_next;

static void app_unique_session_name(struct ustd_app *app)
{
	char base[USTD_TRACE_NAME_MAX];
	unsigned i, suffix = 0;
	bool taken = true;

	snprintf(base, sizeof(base), "%s", app->trace_name);
	while (taken) {
		taken = false;
		for (i = 0; i < APP_RECENT_NAMES && !taken; i++)
			taken = !strcmp(app_recent_names[i], app->trace_name);
		if (taken)
			snprintf(app->trace_name, sizeof(app->trace_name), "%.*s-%u",
				 (int)sizeof(base) - 12, base, ++suffix);
	}
	snprintf(app_recent_names[app_recent_next++ % APP_RECENT_NAMES], USTD_TRACE_NAME_MAX,
		 "%s", app->trace_name);
}

/* The trace's metadata stream, at relayd in app->relay_path. */
static int app_relay_begin(struct ustd_app *app)
{
	int ret;

	app->sink.lost = app_relay_lost;
	app->sink.pending.min = app->ctx->relay_backlog;
	app->sink.spill = ustd_fallback_spill;
	ret = ustd_relay_add_stream(app->sink.relay, "metadata", app->relay_path, 0, 0,
				    &app->meta_handle);
	if (ret == 0)
		ret = ustd_relay_streams_sent(app->sink.relay);
	return ret;
}

/*
 * A trace of a streamed session: it goes on the session's connection into
 * the session's relay session, as <procname>-<pid> under the session's
 * directory there. When that connection is lost, or already was, the
 * caller keeps the trace in the session's local directory instead.
 */
static int app_relay_join(struct ustd_app *app, struct ustd_relay_share *sh)
{
	char proc[USTD_TRACE_NAME_MAX];
	int n, ret = -ENAMETOOLONG;

	ustd_relay_share_join(sh, &app->sink);
	app->relay = &sh->url;
	app->relay_text = sh->text;
	app->dir = sh->fallback_dir;
	ustd_trace_proc_name(proc, sizeof(proc), app->procname, app->pid);
	n = snprintf(app->relay_path, sizeof(app->relay_path), "%s/%s", sh->path, proc);
	/* Checked before relayd is asked: a refusal breaks the connection,
	 * and the other processes' traces with it. */
	if (n > 0 && (size_t)n < USTD_RELAY_PATH_MAX)
		ret = sh->relay.broken ? -ENOTCONN : app_relay_begin(app);
	if (ret < 0) {
		ustcomm_err("session %s cannot stream %s to lttng-relayd at %s (%s); keeping its trace in %s instead",
			    sh->name, app->label, sh->text,
			    ret == -ENAMETOOLONG ? "its path there is too long" : sh->relay.err,
			    app->dir);
		ustd_relay_share_leave(sh, &app->sink);
		return ret;
	}
	app->relayed = true;
	app_live_timer_arm(app->ctx);
	app_note(app, "streaming %s to lttng-relayd at %s, session %s, in %s", app->label,
		 sh->text, sh->name, app->relay_path);
	return 0;
}

/*
 * Opens the trace's relay session: one per process, named like the local
 * directory would be, with its metadata stream. When relayd cannot be
 * reached the trace is kept locally instead, and ustd says so.
 */
static int app_relay_open(struct ustd_app *app)
{
	struct ustd_relay *r = app->sink.relay;
	int ret;

	app_unique_session_name(app);
	snprintf(app->relay_path, sizeof(app->relay_path), "%s/%s", app->ctx->hostname,
		 app->trace_name);
	ret = ustd_relay_connect(r, app->relay, app->relay_text);
	if (ret == 0)
		ret = ustd_relay_create_session(r, app->trace_name, app->ctx->hostname,
						app->ctx->live_timer_us);
	if (ret == 0)
		ret = app_relay_begin(app);
	if (ret < 0) {
		ustd_relay_close(r);
		ustcomm_err("%s; keeping the trace of %s in %s instead", r->err, app->label,
			    app->dir);
		return ret;
	}
	app->relayed = true;
	app_live_timer_arm(app->ctx);
	/* relayd does not tell its live port: say where it comes from. */
	if (app->ctx->live_port && app->relay == app->ctx->relay)
		app_note(app, "streaming %s to lttng-relayd at %s, session %s; live: net://%s:%u/host/%s/%s",
			 app->label, app->relay_text, app->trace_name, app->relay->host,
			 app->ctx->live_port, app->ctx->hostname, app->trace_name);
	else
		app_note(app, "streaming %s to lttng-relayd at %s, session %s; live, if that relayd serves viewers on its default live port %u (else give ustd --live-port): net://%s:%u/host/%s/%s",
			 app->label, app->relay_text, app->trace_name, USTCOMM_RELAY_LIVE_PORT,
			 app->relay->host, USTCOMM_RELAY_LIVE_PORT, app->ctx->hostname,
			 app->trace_name);
	return 0;
}

/*
 * The end of a relayed trace: waits (a bounded while) for relayd to say
 * it has written every packet, so that the trace is complete there when
 * the application is told it is, then closes the session.
 */
static void app_relay_close(struct ustd_app *app)
{
	struct ustd_app_stream *as;
	char unconfirmed[512];
	uint64_t left;
	int tries, ret;

	/* What is still queued goes out first (relay_tx.h). */
	ret = ustd_relay_sync(app->sink.relay);
	app_relay_check(app, ret);
	for (tries = 0; tries < 200 && app->relayed; tries++) {
		for (as = app->streams; as && ret == 0; as = as->next)
			ret = ustd_stream_confirm(&as->stream);
		app_relay_check(app, ret);
		if (!app->relayed || !app_unconfirmed(app, unconfirmed, sizeof(unconfirmed)))
			break;
		poll(NULL, 0, 10);
	}
	if (!app->relayed)
		return;
	left = app_unconfirmed(app, unconfirmed, sizeof(unconfirmed));
	if (left) {
		ret = ustd_fallback_open(app);
		if (ret == 0)
			ret = ustd_fallback_write_kept(app);
		ustcomm_err("lttng-relayd at %s did not confirm writing %llu packets of %s within 2 s (%s): %s %s",
			    app->relay_text, (unsigned long long)left, app->label, unconfirmed,
			    ret < 0 ? "they may be lost, the fallback failed:" : "they are written to",
			    ret < 0 ? strerror(-ret) : app->td.path);
		ret = 0;
	}
	for (as = app->streams; as && ret == 0; as = as->next) {
		if (as->stream.out.sink)
			ret = ustd_relay_close_stream(app->sink.relay, as->stream.out.handle,
						      as->stream.out.sent - 1);
	}
	if (ret == 0)
		ret = ustd_relay_close_stream(app->sink.relay, app->meta_handle, UINT64_MAX);
	app_relay_check(app, ret);
	if (!app->relayed)
		return;
	app_note(app, "trace of %s is complete at lttng-relayd %s, session %s", app->label,
		 app->relay_text, app_relay_session(app));
	app_relay_release(app, false);
	ustd_relay_pending_free(&app->sink.pending);
}

/* How the connection ends, which says what the buffers may hold. */
enum app_end_how {
	APP_END_GOODBYE,	/* flushed: every packet is complete */
	APP_END_DEAD,		/* died without GOODBYE: rescue the open packets */
	APP_END_LIVE,		/* still running (protocol error, ustd exiting) */
};

/* ustd --stats: how fast this trace's sub-buffers were given back. */
static void app_report_stats(const struct ustd_app *app)
{
	const struct ustd_app_stream *as;
	uint64_t discarded = 0;
	char what[sizeof(app->label) + 16];

	for (as = app->streams; as; as = as->next)
		discarded += as->stream.out.discarded;
	snprintf(what, sizeof(what), "%s", app->label);
	ustd_drain_stats_report(app->stats, what, discarded, stderr);
}

static void app_end(struct ustd_app *app, enum app_end_how how)
{
	const struct ustd_rescue_ctx rescue = { .layouts = &app->layouts, .uuid = app->uuid };
	struct ustd_app_stream *as;
	int ret;

	/* Firings still queued are snapshotted while the buffers are mapped. */
	app->ending = true;
	ustd_trigger_stop(app);
	for (as = app->streams; as; as = as->next) {
		ret = ustd_stream_finish(&as->stream, how == APP_END_DEAD ? &rescue : NULL);
		if (ret < 0)
			app_stop_trace(app, ret);
		else if (ret > 0)
			app_close_stream(as);
	}
	if (app->stats)
		app_report_stats(app);
	if (app->relayed)
		app_relay_close(app);
	app_close_streams(app);
	if (app->td.path && app->td.metadata_len) {
		if (how == APP_END_DEAD)
			app_note(app, "%s died without flushing its buffers: its last packets were rescued, unfinished events are counted as discarded",
				 app->label);
		else if (how == APP_END_LIVE)
			app_note(app, "%s did not flush its buffers: its last, partial packets are not in the trace",
				 app->label);
		app_note(app, "trace of %s is complete in %s", app->label, app->td.path);
	}
	app_close_trace_dir(app);
	if (!app->hung_up)
		epoll_ctl(app->ctx->epfd, EPOLL_CTL_DEL, app->sock, NULL);
	close(app->sock);
	app->sock = -1;
	if (app->pidfd >= 0) {
		epoll_ctl(app->ctx->epfd, EPOLL_CTL_DEL, app->pidfd, NULL);
		close(app->pidfd);
		app->pidfd = -1;
	}
	app->closed = true;
}

/* True once the process is gone; false when it runs or cannot be told. */
static bool app_process_dead(const struct ustd_app *app)
{
	struct pollfd pfd = { .fd = app->pidfd, .events = POLLIN };

	return app->pidfd >= 0 && poll(&pfd, 1, 0) > 0;
}

static void app_protocol_error(struct ustd_app *app, const char *why)
{
	ustcomm_err("protocol error from %s: %s; connection dropped",
		    app->label, why);
	app_end(app, APP_END_LIVE);
}

/* HELLO's output, checked by ustcomm_check_hello(), or else ustd's own. */
static int app_choose_output(struct ustd_app *app, const char *output)
{
	const char *why;
	int kind = ustcomm_output_parse(output, &app->own_url, &why);

	app->relay = app->ctx->relay;
	app->relay_text = app->ctx->relay_text;
	app->dir = app->ctx->output;
	if (kind == USTCOMM_OUTPUT_DEFAULT)
		return 0;
	app->own_output = strdup(output);
	if (!app->own_output)
		return -ENOMEM;
	if (kind == USTCOMM_OUTPUT_DIR) {
		app->relay = NULL;
		app->dir = app->own_output;
	} else {
		app->relay = &app->own_url;
		app->relay_text = app->own_output;
	}
	return 0;
}

static int app_handle_hello(struct ustd_app *app, const struct ustcomm_msg *msg,
			    const char **why)
{
	const struct ustcomm_hello *hello;
	struct ustd_relay_share *share;
	int ret;

	if (app->said_hello) {
		*why = "second HELLO";
		return -EPROTO;
	}
	ret = ustcomm_check_hello(msg, &hello);
	if (ret < 0) {
		*why = "invalid HELLO";
		return ret;
	}
	app->said_hello = true;
	memcpy(app->uuid, hello->uuid, sizeof(app->uuid));
	app->clock = hello->clock;
	app->started = time(NULL);
	if (app->ctx->stats) {
		/* Without memory the trace goes on, without its figures. */
		app->stats = calloc(1, sizeof(*app->stats));
		if (app->stats)
			app->stats->tsc = app->clock == USTCOMM_CLOCK_TSC;
	}
	snprintf(app->procname, sizeof(app->procname), "%s", hello->procname);
	snprintf(app->label, sizeof(app->label), "%s[%d]", app->procname, (int)app->pid);
	if (hello->pid != (uint32_t)app->pid)
		ustcomm_dbg("%s calls itself pid %u (another pid namespace?)",
			    app->label, hello->pid);
	ret = ustd_trace_name(app->trace_name, sizeof(app->trace_name), app->procname,
			      app->pid, app->started);
	if (ret == 0)
		ret = app_choose_output(app, hello->output);
	if (ret < 0) {
		ustcomm_err("out of memory; tracing of %s stopped, other traces continue",
			    app->label);
		app->stopped = true;
		return 0;
	}
	share = ustd_session_relay(app->ctx->sessions, app, hello->trace_name);
	if (share ? app_relay_join(app, share) == 0 : app->relay && app_relay_open(app) == 0)
		return 0;
	if (share) {
		ret = ustd_trace_dir_create_proc(&app->td, app->dir, app->procname, app->pid);
	} else {
		ret = app->relay ? 0 : ustd_session_trace_dir(app->ctx->sessions, app,
							       hello->trace_name, &app->td);
		if (ret == 0)
			ret = ustd_trace_dir_create(&app->td, app->dir, app->procname, app->pid,
						    app->started);
	}
	if (ret < 0) {
		ustcomm_err("cannot create a trace directory in %s: %s; tracing of %s stopped, other traces continue",
			    app->dir, strerror(-ret), app->label);
		app->stopped = true;
		return 0;
	}
	app_note(app, "tracing %s into %s", app->label, app->td.path);
	return 0;
}

static bool app_has_stream(const struct ustd_app *app, const char *name)
{
	const struct ustd_app_stream *as;

	for (as = app->streams; as; as = as->next) {
		if (as->stream.open && strcmp(as->stream.name, name) == 0)
			return true;
	}
	return false;
}

/* Announces a new stream to relayd and publishes it to live viewers; if
 * relayd is gone, the trace moves to local files, this stream with it. */
static int app_relay_stream(struct ustd_app *app, struct ustd_app_stream *as)
{
	int ret = ustd_stream_relay(&as->stream, &app->sink, app->relay_path);

	if (ret == 0)
		ret = ustd_relay_streams_sent(app->sink.relay);
	if (ret == 0)
		return 0;
	/* The streams already known move to local files, then this one. */
	as->stream.out.sink = NULL;
	app_relay_lost(&app->sink);
	return app->stopped ? -EIO : ustd_stream_create_file(&as->stream, &app->td);
}

static int app_handle_stream(struct ustd_app *app, struct ustcomm_msg *msg, const char **why)
{
	const struct ustcomm_stream *desc;
	struct ustd_app_stream *as;
	struct epoll_event ev;
	int shm_fd, wakeup_fd, ret;

	ret = ustcomm_check_stream(msg, &desc);
	if (ret < 0 || msg->nr_fds != 2) {
		*why = "invalid STREAM";
		return ret < 0 ? ret : -EPROTO;
	}
	if (app->stopped)
		return 0;
	as = calloc(1, sizeof(*as));
	if (!as) {
		app_stop_trace(app, -ENOMEM);
		return 0;
	}
	as->watch.kind = USTD_WATCH_STREAM;
	as->app = app;
	/* The stream owns the descriptors from here on. */
	shm_fd = msg->fds[0];
	wakeup_fd = msg->fds[1];
	msg->fds[0] = msg->fds[1] = -1;
	msg->nr_fds = 0;
	ret = ustd_stream_map(&as->stream, desc, shm_fd, wakeup_fd);
	if (ret < 0) {
		free(as);
		*why = "STREAM buffer that cannot be mapped";
		return ret;
	}
	as->stream.stats = app->stats;
	ustd_session_stream_limits(app->session, desc->channel, &as->stream.out.tf);
	if (app_has_stream(app, as->stream.name))
		ret = -EEXIST;
	else if (app->relayed)
		ret = app_relay_stream(app, as);
	else
		ret = ustd_stream_create_file(&as->stream, &app->td);
	if (ret == -EEXIST) {
		ustcomm_err("%s sent stream %s twice; the second one is ignored",
			    app->label, as->stream.name);
		ustd_stream_close(&as->stream);
		free(as);
		return 0;
	}
	if (ret < 0) {
		ustd_stream_close(&as->stream);
		free(as);
		app_stop_trace(app, ret);
		return 0;
	}
	as->next = app->streams;
	app->streams = as;
	/* A flight recorder's writers send no wakeup: it is read on demand. */
	if (as->stream.overwrite)
		return 0;
	ev.events = EPOLLIN;
	ev.data.ptr = &as->watch;
	if (epoll_ctl(app->ctx->epfd, EPOLL_CTL_ADD, as->stream.wakeup_fd, &ev) < 0) {
		ret = -errno;
		ustd_stream_close(&as->stream);
		*why = "STREAM wakeup descriptor that cannot be polled";
		return ret;
	}
	ustcomm_dbg("%s: stream %s", app->label, as->stream.name);
	return 0;
}

/* A piece of metadata, to relayd (and kept, for a fallback) or to the
 * local metadata file. */
static int app_metadata(struct ustd_app *app, const char *text, size_t len)
{
	int ret;

	if (app->relayed) {
		ret = ustcomm_strbuf_append(&app->metadata, text, len);
		/* A fallback opened while relayed follows the metadata too. */
		if (ret == 0 && app->td.path)
			ret = ustd_trace_dir_append_metadata(&app->td, text, len);
		if (ret < 0)
			return ret;
		ret = ustd_relay_send_metadata(app->sink.relay, app->meta_handle, text, len);
		/* The fallback writes what was kept, this piece included. */
		app_relay_check(app, ret);
		return app->stopped ? -EIO : 0;
	}
	return ustd_trace_dir_append_metadata(&app->td, text, len);
}

/* Returns 0, or a negative errno with *why set when the application broke
 * the protocol. */
static int app_handle_msg(struct ustd_app *app, struct ustcomm_msg *msg, const char **why)
{
	int ret = 0;

	if (!app->said_hello && msg->type != USTCOMM_MSG_HELLO) {
		*why = "first message is not HELLO";
		return -EPROTO;
	}
	switch (msg->type) {
	case USTCOMM_MSG_HELLO:
		ret = app_handle_hello(app, msg, why);
		break;
	case USTCOMM_MSG_METADATA:
		if (app->stopped || msg->payload_len == 0)
			break;
		ret = app_metadata(app, msg->payload, msg->payload_len);
		if (ret < 0)
			app_stop_trace(app, ret);
		ret = 0;
		break;
	case USTCOMM_MSG_STREAM:
		ret = app_handle_stream(app, msg, why);
		break;
	case USTCOMM_MSG_EVENT_LAYOUT: {
		const struct ustcomm_event_layout *el;

		ret = ustcomm_check_event_layout(msg, &el);
		if (ret < 0) {
			*why = "invalid EVENT_LAYOUT";
			break;
		}
		ret = ustd_layouts_add(&app->layouts, el);
		if (ret == -ENOMEM) {
			ustcomm_err("out of memory: %s cannot be rescued if it crashes", app->label);
			ret = 0;
		} else if (ret < 0) {
			*why = ret == -EEXIST ? "EVENT_LAYOUT for an id already described" :
				"EVENT_LAYOUT beyond the stream and id limits";
		}
		break;
	}
	case USTCOMM_MSG_SNAPSHOT: {
		const struct ustcomm_snapshot *sn;

		ret = ustcomm_check_snapshot(msg, &sn);
		if (ret < 0 || app->snap_dir) {
			*why = ret < 0 ? "invalid SNAPSHOT" : "SNAPSHOT before the last one was answered";
			ret = -EPROTO;
			break;
		}
		app->snap_dir = strdup(sn->dir);
		if (!app->snap_dir) {
			ustcomm_err("out of memory: snapshot of %s not taken", app->label);
			ret = 0;
		}
		break;
	}
	case USTCOMM_MSG_TRIGGER_CHANNEL:
		ret = ustd_trigger_attach(app, msg->fds[0]);
		msg->fds[0] = -1;
		if (ret < 0)
			ustcomm_err("%s: cannot watch its trigger channel: %s; its triggers take no snapshot",
				    app->label, strerror(-ret));
		ret = 0;
		break;
	case USTCOMM_MSG_GOODBYE:
		app->flushed = true;
		break;
	default:
		*why = "unknown message type";
		ret = -EPROTO;
		break;
	}
	return ret;
}

/* Reads and handles until the socket is empty, or ends the application when
 * it hung up or broke the protocol. */
static void app_read(struct ustd_app *app)
{
	struct ustcomm_msg msg;
	const char *why;
	ssize_t n;
	int ret;

	for (;;) {
		n = ustcomm_receiver_read(&app->rx, app->sock);
		if (n == -EAGAIN)
			return;
		if (n == -EINTR)
			continue;
		/* Handle what arrived even when the read also saw the end. */
		while ((ret = ustcomm_receiver_next(&app->rx, &msg)) == 1) {
			why = "invalid message";
			ret = app_handle_msg(app, &msg, &why);
			ustcomm_msg_release(&msg);
			if (ret < 0) {
				app_protocol_error(app, why);
				return;
			}
		}
		if (ret < 0) {
			app_protocol_error(app, ret == -EMSGSIZE ? "message too large" :
					   "malformed message");
			return;
		}
		/*
		 * GOODBYE: every buffer is flushed. Write the rest and close;
		 * the application waits for that end of file to know that its
		 * trace is complete on disk (destroy-trace, exit).
		 */
		if (app->flushed) {
			app_end(app, APP_END_GOODBYE);
			return;
		}
		if (n < 0 && n != -ECONNRESET) {
			/* Too many descriptors, truncated control data, no memory. */
			app_protocol_error(app, strerror((int)-n));
			return;
		}
		if (n <= 0) {
			if (app->rx.len > 0)
				ustcomm_dbg("%s hung up in the middle of a message",
					    app->label);
			/*
			 * The socket closes before the process is gone (and a
			 * child may hold it open longer): rescue only once the
			 * pidfd says the writers are dead. Without a pidfd, a
			 * hang-up is taken as the death.
			 */
			if (app->pidfd >= 0 && !app_process_dead(app)) {
				epoll_ctl(app->ctx->epfd, EPOLL_CTL_DEL, app->sock, NULL);
				app->hung_up = true;
				return;
			}
			app_end(app, APP_END_DEAD);
			return;
		}
	}
}

/* Silently nothing where pidfd_open() is missing (before Linux 5.3) or the
 * process is gone already: the socket's hang-up then stands for the death. */
static void app_watch_process(struct ustd_app *app)
{
#ifdef SYS_pidfd_open
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &app->watch };
	int fd = (int)syscall(SYS_pidfd_open, app->pid, 0);

	/* Close-on-exec already: pidfd_open() always sets it. */
	if (fd < 0)
		return;
	if (epoll_ctl(app->ctx->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		close(fd);
		return;
	}
	app->pidfd = fd;
#else
	(void)app;
#endif
}

/*
 * Writes a snapshot of app's overwrite streams into a new directory under
 * parent ("" for ustd's output): text gets its path, or the reason it
 * failed. The write positions are taken before the socket is read again,
 * so that the metadata of every event copied is on disk (as in
 * ustd_app_on_stream()).
 */
static int app_snapshot_write(struct ustd_app *app, const char *parent, char *text,
			      size_t text_size)
{
	struct ustd_trace_dir snap = { .metadata_fd = -1 };
	struct ustd_stream_out out;
	struct ustd_app_stream *as;
	unsigned n = app->snap_count + 1;
	int ret;

	if (!parent[0])
		parent = app->dir;
	for (as = app->streams; as; as = as->next) {
		if (as->stream.open && as->stream.overwrite)
			as->snap_limit = ustd_stream_write_position(&as->stream);
	}
	if (!app->ending)
		app_read(app);
	if (app->closed)
		return -ECONNRESET;
	if (!app->td.path) {
		snprintf(text, text_size, "%s", app->relayed ?
			 "this trace is streamed to lttng-relayd: snapshots are taken of local traces only" :
			 "tracing of this process by ustd stopped after an error (see ustd's messages)");
		return app->relayed ? -EOPNOTSUPP : -EIO;
	}
	ret = ustd_trace_dir_snapshot(&app->td, parent, &n, &snap);
	if (ret < 0) {
		snprintf(text, text_size, "cannot create a snapshot directory in %s: %s",
			 parent, strerror(-ret));
		return ret;
	}
	app->snap_count = n;
	for (as = app->streams; as && ret == 0; as = as->next) {
		if (!as->stream.open || !as->stream.overwrite)
			continue;
		out = (struct ustd_stream_out) { .fd = -1, .idx_fd = -1 };
		ret = ustd_stream_out_create(&out, &snap, as->stream.name);
		if (ret < 0)
			break;
		ret = ustd_stream_write_ring(&as->stream, &out, as->snap_limit, NULL);
		ustd_stream_out_close(&out);
		if (ret > 0)
			ret = -EPROTO;
	}
	if (ret < 0)
		snprintf(text, text_size, "cannot write the snapshot in %s: %s", snap.path,
			 strerror(-ret));
	else
		snprintf(text, text_size, "%s", snap.path);
	ustd_trace_dir_close(&snap);
	return ret;
}

/* Answers SNAPSHOT: the application flushed its buffers before asking. */
static void app_snapshot(struct ustd_app *app)
{
	struct ustcomm_snapshot_done *done = NULL;
	char *dir = app->snap_dir;
	int ret;

	app->snap_dir = NULL;
	done = calloc(1, sizeof(*done));
	if (!done) {
		ustcomm_err("out of memory: snapshot of %s not answered", app->label);
		goto end;
	}
	ret = app_snapshot_write(app, dir, done->text, sizeof(done->text));
	if (ret == -ECONNRESET)
		goto end;
	done->status = ret;
	if (ret < 0)
		ustcomm_err("snapshot of %s failed: %s", app->label, done->text);
	else
		app_note(app, "snapshot of %s in %s", app->label, done->text);
	ret = ustcomm_send_msg(app->sock, USTCOMM_MSG_SNAPSHOT_DONE, done, sizeof(*done), NULL, 0);
	if (ret < 0)
		ustcomm_dbg("%s: answering its snapshot: %s", app->label, strerror(-ret));
end:
	free(done);
	free(dir);
}

int ustd_app_snapshot_now(struct ustd_app *app, const char *dir)
{
	char text[USTCOMM_PATH_MAX + 128];
	struct ustd_app_stream *as;
	bool overwrite = false;
	int ret;

	for (as = app->streams; as; as = as->next) {
		if (!as->stream.open || !as->stream.overwrite)
			continue;
		overwrite = true;
		/* Closes the open packet, as the application's flush would:
		 * ustd copies complete sub-buffers only. */
		ustcomm_cbuf_flush(&as->stream.cb, app->clock == USTCOMM_CLOCK_TSC, NULL);
	}
	if (!overwrite) {
		ustcomm_err("a trigger of %s fired, but its trace is written to disk as it goes: snapshots are for flight-recorder traces (UST_OVERWRITE=1, usttrace --overwrite)",
			    app->label);
		return -EINVAL;
	}
	ret = app_snapshot_write(app, dir, text, sizeof(text));
	if (ret < 0 && ret != -ECONNRESET)
		ustcomm_err("snapshot of %s failed: %s", app->label, text);
	else if (ret >= 0)
		app_note(app, "trigger: snapshot of %s in %s", app->label, text);
	return ret;
}

/* After reading the socket: requests read there are answered now. */
static void app_serve_snapshots(struct ustd_app *app)
{
	while (!app->closed && !app->hung_up && app->snap_dir)
		app_snapshot(app);
}

struct ustd_app *ustd_app_new(const struct ustd_ctx *ctx, int sock, pid_t pid)
{
	struct ustd_app *app;
	struct epoll_event ev;

	app = calloc(1, sizeof(*app));
	if (!app) {
		ustcomm_err("out of memory: connection of pid %d refused", (int)pid);
		goto error;
	}
	app->watch.kind = USTD_WATCH_APP;
	app->ctx = ctx;
	app->sock = sock;
	app->pidfd = -1;
	app->pid = pid;
	snprintf(app->label, sizeof(app->label), "pid %d", (int)pid);
	app->td.metadata_fd = -1;
	app->sink.relay = &app->sink.own;
	ustcomm_receiver_init(&app->rx);
	ev.events = EPOLLIN;
	ev.data.ptr = &app->watch;
	if (epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, sock, &ev) < 0) {
		ustcomm_err("cannot watch the connection of pid %d: %s", (int)pid, strerror(errno));
		ustcomm_receiver_fini(&app->rx);
		free(app);
		app = NULL;
		goto error;
	}
	app_watch_process(app);
	return app;
error:
	close(sock);
	return NULL;
}

void ustd_app_on_socket(struct ustd_app *app)
{
	if (app->closed)
		return;
	if (!app->hung_up)
		app_read(app);
	app_serve_snapshots(app);
	if (!app->closed && app_process_dead(app)) {
		/* Everything it sent before dying is in the socket. */
		if (!app->hung_up)
			app_read(app);
		if (!app->closed)
			app_end(app, APP_END_DEAD);
	}
}

void ustd_app_on_stream(struct ustd_app_stream *as)
{
	struct ustd_app *app = as->app;
	uint64_t limit;
	int ret;

	if (app->closed || !as->stream.open)
		return;
	/*
	 * Metadata before data: the application sends an event's metadata
	 * before it reserves any event with that id, so whatever was reserved
	 * before this position has its metadata in the socket now.
	 */
	limit = ustcomm_cbuf_write_position(&as->stream.cb);
	if (!app->hung_up)
		app_read(app);
	app_serve_snapshots(app);
	if (app->closed || !as->stream.open)
		return;
	ret = ustd_stream_drain(&as->stream, limit);
	if (ret < 0)
		app_stop_trace(app, ret);
	else if (ret > 0)
		app_close_stream(as);
	else if (app->relayed) {
		ret = ustd_relay_poll(app->sink.relay);
		if (ret == 0 && as->stream.out.sent - as->stream.out.confirmed >= APP_CONFIRM_EVERY)
			ret = ustd_stream_confirm_later(&as->stream);
		app_relay_check(app, ret);
	}
}

bool ustd_app_drain_to(struct ustd_app_stream *as, uint64_t limit)
{
	int ret;

	if (as->app->closed || !as->stream.open)
		return false;
	ret = ustd_stream_drain(&as->stream, limit);
	if (ret < 0)
		app_stop_trace(as->app, ret);
	else if (ret > 0)
		app_close_stream(as);
	return ret == 0 && as->stream.open && ustcomm_cbuf_next_ends_before(&as->stream.cb, limit);
}

void ustd_app_fail(struct ustd_app *app, int err)
{
	app_stop_trace(app, err);
}

void ustd_app_on_live_tick(struct ustd_app *app)
{
	struct ustd_app_stream *as;
	uint64_t now;
	int ret = 0;

	/* A dead application's packets are the rescue's, not ours to close. */
	if (app->closed || !app->relayed || app->hung_up || app_process_dead(app))
		return;
	/* Before the flushes: an idle stream has nothing before this time. */
	now = ust_clock_read_kind(app->clock == USTCOMM_CLOCK_TSC);
	for (as = app->streams; as; as = as->next)
		as->idle = ustd_stream_live_flush(&as->stream, app->clock == USTCOMM_CLOCK_TSC,
						  app->uuid);
	for (as = app->streams; as && !app->closed && app->relayed; as = as->next) {
		if (!as->idle && as->stream.open && !as->stream.overwrite)
			ustd_app_on_stream(as);
	}
	if (!app->closed && app->relayed)
		ret = ustd_relay_poll(app->sink.relay);
	for (as = app->streams; as && ret == 0 && !app->closed && app->relayed; as = as->next) {
		if (as->idle && as->stream.open && as->stream.out.sink)
			ret = ustd_relay_send_beacon(app->sink.relay, as->stream.out.handle,
						     as->stream.stream_id, now);
		/* Idle streams too: what relayd has may be confirmed since
		 * (answered later, as a busy stream's are). */
		if (ret == 0 && as->stream.open)
			ret = ustd_stream_confirm_later(&as->stream);
	}
	if (!app->closed)
		app_relay_check(app, ret);
}

void ustd_app_finish(struct ustd_app *app)
{
	if (app->closed)
		return;
	if (!app->hung_up)
		app_read(app);
	if (!app->closed)
		app_end(app, app_process_dead(app) ? APP_END_DEAD : APP_END_LIVE);
}

void ustd_app_free(struct ustd_app *app)
{
	struct ustd_app_stream *as, *next;

	/* Before the streams: the questions relayd owes answers to are
	 * theirs, and the packets being sent are copies the streams own. */
	if (app->relayed)
		app_relay_release(app, true);
	ustd_relay_pending_free(&app->sink.pending);
	ustd_relay_share_put(app->sink.share);
	for (as = app->streams; as; as = next) {
		next = as->next;
		free(as);
	}
	ustd_layouts_free(&app->layouts);
	free(app->stats);
	ustcomm_strbuf_free(&app->metadata);
	free(app->snap_dir);
	free(app->own_output);
	ustd_trigger_detach(app);
	ustcomm_receiver_fini(&app->rx);
	free(app);
}
