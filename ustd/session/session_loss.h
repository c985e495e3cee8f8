/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What stop-session and destroy-session tell the controller besides: how
 * many events the session's traces lost, counted as babeltrace2 counts
 * them, from the packet contexts on disk (libustcomm/loss.h), once what
 * the programs flushed is written; and what the traces ustd stopped for a
 * write error (a full disk) lost outside their files (app_lost.h).
 */
#ifndef USTD_SESSION_LOSS_H
#define USTD_SESSION_LOSS_H

#include <stdint.h>
#include "ustd/session/session.h"
#include "ustd/conn/app_lost.h"

/* s's tally, made at its first need; NULL without memory. Not a new
 * reference: take one with ustd_loss_tally_get(). */
struct ustd_loss_tally *ustd_session_tally(struct ustd_session *s);

/*
 * Writes the complete packets of every program of session name (when it
 * still exists: stop-session), then counts the events discarded in the
 * session directory dir, its processes' traces and its archived chunks,
 * and adds what tally counts (NULL: nothing), the programs still running
 * included. 0, or a negative errno (the count of what could be read
 * stays).
 */
int ustd_session_loss(struct ustd_sessions *ss, const char *name,
		      const struct ustd_loss_tally *tally, const char *dir,
		      uint64_t *discarded);

#endif
