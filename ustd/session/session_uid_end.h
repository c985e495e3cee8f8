/* SPDX-License-Identifier: GPL-2.0-only */
/* The end of a destroyed session's buffers per user (session_uid.h). */
#ifndef USTD_SESSION_UID_END_H
#define USTD_SESSION_UID_END_H

#include "ustd/session/session.h"
#include "ustd/session/session_apply.h"

/*
 * destroy-session of a session with buffers per user: its programs go on
 * writing into the sets until each has ended its trace, so the sets end
 * after the last program's answer (their conversations count down on the
 * waiter here), then then is counted down (the last chunk's archive, or
 * the controller). NULL when s has no set. The sets leave s at once.
 */
struct ustd_session_uid_end;
struct ustd_session_uid_end *ustd_session_uid_end_begin(struct ustd_sessions *ss,
							struct ustd_session *s,
							struct ustd_apply_waiter *then);
struct ustd_apply_waiter *ustd_session_uid_end_waiter(struct ustd_session_uid_end *e);
/* Every conversation has begun. */
void ustd_session_uid_end_release(struct ustd_session_uid_end *e);
/* then went away (the controller left): the sets still end. */
void ustd_session_uid_end_forget(struct ustd_session_uid_end *e);

#endif
