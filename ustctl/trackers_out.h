/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A session's process trackers as ustctl prints them: list-sessions NAME,
 * save-session -s and load-session. Beneath the commands, above output.c.
 */
#ifndef USTCTL_TRACKERS_OUT_H
#define USTCTL_TRACKERS_OUT_H

#include <stddef.h>
#include <ust/ustctl.h>

/* One MI element <tracker> per kind (pid, procname, uid) with its policy
 * and values, and "tracking: every pid; procname a,b; no uid" on a line
 * after indent (none when indent is NULL). */
void ustctl_session_trackers_out(const struct ustctl_session_tracker *t, size_t nr,
				 const char *indent);
/* How many kinds the trackers restrict (policy "set" or "none"). */
size_t ustctl_session_trackers_count(const struct ustctl_session_tracker *t, size_t nr);

#endif
