/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * destroy-session of a session that rotates archives its last chunk, as
 * LTTng's destroy does: once every program of the session ended its trace
 * (their conversations count down on the waiter here), what is left in the
 * session directory becomes the last chunk, with --on-rotate run on it.
 * The session is freed at once, so what the archive needs is copied here;
 * the controller waiting for the reply is answered after the archive,
 * unless it left.
 */
#ifndef USTD_SESSION_FINAL_H
#define USTD_SESSION_FINAL_H

#include "ustd/session/session_apply.h"
#include "ustd/session/session.h"

struct ustd_session_final;

/*
 * For s about to be destroyed: NULL when s makes no chunks (no schedule
 * and never rotated, a flight recorder, never started) or on a lack of
 * memory (said: its last chunk then stays in the session directory, as
 * before). then, the controller's waiter, is held until the archive.
 */
struct ustd_session_final *ustd_session_final_begin(struct ustd_sessions *ss,
						    const struct ustd_session *s,
						    struct ustd_apply_waiter *then);
/* The waiter the programs' conversations count down on. */
struct ustd_apply_waiter *ustd_session_final_waiter(struct ustd_session_final *f);
/* Every conversation has begun: the archive follows the last one's end. */
void ustd_session_final_release(struct ustd_session_final *f);
/* The controller left: the archive is made, nobody is told. */
void ustd_session_final_forget(struct ustd_session_final *f);

#endif
