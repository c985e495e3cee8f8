/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What stop-session and destroy-session tell the controller besides: how
 * many events the session's traces lost, counted as babeltrace2 counts
 * them, from the packet contexts on disk (libustcomm/loss.h), once what
 * the programs flushed is written.
 */
#ifndef USTD_SESSION_LOSS_H
#define USTD_SESSION_LOSS_H

#include <stdint.h>
#include "ustd/session_internal.h"

/*
 * Writes the complete packets of every program of session name (when it
 * still exists: stop-session), then counts the events discarded in the
 * session directory dir, its processes' traces and its archived chunks.
 * 0, or a negative errno (the count of what could be read stays).
 */
int ustd_session_loss(struct ustd_sessions *ss, const char *name, const char *dir,
		      uint64_t *discarded);

#endif
