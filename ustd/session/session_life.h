/* SPDX-License-Identifier: GPL-2.0-only */
/* A session's end, and its start in every running program (session_life.c). */
#ifndef USTD_SESSION_LIFE_H
#define USTD_SESSION_LIFE_H

#include "ustd/session/session.h"
#include "ustd/session/session_apply.h"

/* Frees s, which is out of the list, with its timers and relay share. */
void ustd_session_free(struct ustd_session *s);
/* Asks every program with a control socket in apps/ (but ustd) to join
 * s; w (or NULL) hears when they all answered. */
void ustd_session_join_all(struct ustd_sessions *ss, struct ustd_session *s,
			   struct ustd_apply_waiter *w);

#endif
