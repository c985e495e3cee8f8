/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Rotation of a session: its current chunk (every process's trace
 * directory since the first start or the last rotation, and those of the
 * processes that ended meanwhile) is closed off and moved to
 * <session dir>/archives/<begin>-<end>-<n>/, a complete trace of its own,
 * while tracing goes on in fresh directories. On demand (rotate-session),
 * every period (--rotate-every, a timerfd) or once the chunk holds a size
 * (--rotate-size, checked by a timerfd every ROTATE_SIZE_CHECK_MS: what
 * the running processes wrote since the chunk began, and what those that
 * ended meanwhile wrote in it, kept when they end); then
 * --on-rotate's command runs on the chunk (on_rotate.h).
 */
#ifndef USTD_SESSION_ROTATE_H
#define USTD_SESSION_ROTATE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "ustd/session/chunk_publish.h"
#include "ustd/session/session.h"

/* A new session's: no schedule. */
void ustd_rotation_init(struct ustd_session *s, struct ustd_sessions *ss);
/* Closes the timers, frees the command. */
void ustd_rotation_fini(struct ustd_session *s);

/* The schedule (checked by the caller; cmd NULL or "" for none), armed
 * at once on an active session. 0 or a negative errno. */
int ustd_rotation_set(struct ustd_session *s, uint64_t every_us, uint64_t size, const char *cmd,
		      uint64_t timeout_us);

/* The trace of app, a process of a session, ended (ustd_app_owner's
 * trace_ended): what it wrote since the chunk began counts toward
 * --rotate-size as the running processes' does. */
void ustd_rotation_trace_ended(struct ustd_app *app);

/* Frees the timers and --on-rotate commands that ended: after each epoll
 * batch, which may still name them. */
void ustd_rotation_reap(void);

/* start-session and stop-session: the schedule runs while active. */
void ustd_rotation_started(struct ustd_session *s);
void ustd_rotation_stopped(struct ustd_session *s);

/*
 * Rotates s now: 0 with the archived chunk's path in out, 1 when the
 * chunk is published once its files are whole (chunk_publish.h: r is
 * told its path then; NULL: nobody), or a negative errno with the reason
 * in out: -ENODATA when there was nothing to archive (no process traced
 * for it since the last rotation, or, when scheduled, none wrote
 * anything: ustd_app_rotate()).
 */
int ustd_session_rotate(struct ustd_session *s, bool scheduled, struct ustd_rotate_reply *r,
			char *out, size_t size);

/* The entries of session directory sdir but archives/ and hidden ones
 * that no process writes in any more (those of processes that ended)
 * moved into chunk: what a rotation and clear-session take. 0 or a
 * negative errno. */
int ustd_session_move_ended(struct ustd_sessions *ss, const char *sdir, const char *chunk);

/* s's current chunk, pointing into s. */
void ustd_rotation_chunk_end(const struct ustd_session *s, struct ustd_chunk_end *e);

/*
 * The last chunk, once no process writes in it any more (the session is
 * destroyed): everything in the session directory but archives/ moves into
 * a chunk, as a rotation would, and --on-rotate runs on it. 0 with the
 * chunk's path in out, or a negative errno with the reason: -ENODATA when
 * there was nothing to archive.
 */
int ustd_rotation_archive_last(struct ustd_sessions *ss, const struct ustd_chunk_end *e,
			       char *out, size_t size);

#endif
