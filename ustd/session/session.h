/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Layer: ustd/session; may call: ustd/conn, ustd/output, ustd/relay, libustctl, libustcomm
 *
 * Sessions, on top of programs and outputs: what ustctl asks
 * (session_ctl.c), applying a session to programs (session_apply.c), its
 * settings (session_settings.c), rotation and its archives
 * (session_rotate.c, on_rotate.c, session_final.c), a streamed session's
 * relay connection (session_relay.c), its triggers (session_trigger.c),
 * what its traces lost (session_loss.c), its process trackers
 * (session_track.c), snapshots of the whole session (session_snapshot.c),
 * clear-session (session_clear.c), list-sessions NAME (session_status.c),
 * the programs start-session left alone because they trace another
 * session (session_busy.c), freeing and joining (session_life.c), and the
 * files that let sessions outlive ustd (session_persist.c,
 * session_resume.c: libustctl's session files). Sessions drive programs through
 * ustd/conn's app.h, app_rotate.h and trigger.h, and hear from them
 * through struct ustd_app_owner (conn.h), which ustd_sessions_start()
 * fills in. What the session files share is here.
 *
 * Sessions held by ustd: a name, an output directory, channel settings
 * and enable rules that apply to every -lust program of the user, those
 * running when the session starts (session_apply.c) and those started
 * later (they read the published file, libust/session_join.c).
 *
 * A session's trace in one program is an ordinary trace named after the
 * session; ustd files it under OUTPUT/NAME-YYYYMMDD-HHMMSS/<procname>-<pid>/
 * when that program says HELLO (ustd_session_trace_dir()).
 */
#ifndef USTD_SESSION_H
#define USTD_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "libustcomm/ctl_protocol.h"
#include "ustd/conn/conn.h"
#include "ustd/conn/listen_pause.h"

/* What the event loop calls for the sessions' descriptors (their watch's
 * kind is USTD_WATCH_SESSION). */
struct ustd_session_watch {
	struct ustd_watch watch;	/* USTD_WATCH_SESSION */
	void (*fn)(struct ustd_session_watch *w, uint32_t events);
};

enum ustd_session_state {
	USTD_SESSION_CREATED,
	USTD_SESSION_ACTIVE,
	USTD_SESSION_STOPPED,
};

/*
 * One channel's settings, as LOAD_SESSION carries them ("*": every
 * channel). tracefile_* are for the bounded-disk mechanism (not sent to
 * programs: ustd applies them); rotation is the session's (rot).
 */
struct ustd_session_channel {
	char name[64];
	uint32_t subbuf_size, subbuf_num;	/* 0: the default */
	char contexts[512];		/* "vtid,procname" */
	char blocking[32];		/* "" keeps the program's */
	uint64_t tracefile_size, tracefile_count;
};

/* An enable or disable rule: kind, pattern, level, filter, bytecode (hex),
 * the five strings of ENABLE_RULE. */
struct ustd_session_rule {
	char *s[5];
};

struct ustd_rotation_timer;

/*
 * A session's rotation (session_rotate.h): its schedule, and the chunk
 * being written, which began at chunk_begin (its first start, or the last
 * rotation) and is archived as number `chunks`.
 */
struct ustd_session_rotation {
	uint64_t every_us, size;	/* 0: not on a schedule */
	char *on_rotate;		/* --on-rotate's command, or NULL */
	uint64_t on_rotate_timeout_us;
	unsigned chunks;		/* archived so far */
	time_t chunk_begin;		/* 0 before the first start */
	/* What the traces that ended since chunk_begin wrote: their
	 * directories are the chunk's too (session_rotate.c). */
	uint64_t ended_bytes;
	/* Stopped with nothing written since: a second rotation of a
	 * stopped session would archive an empty chunk. */
	bool rotated_since_stop;
	/* session_rotate.c's timerfds, NULL when not armed */
	struct ustd_rotation_timer *every_timer, *size_timer;
	struct ustd_sessions *ss;
};

struct ustd_session_trigger;
struct ustd_loss_tally;

/* A value of a process tracker (session_track.h): kind as
 * ustcomm_track_kind() numbers it, value "" for the mark of a kind that
 * tracks a set. */
struct ustd_session_tracked {
	int kind;
	char value[16];			/* USTCOMM_TRACK_PROCNAME_MAX */
};

struct ustd_session {
	char name[USTCOMM_SESSION_NAME_MAX];
	char *dir;			/* OUTPUT/NAME-YYYYMMDD-HHMMSS */
	struct ustd_relay_share *relay;	/* streamed: session_relay.h; or NULL */
	enum ustd_session_state state;
	bool overwrite;
	/* Buffers per user (--buffers-uid): the processes of one uid share
	 * one set of rings per channel and CPU, which ustd owns
	 * (ustd/conn/uid_buffers.h); else each process has its own. */
	bool per_uid;
	struct ustd_uid_set **uid_sets;	/* session_uid.h */
	size_t nr_uid_sets;
	struct ustd_session_channel *channels;
	size_t nr_channels;
	struct ustd_session_rule *rules;
	size_t nr_rules;
	struct ustd_session_rotation rot;
	struct ustd_session_trigger *triggers;	/* session_trigger.h */
	size_t nr_triggers;
	uint32_t last_trigger_id;	/* numbers are not reused */
	struct ustd_loss_tally *tally;	/* session_loss.h, or NULL */
	struct ustd_session_tracked *tracked;	/* session_track.h */
	size_t nr_tracked;
	struct ustd_session *next;
};

/* Where session_apply.c talks to programs. */
struct ustd_apply_ctx {
	int epfd;
	char apps_dir[4096];
};

/* Every session, and what serving them takes. */
struct ustd_sessions {
	struct ustd_session *list;
	struct ustd_ctx *ctx;
	struct ustd_app **apps;		/* main()'s list */
	struct ustd_apply_ctx apply;
	char sock_path[4200];
	char file_path[4200];
	char keep_dir[4200];		/* session_persist.h */
	int listen_fd;
	int inotify_fd;			/* apps/: programs that appear */
	struct ustd_session_watch listen_watch;
	struct ustd_session_watch inotify_watch;
	struct ustd_listen_pause listen_pause;	/* out of descriptors */
};

struct ustd_session *ustd_session_find(struct ustd_sessions *ss, const char *name);

/* Calls fn for every program whose trace is the session's: what a
 * snapshot or a request to its programs walks. */
void ustd_session_for_each_app(struct ustd_sessions *ss, const struct ustd_session *s,
			       void (*fn)(struct ustd_app *app, void *arg), void *arg);
/* The same, and the traces of its buffers per user (session_uid.h):
 * what a rotation or its size walks. */
void ustd_session_for_each_trace(struct ustd_sessions *ss, const struct ustd_session *s,
				 void (*fn)(struct ustd_app *app, void *arg), void *arg);

/* The requests that apply s to a program (SET_OVERWRITE and LOAD_SESSION),
 * each encoded, or with only the given rules when rules is not NULL. */
int ustd_session_encode_load(const struct ustd_session *s, const struct ustd_session_rule *rules,
			     size_t nr_rules, char **msg, size_t *len);
int ustd_session_encode_overwrite(const struct ustd_session *s, char **msg, size_t *len);
/* SESSION_STATE with the pattern and level of each enable rule (none
 * when they do not fit in one request: the program is then not tested). */
int ustd_session_encode_state(const struct ustd_session *s, char **msg, size_t *len);

/* The settings of channel name, added when missing; NULL when there is
 * no room. */
struct ustd_session_channel *ustd_session_channel(struct ustd_session *s, const char *name);
/* Copies the five strings of a rule in. 0, -ENOSPC or -ENOMEM. */
int ustd_session_add_rule(struct ustd_session *s, const char *const *five);
/* The tracked values, KIND and VALUE each, into args (2 per value);
 * returns how many strings. */
size_t ustd_session_trackers_args(const struct ustd_session *s, const char **args);
/* The published file's SESSION_TRACKERS request of s; 0 without a
 * tracker (*msg NULL), or a negative errno. */
int ustd_session_encode_trackers(const struct ustd_session *s, char **msg, size_t *len);
/*
 * Watches apps/ for programs that start, from the first session that
 * becomes active on (none before: closing a watch waits for a grace
 * period of the kernel's, 5 to 15 ms of ustd's exit that usttrace would
 * wait for, and every watch counts against the user's inotify
 * instances). Reports a failure.
 */
int ustd_sessions_watch_apps(struct ustd_sessions *ss);
/* Rewrites the file of active sessions; reports a failure. */
int ustd_sessions_publish(struct ustd_sessions *ss);
int ustd_session_make_dir(struct ustd_session *s, const char *output);
/* Out of the list; its programs' traces no longer belong to it. */
void ustd_session_unlink(struct ustd_sessions *ss, struct ustd_session *s);

#endif
