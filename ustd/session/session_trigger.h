/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Triggers of a flight-recorder session: each is installed in every
 * program of the session (session_apply.c) with a snapshot directory of
 * its own, by which a firing is known to be the session's; a firing in
 * any program snapshots every program of the session into one new
 * directory, at most --at-most times a minute per trigger across them.
 */
#ifndef USTD_SESSION_TRIGGER_H
#define USTD_SESSION_TRIGGER_H

#include <stddef.h>
#include <stdint.h>
#include "ustd/conn/app.h"
#include "ustd/session/session.h"

/* As many as the request that applies a session to a program carries. */
#define USTD_SESSION_TRIGGERS_MAX	8

struct ustd_session_trigger {
	uint32_t id;			/* from 1, in the session */
	char *pattern, *filter, *hex;	/* as in ENABLE_RULE */
	char *dir;			/* told to programs; firings say it */
	uint32_t at_most, n, head;	/* the last minute's snapshots */
	uint64_t *times;
	/* firings = taken + suppressed + failed: a firing admitted is taken
	 * when its firing-K/ directory was written (one snapshot of the
	 * session, of every process that could be snapshotted: incomplete
	 * counts those where some could not), failed when none could be or
	 * the directory could not be made or named. */
	uint64_t firings, taken, suppressed, failed, incomplete;
};

/*
 * SESSION_TRIGGER's arguments after the name (PATTERN, FILTER, BYTECODE,
 * DIR, AT_MOST) checked and added to s as trigger *id. 0 or a negative
 * errno with why filled in.
 */
int ustd_session_trigger_add(struct ustd_session *s, const char *const *a, uint32_t *id,
			     char *why, size_t why_size);

/* The strings of SESSION_LIST_TRIGGERS (9 a trigger) in args, pointing
 * into s and into nums (6 a trigger); returns how many. */
#define USTD_SESSION_TRIGGER_FIELDS	9
size_t ustd_session_triggers_list(const struct ustd_session *s, const char **args,
				  char (*nums)[24]);

/* Trigger id leaves s, its totals said; *dir (malloc'd) is its
 * directory, for the programs to remove it by. 0 or -ENOENT. */
int ustd_session_trigger_remove(struct ustd_session *s, uint32_t id, char **dir);

/* Says the totals of every trigger that fired, frees them. */
void ustd_session_triggers_free(struct ustd_session *s);

/* ADD_TRIGGER of trigger t to the session's trace in a program. */
int ustd_session_encode_trigger(const struct ustd_session *s, const struct ustd_session_trigger *t,
				char **msg, size_t *len);

/* A trigger of app fired with snapshot directory dir: 1 when it is one
 * of its session's triggers (then handled here), else 0. */
int ustd_session_trigger_fired(struct ustd_app *app, const char *dir);

#endif
