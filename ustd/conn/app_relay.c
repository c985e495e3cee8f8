/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include "libustcomm/log.h"
#include "ustd/conn/app_relay.h"
#include "ustd/conn/note.h"
#include "ustd/conn/relay_fallback.h"
#include "ustd/conn/stream_relay.h"
#include "ustd/relay/relay_share.h"

/* The live timer runs while some trace is streamed (ustd.c stops it). */
static void app_relay_live_timer_arm(const struct ustd_ctx *ctx)
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
 * The trace stops streaming. Its own connection closes; a session's stays
 * for the session's other processes, once the sending thread is done with
 * this trace's packets and no answer owed by relayd points at its streams.
 * There, streams left open (close_streams: the trace stopped midway) are
 * closed at relayd, which would otherwise keep live viewers waiting for
 * them until the session ends.
 */
void ustd_app_relay_release(struct ustd_app *app, bool close_streams)
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
void ustd_app_relay_check(struct ustd_app *app, int ret)
{
	if (ret < 0 && app->relayed)
		app_relay_lost(&app->sink);
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
	app->sink.send = ustd_stream_relay_packet;
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
int ustd_app_relay_join(struct ustd_app *app, struct ustd_relay_share *sh)
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
	app_relay_live_timer_arm(app->ctx);
	ustd_app_note(app, "streaming %s to lttng-relayd at %s, session %s, in %s", app->label,
		 sh->text, sh->name, app->relay_path);
	return 0;
}

/*
 * Opens the trace's relay session: one per process, named like the local
 * directory would be, with its metadata stream. When relayd cannot be
 * reached the trace is kept locally instead, and ustd says so.
 */
int ustd_app_relay_open(struct ustd_app *app)
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
	app_relay_live_timer_arm(app->ctx);
	/* relayd does not tell its live port: say where it comes from. */
	if (app->ctx->live_port && app->relay == app->ctx->relay)
		ustd_app_note(app, "streaming %s to lttng-relayd at %s, session %s; live: net://%s:%u/host/%s/%s",
			 app->label, app->relay_text, app->trace_name, app->relay->host,
			 app->ctx->live_port, app->ctx->hostname, app->trace_name);
	else
		ustd_app_note(app, "streaming %s to lttng-relayd at %s, session %s; live, if that relayd serves viewers on its default live port %u (else give ustd --live-port): net://%s:%u/host/%s/%s",
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
void ustd_app_relay_close(struct ustd_app *app)
{
	struct ustd_app_stream *as;
	char unconfirmed[512];
	uint64_t left;
	int tries, ret;

	/* What is still queued goes out first (relay_tx.h). */
	ret = ustd_relay_sync(app->sink.relay);
	ustd_app_relay_check(app, ret);
	for (tries = 0; tries < 200 && app->relayed; tries++) {
		for (as = app->streams; as && ret == 0; as = as->next)
			ret = ustd_stream_confirm(&as->stream);
		ustd_app_relay_check(app, ret);
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
	ustd_app_relay_check(app, ret);
	if (!app->relayed)
		return;
	ustd_app_note(app, "trace of %s is complete at lttng-relayd %s, session %s", app->label,
		 app->relay_text, app_relay_session(app));
	ustd_app_relay_release(app, false);
	ustd_relay_pending_free(&app->sink.pending);
}

/* Announces a new stream to relayd and publishes it to live viewers; if
 * relayd is gone, the trace moves to local files, this stream with it. */
int ustd_app_relay_stream(struct ustd_app *app, struct ustd_app_stream *as)
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
