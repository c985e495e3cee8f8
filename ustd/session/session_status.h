/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * list-sessions NAME: what a session is doing, beside its settings
 * (SESSION_DESCRIBE): state, where it writes, its chunks, its trackers,
 * its processes, and per session the bytes in its directory and the
 * events its traces discarded, the processes that ended included (as
 * stop-session counts them, session_loss.h).
 */
#ifndef USTD_SESSION_STATUS_H
#define USTD_SESSION_STATUS_H

#include <sys/types.h>
#include "ustd/session/session.h"

/* SESSION_STATUS's reply strings into *args (malloc'd, pointing into s
 * and *text, malloc'd). Their number, or a negative errno. */
ssize_t ustd_session_status(struct ustd_sessions *ss, struct ustd_session *s,
			    const char ***args, char **text);

#endif
