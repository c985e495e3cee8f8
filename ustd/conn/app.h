/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One connected application: its socket and protocol state, its trace
 * directory and its streams. ustd only ever reads from an application;
 * nothing it does can make the application wait.
 */
#ifndef USTD_APP_H
#define USTD_APP_H

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
};

struct ustd_watch {
	enum ustd_watch_kind kind;
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
	struct ustd_sessions *sessions;	/* ustd/session/session.h */
	struct ustd_space_wait *space_wait;	/* ustd/conn/space_wait.h */
};

struct ustd_app;
struct ustd_sessions;
struct ustd_space_wait;
struct ustd_session;
struct ustd_loss_tally;

struct ustd_app_stream {
	struct ustd_watch watch;	/* USTD_WATCH_STREAM */
	struct ustd_app *app;
	struct ustd_stream stream;
	uint64_t snap_limit;		/* write position taken for a snapshot */
	uint64_t rot_limit;		/* write position taken for a rotation */
	uint64_t chunk_base;		/* stream.out.written when the chunk began */
	bool idle;			/* nothing to send at the last live tick */
	struct ustd_app_stream *next;
};

struct ustd_app {
	struct ustd_watch watch;	/* USTD_WATCH_APP */
	const struct ustd_ctx *ctx;
	int sock;
	/* pidfd_open(pid), also in the epoll set (as the socket's watch), so
	 * that ustd sees the death even when a child inherited the socket;
	 * -1 where the kernel has none. */
	int pidfd;
	pid_t pid;			/* SO_PEERCRED, in ustd's pid namespace */
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

/* CLOCK_MONOTONIC in milliseconds. */
uint64_t ustd_app_now_ms(void);

/* Drops a connection that did not say HELLO in time (handshake.h). */
void ustd_app_drop_late(struct ustd_app *app);

/* Closes the connection of an application whose trace waits for space
 * (app->release), leaving its buffers to it. */
void ustd_app_release(struct ustd_app *app);

/* Adds an accepted connection to the epoll set. Takes ownership of sock,
 * also on failure (NULL). */
struct ustd_app *ustd_app_new(const struct ustd_ctx *ctx, int sock, pid_t pid);

/* An orphan (orphan.h) of the program pid: an application with no socket
 * and no process, whose messages ustd_app_take() hands over. */
struct ustd_app *ustd_app_new_orphan(const struct ustd_ctx *ctx, pid_t pid);
/* One message of an orphan, as if read from its socket; a STREAM's fds[0]
 * is the orphan's file, with the buffer's image at image_at. 0, or a
 * negative errno when it breaks the protocol (said; the application is
 * ended). */
int ustd_app_take(struct ustd_app *app, struct ustcomm_msg *msg, uint64_t image_at);
/* The orphan's messages are all taken: what its buffers hold is written
 * out as a dead program's (rescue.h). */
void ustd_app_end_orphan(struct ustd_app *app);

/* The socket is readable or hung up, or the process died (pidfd): handles
 * every message it has, answers a snapshot request, and when the process
 * died without GOODBYE rescues what its buffers hold. */
void ustd_app_on_socket(struct ustd_app *app);

/* A stream's wakeup is readable: handles the application's pending
 * messages first, so that metadata precedes the events using it on disk,
 * then drains the stream. */
void ustd_app_on_stream(struct ustd_app_stream *as);

/* A trigger fired: closes the open packets of app's flight-recorder
 * streams and writes a snapshot under dir ("" for ustd's output), as a
 * SNAPSHOT request would. 0 or a negative errno (said). */
int ustd_app_snapshot_now(struct ustd_app *app, const char *dir);

/* Rotation (app_rotate.c): drains as up to limit; true while a packet
 * ending before limit is left (at most a ring is taken a call). */
bool ustd_app_drain_to(struct ustd_app_stream *as, uint64_t limit);
/* Stops the trace after err, as a write error does (said once). */
void ustd_app_fail(struct ustd_app *app, int err);

/*
 * The session's chunk ends: closes the open packets of app's streams,
 * writes them out, moves app's trace directory into the directory chunk
 * and goes on in a fresh one. 0, or a negative errno (said; the trace of
 * app is stopped).
 */
int ustd_app_rotate(struct ustd_app *app, const char *chunk);

/* The live timer ticked: closes the open packets of a relayed trace's
 * streams and sends them, and tells relayd which streams are idle. */
void ustd_app_on_live_tick(struct ustd_app *app);

/* A -v message: what ustd is doing, as opposed to what went wrong. */
__attribute__((format(printf, 2, 3)))
void ustd_app_note(const struct ustd_app *app, const char *fmt, ...);

/* The live timer runs while some trace is streamed (ustd.c stops it). */
void ustd_app_live_timer_arm(const struct ustd_ctx *ctx);

/* ustd is exiting: takes everything the application sent and every
 * complete packet, then closes. */
void ustd_app_finish(struct ustd_app *app);

/* Frees a closed application; only between epoll batches, since events of
 * the current batch may still point at it. */
void ustd_app_free(struct ustd_app *app);

#endif
