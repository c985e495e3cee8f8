/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A snapshot of a whole flight-recorder session: every program of it
 * written into one new directory, a sub-directory each, which appears
 * once all are in it (dir_publish.h), so that babeltrace2 reads the
 * service merged. What a trigger's firing takes (session_trigger.c) and
 * what snapshot -s asks.
 */
#ifndef USTD_SESSION_SNAPSHOT_H
#define USTD_SESSION_SNAPSHOT_H

#include <stddef.h>
#include "ustd/session/session.h"

struct ustd_session_snap {
	unsigned taken, failed;		/* processes */
	char path[4096 + 64];		/* the new directory, or the reason */
};

/*
 * Snapshots every program of s into <parent>/<stem>-N (N from *n up, the
 * first free; *n the one taken). 0 (nothing taken when no program could
 * be snapshotted: no directory then), or a negative errno with the reason
 * in snap->path.
 */
int ustd_session_snapshot_all(struct ustd_sessions *ss, const struct ustd_session *s,
			      const char *parent, const char *stem, unsigned *n,
			      struct ustd_session_snap *snap);

/* snapshot -s: SESSION_SNAPSHOT's DIR ("" for <session dir>/snapshots).
 * 0 or a negative errno with the reason in snap->path. */
int ustd_session_snapshot(struct ustd_sessions *ss, struct ustd_session *s, const char *dir,
			  struct ustd_session_snap *snap);

#endif
