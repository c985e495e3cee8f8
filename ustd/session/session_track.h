/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Process trackers of a session (track, untrack): lists of pids,
 * process names and user ids. A session with no list of a kind takes
 * every process as far as that kind goes; once a list of a kind holds a
 * value, only processes whose own value is in it join. A process passes
 * when it passes every kind, as LTTng's trackers combine.
 */
#ifndef USTD_SESSION_TRACK_H
#define USTD_SESSION_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "ustd/session/session.h"

/* Values tracked by one session, all kinds together: what the published
 * file's SESSION_TRACKERS request carries (two strings a value). */
#define USTD_SESSION_TRACKED_MAX	100

/*
 * SESSION_TRACK's arguments after the name: "1" (track) or "0", a kind,
 * the values (untrack "*": every value of the kind). All checked before
 * any applies. 0 with *now the values of that kind tracked after, or a
 * negative errno with why filled in.
 */
int ustd_session_track(struct ustd_session *s, const char *const *a, size_t nr, size_t *now,
		       char *why, size_t why_size);

/* Whether process pid passes s's trackers (true without any), read from
 * /proc: its comm and its real uid. A process gone does not pass. */
bool ustd_session_tracks_pid(const struct ustd_session *s, pid_t pid);

void ustd_session_trackers_free(struct ustd_session *s);

#endif
