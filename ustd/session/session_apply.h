/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Conversations of ustd with programs' control sockets, on its event loop
 * and never blocking it: a session applied to a program (SESSION_STATE
 * first, so that a program that joined by itself is left alone), or one
 * trace command (stop, start, destroy) sent to the programs of a session.
 * Each conversation is bounded in time.
 */
#ifndef USTD_SESSION_APPLY_H
#define USTD_SESSION_APPLY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "ustd/session/session.h"
#include "ustd/session/session_busy.h"

/* Whoever waits for a set of conversations: done() runs once pending
 * falls to 0, with ok the number that succeeded. */
struct ustd_apply_waiter {
	unsigned pending;
	unsigned ok;
	void (*done)(struct ustd_apply_waiter *w);
	/* start-session: per enable rule of the session, in order, whether
	 * a program said one of its events matches (NULL: not asked), and
	 * whether any program said (one of before does not). */
	bool *rule_matched;
	size_t nr_rules;
	bool rules_told;
	/* The programs a join left alone: one of the rules selects one of
	 * their events, but they trace something else (SESSION_STATE's
	 * "busy"). */
	struct ustd_busy busy;
};

enum ustd_apply_kind {
	USTD_APPLY_JOIN,		/* apply the session unless already there */
	USTD_APPLY_RULES,		/* LOAD_SESSION of new rules only */
	USTD_APPLY_START,
	USTD_APPLY_STOP,
	USTD_APPLY_DESTROY,
	USTD_APPLY_TRIGGER,		/* ADD_TRIGGER of the session's newest */
	USTD_APPLY_TRIGGERS,		/* ADD_TRIGGER of each of the session's */
	USTD_APPLY_UNTRIGGER,		/* ustd_apply_untrigger() */
};

/*
 * Starts a conversation with program pid about session s (its requests
 * are encoded now: s may go away before the end). w may be NULL; else its
 * pending count grows by one until the conversation ends. For
 * USTD_APPLY_RULES, rules are the ones to send. 0 or a negative errno
 * (nothing started; reported).
 */
int ustd_apply_begin(struct ustd_apply_ctx *ac, enum ustd_apply_kind kind, pid_t pid,
		     const struct ustd_session *s, const struct ustd_session_rule *rules,
		     size_t nr_rules, struct ustd_apply_waiter *w);

/* Removes from program pid the session's trigger whose snapshot
 * directory is dir (its number there is looked up first). */
int ustd_apply_untrigger(struct ustd_apply_ctx *ac, pid_t pid, const struct ustd_session *s,
			 const char *dir);

/* Forgets w: the conversations under way go on, telling nobody. */
void ustd_apply_forget_waiter(struct ustd_apply_waiter *w);

/* Ends every conversation (ustd exits). */
void ustd_apply_fini(void);

/*
 * HELLO of a trace named like a session: creates its directory
 * <session dir>/<procname>-<pid> in td and files app under the session.
 * 1 when the trace is a session's, 0 when not, or a negative errno.
 */
int ustd_session_trace_dir(struct ustd_sessions *ss, struct ustd_app *app,
			   const char *trace_name, struct ustd_trace_dir *td);

#endif
