/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A session's buffers per user (--buffers-uid): one set of shared rings
 * per uid of its processes (ustd/conn/uid_set.h), made when the first
 * process of that uid joins, written out when the session stops, ended
 * with the session. The sets' traces (their sinks) are in main()'s list
 * of applications, but are nobody's processes: requests to programs skip
 * them (ustd_session_for_each_app()), a rotation does not
 * (ustd_session_for_each_trace()).
 */
#ifndef USTD_SESSION_UID_H
#define USTD_SESSION_UID_H

#include "ustd/session/session.h"

/* app, whose HELLO names per-UID session s, writes into its uid's set
 * from now on: 0, or a negative errno (said). */
int ustd_session_uid_join(struct ustd_sessions *ss, struct ustd_session *s, struct ustd_app *app);
/* Writes what every set of s recorded so far (stop-session). */
void ustd_session_uid_flush(struct ustd_session *s);
/* Ends the traces of every set of s and frees the sets (destroy-session,
 * ustd exiting): what was recorded is on disk. */
void ustd_session_uid_end(struct ustd_session *s);
void ustd_sessions_uid_end(struct ustd_sessions *ss);
/* Frees set, which the members that still write into it forget. */
void ustd_session_uid_set_leave(struct ustd_sessions *ss, struct ustd_uid_set *set);

#endif
