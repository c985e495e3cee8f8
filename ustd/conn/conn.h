/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Layer: ustd/conn; may call: ustd/relay, ustd/output, libustcomm
 *
 * A program's connection to ustd and its streams: the protocol (app.c,
 * handshake.c, accept.c, listen_pause.c), the drain of its buffers into
 * its outputs (stream.c, app_rotate.c), a flight recorder's buffers
 * cleared (app_clear.c), the rescue of a dead program's
 * packets (rescue.c, layouts.c), programs found again (adopt.c,
 * orphan.c), a full disk waited out (space_wait.c) or counted
 * (app_lost.c), a relayed trace and its local fallback (app_relay.c,
 * relay_fallback.c) and trigger channels (trigger.c). What the files share
 * is here: the event loop's watches, ustd's context and one application.
 *
 * The sessions above (ustd/session) drive programs through app.h,
 * app_rotate.h, app_clear.h and trigger.h; conn tells them what happened through
 * struct ustd_app_owner, which they fill in, and never calls them.
 */
#ifndef USTD_CONN_H
#define USTD_CONN_H

#include <stdbool.h>
#include <sys/types.h>
#include "libustcomm/protocol.h"
#include "libustcomm/relay_url.h"
#include "libustcomm/strbuf.h"
#include "ustd/conn/layouts.h"
#include "ustd/relay/relay.h"
#include "ustd/conn/stream.h"
#include "ustd/output/trace_dir.h"

/* What the event loop finds in epoll_event.data.ptr: the first member of
 * every object registered in the epoll set. */
enum ustd_watch_kind {
	USTD_WATCH_LISTEN,
	USTD_WATCH_SIGNAL,
	USTD_WATCH_APP,
	USTD_WATCH_STREAM,
	USTD_WATCH_ADOPT,		/* ustd/conn/adopt.h */
	USTD_WATCH_ADOPT_TIMER,
	USTD_WATCH_LIVE_TIMER,		/* relayed traces' live timer */
	USTD_WATCH_SESSION,		/* ustd/session/session.h: calls its fn */
	USTD_WATCH_TRIGGER,		/* ustd/conn/trigger.h */
	USTD_WATCH_SPACE_TIMER,		/* ustd/conn/space_wait.h */
	USTD_WATCH_LISTEN_RETRY,	/* ustd/conn/listen_pause.h */
	USTD_WATCH_HANDSHAKE_TIMER,	/* ustd/conn/handshake.h */
	USTD_WATCH_UID_TIMER,		/* ustd/conn/uid_set.h */
};

struct ustd_watch {
	enum ustd_watch_kind kind;
};

struct ustd_app;
struct ustd_app_stream;
struct ustd_uid_set;
struct ustd_sessions;
struct ustd_session;
struct ustd_relay_share;
struct ustd_loss_tally;

/*
 * What a program's trace asks of the sessions above (ustd/session), and
 * how it tells them what happened: set by ustd_sessions_start(), called
 * with ctx->sessions or app->session, which conn holds without knowing
 * what they are.
 */
struct ustd_app_owner {
	/* HELLO of a trace named trace_name: when it is a streamed
	 * session's, files app under the session and returns its relay
	 * connection; else NULL. */
	struct ustd_relay_share *(*relay)(struct ustd_sessions *ss, struct ustd_app *app,
					  const char *trace_name);
	/* HELLO of a local trace named trace_name: when it is a session's,
	 * creates its directory in td and files app under the session. 1
	 * when the trace is a session's, 2 when it is a session's with
	 * buffers per user (app->uid_set is set, td is not: the set's trace
	 * has the directory), 0 when not, or a negative errno. */
	int (*trace_dir)(struct ustd_sessions *ss, struct ustd_app *app, const char *trace_name,
			 struct ustd_trace_dir *td);
	/* The file limits of channel in session s (NULL: none) to tf. */
	void (*stream_limits)(const struct ustd_session *s, const char *channel,
			      struct ustd_tracefile *tf);
	/* s's count of what its stopped traces lost, made at its first
	 * need; NULL without memory. Not a new reference (app_lost.h). */
	struct ustd_loss_tally *(*tally)(struct ustd_session *s);
	/* A trigger of app fired with snapshot directory dir: 1 when it is
	 * one of its session's triggers (then handled there), else 0. */
	int (*trigger_fired)(struct ustd_app *app, const char *dir);
	/* The connection of app, whose trace is app->session's, ended: what
	 * its streams wrote is final (a session's size rotation counts it). */
	void (*trace_ended)(struct ustd_app *app);
};

/*
 * What the code that cuts a program's streams for its session (a
 * rotation, app_rotate.c) asks of its connection: set by app.c, so that
 * a cut calls none of the protocol, relayd or the full-disk wait.
 */
struct ustd_app_ops {
	/* Handles every message the program sent so far (metadata, new
	 * streams, its end), as a stream's wakeup does before a drain. */
	void (*take_sent)(struct ustd_app *app);
	/* A drain found the stream's buffer corrupted (said): closes it. */
	void (*close_stream)(struct ustd_app_stream *as);
	/* Stops the trace after err, as a write error does (said once). */
	void (*fail)(struct ustd_app *app, int err);
};

/* What a member's connection asks of its set of buffers per user
 * (uid_set.h's functions, which call into app.c: through these, app.c
 * does not depend on uid_set.c). */
struct ustd_uid_member_ops {
	int (*on_channel)(struct ustd_uid_set *set, struct ustd_app *member,
			  const struct ustcomm_uid_channel *req);
	int (*on_event)(struct ustd_uid_set *set, struct ustd_app *member,
			const struct ustcomm_msg *msg);
	void (*member_ended)(struct ustd_uid_set *set, bool flushed);
};

/* What every application shares, set up by main(). */
struct ustd_ctx {
	int epfd;
	const char *output;		/* traces, or the fallback when relayed */
	/* Stream every trace to this lttng-relayd (text: as the user wrote
	 * it), or NULL for local files. */
	const struct ustcomm_relay_url *relay;
	const char *relay_text;
	uint32_t live_timer_us;		/* 0: relay sessions are not live */
	uint64_t relay_backlog;		/* --relay-backlog (relay_pending.h) */
	/* The port --relay's relayd serves live viewers on, as --live-port
	 * said; 0 when not given (ustd cannot ask relayd). */
	uint16_t live_port;
	/* The live timer (USTD_WATCH_LIVE_TIMER), armed while a trace is
	 * streamed; -1 when live_timer_us is 0. */
	int live_fd;
	char hostname[USTD_RELAY_HOSTNAME_MAX];	/* as relay sessions name it */
	bool verbose;
	bool stats;			/* --stats: report each trace's drain */
	/* The sessions above (ustd/session), and what a trace asks of
	 * them: both set by ustd_sessions_start(). */
	struct ustd_sessions *sessions;
	const struct ustd_app_owner *owner;
	struct ustd_space_wait *space_wait;	/* ustd/conn/space_wait.h */
	/* Where the stream files being written are marked (write_mark.h). */
	const struct ustd_write_marks *marks;
};

struct ustd_app;
struct ustd_space_wait;
struct ustd_loss_tally;

struct ustd_app_stream {
	struct ustd_watch watch;	/* USTD_WATCH_STREAM */
	struct ustd_app *app;
	struct ustd_stream stream;
	uint64_t snap_limit;		/* write position taken for a snapshot */
	uint64_t rot_limit;		/* write position taken for a rotation */
	uint64_t chunk_base;		/* stream.out.written when the chunk began */
	/* A ring per user's: the write position when a writer died, before
	 * which no live writer is left once the grace is over (uid_set.c). */
	uint64_t stall_limit;
	bool idle;			/* nothing to send at the last live tick */
	struct ustd_app_stream *next;
};

struct ustd_app {
	struct ustd_watch watch;	/* USTD_WATCH_APP */
	const struct ustd_ctx *ctx;
	const struct ustd_app_ops *ops;	/* app.c's */
	int sock;
	/* pidfd_open(pid), also in the epoll set (as the socket's watch), so
	 * that ustd sees the death even when a child inherited the socket;
	 * -1 where the kernel has none. */
	int pidfd;
	pid_t pid;			/* SO_PEERCRED, in ustd's pid namespace */
	uid_t uid;			/* SO_PEERCRED */
	/* Buffers per user (uid_set.h): the set whose rings the program
	 * writes into, when it is a member; its own streams it has none. */
	struct ustd_uid_set *uid_set;
	const struct ustd_uid_member_ops *uid_ops;	/* the set's, for app.c */
	/* The set's own trace: its rings' streams, its directory and the
	 * metadata ustd writes; no socket, no process (uid_set.c). */
	bool uid_sink;
	uint64_t accepted_ms;		/* ustd_app_now_ms(): HELLO is due (handshake.h) */
	uint8_t uuid[16];		/* the trace's, from HELLO */
	char procname[32];
	char label[48];			/* "procname[pid]", or "pid N" before HELLO */
	struct ustcomm_receiver rx;
	uint32_t clock;			/* enum ustcomm_clock_kind, from HELLO */
	time_t started;			/* HELLO: names the trace */
	/* Where the trace goes, from HELLO's output or else ustd's options:
	 * a relayd (NULL for local files, text as the user wrote it), and the
	 * directory of local traces and of relayd's fallback. */
	const struct ustcomm_relay_url *relay;
	const char *relay_text;
	const char *dir;
	struct ustcomm_relay_url own_url;
	char *own_output;		/* HELLO's output, when it named one */
	struct ustd_trace_dir td;	/* local trace, or relayd's fallback */
	/* Streaming to relayd: the session, and every piece of metadata sent,
	 * kept to start the local fallback with if relayd goes away. */
	bool relayed;
	struct ustd_sink sink;
	uint64_t meta_handle;
	struct ustcomm_strbuf metadata;
	char trace_name[USTD_TRACE_NAME_MAX];
	char relay_path[USTD_RELAY_PATH_MAX + 1];
	struct ustd_app_stream *streams;
	struct ustd_layouts layouts;	/* from EVENT_LAYOUT, for crash rescue */
	struct ustd_drain_stats *stats;	/* ustd --stats, else NULL */
	char *snap_dir;			/* SNAPSHOT received, not answered yet */
	unsigned snap_count;		/* snapshots written, for their names */
	struct ustd_trigger_chan *trigger;	/* ustd/conn/trigger.h, or NULL */
	bool ending;			/* in app_end(): its socket is not read again */
	bool said_hello;
	bool flushed;			/* GOODBYE received */
	bool stopped;			/* trace stopped by an error */
	/* Stopped by a full disk, to be asked back (space_wait.h): the
	 * connection is closed after the epoll batch (ustd_app_release()). */
	bool release;
	/* The socket ended without GOODBYE while the process still runs:
	 * waiting for its pidfd to tell the death before the rescue. */
	bool hung_up;
	bool closed;			/* connection gone; free after the epoll batch */
	/* An orphan's (orphan.h): where the image of the buffer of the
	 * STREAM being taken lies in the file it came with; -1 for a program
	 * that sent a memfd. */
	int64_t orphan_image;
	/* The session whose trace this is (session.h), or NULL. */
	struct ustd_session *session;
	/* Stopped by a write error: the session's count of what such traces
	 * lose (session_loss.h), kept after the session is destroyed. */
	struct ustd_loss_tally *tally;
	struct ustd_app *next;		/* main()'s list */
};

#endif
