/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * clear-session, as lttng clear: what the session recorded so far is
 * discarded while tracing goes on. A session writing to disk: every
 * process's trace since the first start or the last rotation (the
 * current chunk), those of processes that ended included, is cut off as
 * a rotation would cut it, into a hidden directory that is then removed;
 * archived chunks are kept. A flight-recorder session: its buffers are
 * emptied (app_clear.h); snapshots already taken are kept. A session
 * streamed to lttng-relayd is refused: relayd's protocol (2.10) has no
 * clear.
 */
#ifndef USTD_SESSION_CLEAR_H
#define USTD_SESSION_CLEAR_H

#include <stddef.h>
#include "ustd/session/session.h"

/* Clears s: 0 with *processes the traces cleared, or a negative errno
 * with the reason in why. */
int ustd_session_clear(struct ustd_sessions *ss, struct ustd_session *s, unsigned *processes,
		       char *why, size_t why_size);

#endif
