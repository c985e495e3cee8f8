/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "libustcomm/rundir.h"
#include "libustcomm/clock.h"
#include "libustcomm/log.h"
#include "libustcomm/trace_output.h"
#include "ustd/conn/app.h"
#include "ustd/conn/app_lost.h"
#include "ustd/conn/app_relay.h"
#include "ustd/conn/note.h"
#include "ustd/conn/trigger.h"
#include "ustd/relay/relay_share.h"
#include "ustd/conn/space_wait.h"
#include "ustd/conn/stream_takeover.h"

/*
 * A busy relayed stream asks relayd what it has written once this many
 * packets are unconfirmed (and on every live tick), without waiting for
 * the answer: a relayd starved of CPU by the writers answered a round
 * trip in milliseconds, during which the rings filled.
 */
#define APP_CONFIRM_EVERY	4

static void app_close_stream(struct ustd_app_stream *as)
{
	struct ustd_stream *s = &as->stream;

	/* The application still holds the eventfd: closing ours would not
	 * take it out of the epoll set. A held stream's is out already. */
	if (s->open)
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

/* The bytes a trace of app's waits for before it is asked back: its
 * buffers, which hold what it recorded since, and a MiB for metadata. */
static uint64_t app_space_need(const struct ustd_app *app)
{
	const struct ustd_app_stream *as;
	uint64_t need = 1u << 20;

	for (as = app->streams; as; as = as->next)
		need += (uint64_t)as->stream.cb.subbuf_size * as->stream.cb.subbuf_count;
	return need;
}

/* A full disk pauses a trace of its own (not a session's, nor one streamed
 * to relayd) until there is room again: space_wait.h. The wait holds its
 * rings, to count what is lost if the process ends meanwhile. */
static bool app_wait_for_space(struct ustd_app *app, int err)
{
	uint64_t need;

	if ((err != -ENOSPC && err != -EDQUOT) || app->stopped || app->session ||
	    app->relayed || app->ending || !app->ctx->space_wait || !app->td.path)
		return false;
	need = app_space_need(app);
	ustd_app_hold_streams(app);
	if (ustd_space_wait_add(app->ctx->space_wait, app->pid, app->dir, need,
				ustd_app_take_rings(app)) < 0)
		return false;
	ustcomm_err("cannot write trace %s: %s; tracing of %s paused, other traces continue; once %s has %llu MiB free, ustd picks it up again in a new directory, with what its buffers still hold (they discard and count what does not fit meanwhile)",
		    app_where(app), strerror(-err), app->label, app->dir,
		    (unsigned long long)(need >> 20));
	app->release = true;
	return true;
}

/* What a stopped trace loses, as its stop says it. */
static const char *app_lost_words(const struct ustd_app *app)
{
	static char words[256];

	snprintf(words, sizeof(words),
		 "; %" PRIu64 " events its buffers held or discarded are lost, and every event it records from now on (%s)",
		 ustd_app_lost(app),
		 app->session ? "counted by stop-session and destroy-session" : "counted when it ends");
	return words;
}

/* A write error ends this trace only: the application keeps running, its
 * buffers fill and discard, and ustd keeps serving the others. */
static void app_stop_trace(struct ustd_app *app, int err)
{
	/* Stopped already: said so then (the relay fallback may stop a
	 * trace while a stream of it is in use, and leave the rest to us).
	 * A session outlives the error: what becomes of its process is said. */
	if (!app_wait_for_space(app, err) && !app->stopped) {
		if (!app->relayed)
			ustd_app_hold_streams(app);
		if (app->session && !app->relayed)
			app->tally = ustd_loss_tally_get(app->ctx->owner->tally(app->session));
		ustcomm_err("cannot write trace %s: %s; tracing of %s stopped, other traces continue%s%s",
			    app_where(app), strerror(-err), app->label,
			    app->session ? "; what it wrote stays whole (in the session's next chunk if the session rotates), and the process is traced again only once restarted" : "",
			    app->relayed ? "" : app_lost_words(app));
	}
	/* A writer waiting for room (a blocking timeout, even "inf") stops
	 * waiting once it sees the connection's write side closed
	 * (ring_buffer_wait.c, POLLRDHUP); nobody frees room any more. The
	 * program's messages still reach us. A paused trace's connection is
	 * closed whole after the epoll batch. */
	if (!app->stopped && !app->release && app->sock >= 0 && !app->hung_up &&
	    shutdown(app->sock, SHUT_WR) < 0)
		ustcomm_dbg("%s: closing the connection's write side: %s", app->label,
			    strerror(errno));
	app->stopped = true;
	if (app->relayed)
		app_close_streams(app);
	app_close_trace_dir(app);
	if (app->relayed)
		ustd_app_relay_release(app, true);
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

/* True once the process is gone; false when it runs or cannot be told. */
static bool app_process_dead(const struct ustd_app *app)
{
	struct pollfd pfd = { .fd = app->pidfd, .events = POLLIN };

	return app->pidfd >= 0 && poll(&pfd, 1, 0) > 0;
}

/*
 * A program that died (crash, _exit(), a signal) left its control socket
 * in apps/, which only its destructor removes: a forking service's
 * workers would fill the directory. Removed once the process is gone,
 * so that no newer process of the same number loses its own.
 */
static void app_remove_dead_socket(const struct ustd_app *app)
{
	char path[PATH_MAX];
	int n;

	/* Exited (a zombie's number is not given to another process yet),
	 * or reaped already. */
	if (!app_process_dead(app) && (kill(app->pid, 0) == 0 || errno != ESRCH))
		return;
	if (ustcomm_apps_dir(path, sizeof(path)) < 0)
		return;
	n = (int)strlen(path);
	if (snprintf(path + n, sizeof(path) - (size_t)n, "/%d", (int)app->pid) <
	    (int)(sizeof(path) - (size_t)n))
		unlink(path);
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
		ustd_app_relay_close(app);
	ustd_app_lost_end(app);
	app_close_streams(app);
	app_remove_dead_socket(app);
	if (app->td.path && app->td.metadata_len) {
		if (how == APP_END_DEAD)
			ustd_app_note(app, "%s died without flushing its buffers: its last packets were rescued, unfinished events are counted as discarded",
				 app->label);
		else if (how == APP_END_LIVE)
			ustd_app_note(app, "%s did not flush its buffers: its last, partial packets are not in the trace",
				 app->label);
		ustd_app_note(app, "trace of %s is complete in %s", app->label, app->td.path);
	}
	app_close_trace_dir(app);
	if (!app->hung_up)
		epoll_ctl(app->ctx->epfd, EPOLL_CTL_DEL, app->sock, NULL);
	if (app->sock >= 0)
		close(app->sock);
	app->sock = -1;
	if (app->pidfd >= 0) {
		epoll_ctl(app->ctx->epfd, EPOLL_CTL_DEL, app->pidfd, NULL);
		close(app->pidfd);
		app->pidfd = -1;
	}
	if (app->uid_set)
		app->uid_ops->member_ended(app->uid_set, how == APP_END_GOODBYE);
	if (app->session)
		app->ctx->owner->trace_ended(app);
	app->closed = true;
}

void ustd_app_end_flushed(struct ustd_app *app)
{
	if (!app->closed)
		app_end(app, APP_END_GOODBYE);
}

void ustd_app_release(struct ustd_app *app)
{
	if (!app->closed)
		app_end(app, APP_END_LIVE);
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
	share = app->ctx->owner->relay(app->ctx->sessions, app, hello->trace_name);
	if (share ? ustd_app_relay_join(app, share) == 0 : app->relay && ustd_app_relay_open(app) == 0)
		return 0;
	if (share) {
		ret = ustd_trace_dir_create_proc(&app->td, app->dir, app->procname, app->pid);
	} else {
		ret = app->relay ? 0 : app->ctx->owner->trace_dir(app->ctx->sessions, app,
								  hello->trace_name, &app->td);
		if (ret == 2) {
			ustd_app_note(app, "tracing %s into the buffers of uid %u",
				      app->label, (unsigned)app->uid);
			return 0;
		}
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
	ustd_app_note(app, "tracing %s into %s", app->label, app->td.path);
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

/* The stream's file, once a killed ustd's file of it is repaired: a
 * program's HELLO carries the uuid of its trace, the same after it came
 * back to a new ustd. */
static int app_stream_file(struct ustd_app *app, struct ustd_stream *s)
{
	s->marks = app->ctx->marks;
	s->uuid = app->uuid;
	s->pid = app->pid;
	ustd_stream_take_over(s, &app->layouts, app->label);
	return ustd_stream_create_file(s, &app->td);
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
	ret = app->orphan_image >= 0 ?
		ustd_stream_map_image(&as->stream, desc, shm_fd, (uint64_t)app->orphan_image,
				      wakeup_fd) :
		ustd_stream_map(&as->stream, desc, shm_fd, wakeup_fd);
	if (ret < 0) {
		free(as);
		*why = "STREAM buffer that cannot be mapped";
		return ret;
	}
	as->stream.stats = app->stats;
	app->ctx->owner->stream_limits(app->session, desc->channel, &as->stream.out.tf);
	if (app_has_stream(app, as->stream.name))
		ret = -EEXIST;
	else if (app->relayed)
		ret = ustd_app_relay_stream(app, as);
	else
		ret = app_stream_file(app, &as->stream);
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
		ustd_app_relay_check(app, ret);
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
	case USTCOMM_MSG_UID_CHANNEL: {
		const struct ustcomm_uid_channel *req;

		ret = ustcomm_check_uid_channel(msg, &req);
		if (ret < 0 || !app->uid_set) {
			*why = ret < 0 ? "invalid UID_CHANNEL" : "UID_CHANNEL from a process without buffers per user";
			ret = -EPROTO;
			break;
		}
		ret = app->uid_ops->on_channel(app->uid_set, app, req);
		if (ret < 0)
			*why = "the answer to UID_CHANNEL could not be sent";
		break;
	}
	case USTCOMM_MSG_UID_EVENT:
		if (!app->uid_set) {
			*why = "UID_EVENT from a process without buffers per user";
			ret = -EPROTO;
			break;
		}
		ret = app->uid_ops->on_event(app->uid_set, app, msg);
		if (ret < 0)
			*why = ret == -EPROTO ? "invalid UID_EVENT" :
				"the answer to UID_EVENT could not be sent";
		break;
	case USTCOMM_MSG_METADATA:
		/* A member's events are the set's, which ustd describes. */
		if (app->uid_set)
			break;
		if (app->stopped || msg->payload_len == 0)
			break;
		ret = app_metadata(app, msg->payload, msg->payload_len);
		if (ret < 0)
			app_stop_trace(app, ret);
		ret = 0;
		break;
	case USTCOMM_MSG_STREAM:
		if (app->uid_set) {
			*why = "STREAM from a process with buffers per user";
			ret = -EPROTO;
			break;
		}
		ret = app_handle_stream(app, msg, why);
		break;
	case USTCOMM_MSG_EVENT_LAYOUT: {
		const struct ustcomm_event_layout *el;

		ret = ustcomm_check_event_layout(msg, &el);
		if (ret < 0) {
			*why = "invalid EVENT_LAYOUT";
			break;
		}
		if (app->uid_set)
			break;
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
		ret = ustd_trigger_attach(app, msg->fds[0], ustd_app_snapshot_now);
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
			 * hang-up is taken as the death. Without streams there
			 * is nothing to rescue: the connection and its pidfd
			 * go at once, or every client that connects and closes
			 * would cost two descriptors until it exits.
			 */
			if (!app->streams) {
				app_end(app, app_process_dead(app) ? APP_END_DEAD : APP_END_LIVE);
				return;
			}
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
	int ret, pub;

	if (!parent[0])
		parent = app->dir;
	for (as = app->streams; as; as = as->next) {
		if (as->stream.open && as->stream.overwrite)
			as->snap_limit = ustd_stream_write_position(&as->stream);
	}
	/* Nothing to read from an orphan or the sink of buffers per user. */
	if (!app->ending && !app->hung_up)
		app_read(app);
	if (app->closed)
		return -ECONNRESET;
	if (!app->td.path) {
		snprintf(text, text_size, "%s", app->relayed ?
			 "this trace is streamed to lttng-relayd: snapshots are taken of local traces only" :
			 "tracing of this process by ustd stopped after an error (see ustd's messages)");
		return app->relayed ? -EOPNOTSUPP : -EIO;
	}
	ret = ustd_trace_dir_snapshot(&app->td, parent, &snap);
	if (ret < 0) {
		snprintf(text, text_size, "cannot create a snapshot directory in %s: %s",
			 parent, strerror(-ret));
		return ret;
	}
	for (as = app->streams; as && ret == 0; as = as->next) {
		if (!as->stream.open || !as->stream.overwrite)
			continue;
		out = (struct ustd_stream_out) { .fd = -1, .idx_fd = -1 };
		ret = ustd_stream_out_create_once(&out, &snap, as->stream.name);
		if (ret < 0)
			break;
		ret = ustd_stream_write_ring(&as->stream, &out, as->snap_limit, NULL);
		ustd_stream_out_close(&out);
		if (ret > 0)
			ret = -EPROTO;
	}
	/* Published even when incomplete: what was written is kept, and
	 * the error says what is missing. */
	pub = ustd_trace_dir_snapshot_publish(&app->td, &snap, parent, &n);
	if (pub == 0)
		app->snap_count = n;
	if (ret < 0)
		snprintf(text, text_size, "cannot write the snapshot in %s: %s", snap.path,
			 strerror(-ret));
	else if (pub < 0)
		snprintf(text, text_size, "cannot give the snapshot in %s its name in %s: %s",
			 snap.path, parent, strerror(-pub));
	else
		snprintf(text, text_size, "%s", snap.path);
	ustd_trace_dir_close(&snap);
	return ret < 0 ? ret : pub;
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
		ustd_app_note(app, "snapshot of %s in %s", app->label, done->text);
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
		ustd_app_note(app, "trigger: snapshot of %s in %s", app->label, text);
	return ret;
}

/* After reading the socket: requests read there are answered now. */
static void app_serve_snapshots(struct ustd_app *app)
{
	while (!app->closed && !app->hung_up && app->snap_dir)
		app_snapshot(app);
}

uint64_t ustd_app_now_ms(void)
{
	return ust_clock_read_kind(0) / 1000000;
}

void ustd_app_drop_late(struct ustd_app *app)
{
	if (app->closed || app->said_hello)
		return;
	ustcomm_dbg("%s connected %llu ms ago and has not said HELLO: connection dropped",
		    app->label, (unsigned long long)(ustd_app_now_ms() - app->accepted_ms));
	app_end(app, APP_END_LIVE);
}

static const struct ustd_app_ops app_ops = {
	.take_sent = ustd_app_on_socket,
	.close_stream = app_close_stream,
	.fail = app_stop_trace,
};

static struct ustd_app *app_alloc(const struct ustd_ctx *ctx, int sock, pid_t pid)
{
	struct ustd_app *app = calloc(1, sizeof(*app));

	if (!app)
		return NULL;
	app->watch.kind = USTD_WATCH_APP;
	app->ctx = ctx;
	app->ops = &app_ops;
	app->sock = sock;
	app->pidfd = -1;
	app->pid = pid;
	app->accepted_ms = ustd_app_now_ms();
	snprintf(app->label, sizeof(app->label), "pid %d", (int)pid);
	app->td.metadata_fd = -1;
	app->sink.relay = &app->sink.own;
	app->orphan_image = -1;
	ustcomm_receiver_init(&app->rx);
	return app;
}

struct ustd_app *ustd_app_new_orphan(const struct ustd_ctx *ctx, pid_t pid)
{
	struct ustd_app *app = app_alloc(ctx, -1, pid);

	/* No socket to read, nor process to watch: ended as hung up. */
	if (app)
		app->hung_up = true;
	return app;
}

int ustd_app_take(struct ustd_app *app, struct ustcomm_msg *msg, uint64_t image_at)
{
	const char *why = "invalid message";
	int ret;

	if (app->closed)
		return -EPIPE;
	app->orphan_image = (int64_t)image_at;
	ret = app_handle_msg(app, msg, &why);
	if (ret < 0)
		app_protocol_error(app, why);
	return ret;
}

void ustd_app_end_orphan(struct ustd_app *app)
{
	if (!app->closed)
		app_end(app, APP_END_DEAD);
}

struct ustd_app *ustd_app_new(const struct ustd_ctx *ctx, int sock, pid_t pid)
{
	struct ustd_app *app;
	struct epoll_event ev;

	app = app_alloc(ctx, sock, pid);
	if (!app) {
		ustcomm_err("out of memory: connection of pid %d refused", (int)pid);
		goto error;
	}
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
		ustd_app_relay_check(app, ret);
	}
}

void ustd_app_on_live_tick(struct ustd_app *app)
{
	struct ustd_app_stream *as;
	uint64_t now;
	int ret = 0;

	/* A dead application's packets are the rescue's, not ours to close;
	 * the set of buffers per user has no process, and its writers'
	 * deaths are its own affair (uid_set.c). */
	if (app->closed || !app->relayed || (app->hung_up && !app->uid_sink) ||
	    app_process_dead(app))
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
		ustd_app_relay_check(app, ret);
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
		ustd_app_relay_release(app, true);
	ustd_relay_pending_free(&app->sink.pending);
	ustd_relay_share_put(app->sink.share);
	ustd_loss_tally_put(app->tally);
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
