/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Joining ustd's sessions without being asked: at start-up the program
 * reads the file of active sessions ustd publishes (rundir.h), and the
 * first event whose site a session's enable rules match starts that
 * session's trace, as UST_TRACE=1 does, before main() runs.
 */
#ifndef UST_SESSION_JOIN_H
#define UST_SESSION_JOIN_H

#include <stdint.h>
#include "libust/registry.h"

/* Reads the file beside the ustd socket daemon_path. Normal context,
 * under ust_lock, after the control socket exists (see the .c file for
 * why that order makes it race-free). */
void ust_session_join_init(const char *daemon_path);

/* An event registered: when no trace runs and a session read at start
 * matches it, starts that session's trace. Under ust_lock. */
void ust_session_join_event(const struct ust_event_state *ev);

/* SESSION_STATE (ctl_protocol.h) for session name, whose enable rules
 * are nr strings, pattern and level in turn: "waiting" when the program
 * read it and starts it by itself at the first match. Under ust_lock. */
const char *ust_session_join_state(const char *name, const char *const *rules, uint32_t nr);
/* Whether this process passes the trackers of session name as the file
 * read at start has them (1 when it has none, or no such session).
 * Async-signal-safe: a fork child's first event tests it. */
int ust_session_join_tracks(const char *name);
/* Whether the enable rule (pattern, level) selects an event the program
 * has now: SESSION_STATE answers it per rule, after the state. */
int ust_session_rule_matches(const char *pattern, const char *level);

#endif
