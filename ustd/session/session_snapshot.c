/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "ustd/conn/app.h"
#include "ustd/output/dir_publish.h"
#include "ustd/session/session_snapshot.h"

struct snap_arg {
	const char *parent;
	unsigned taken, failed;
};

static void snap_app(struct ustd_app *app, void *arg)
{
	struct snap_arg *sa = arg;

	/* Buffers per user: the set's trace (its sink) holds its events. */
	if (app->uid_set)
		return;
	if (ustd_app_snapshot_now(app, sa->parent) < 0)
		sa->failed++;
	else
		sa->taken++;
}

int ustd_session_snapshot_all(struct ustd_sessions *ss, const struct ustd_session *s,
			      const char *parent, const char *stem, unsigned *n,
			      struct ustd_session_snap *snap)
{
	char partial[sizeof(snap->path)];
	struct snap_arg sa = { .parent = partial };
	int ret;

	snap->taken = snap->failed = 0;
	ret = ustd_dir_partial(parent, stem, partial, sizeof(partial));
	if (ret < 0) {
		snprintf(snap->path, sizeof(snap->path), "cannot create a directory in %s: %s",
			 parent, strerror(-ret));
		return ret;
	}
	ustd_session_for_each_trace(ss, s, snap_app, &sa);
	snap->taken = sa.taken;
	snap->failed = sa.failed;
	/* No process could be snapshotted: no directory, rather than an
	 * empty one counted as a snapshot. */
	if (!sa.taken) {
		snap->path[0] = '\0';
		return rmdir(partial) < 0 ? -errno : 0;
	}
	ret = ustd_dir_publish(partial, parent, stem, n, snap->path, sizeof(snap->path));
	if (ret < 0)
		snprintf(snap->path, sizeof(snap->path),
			 "the snapshots are in %.1900s, which could not be renamed in %.1900s: %s", partial,
			 parent, strerror(-ret));
	return ret;
}

int ustd_session_snapshot(struct ustd_sessions *ss, struct ustd_session *s, const char *dir,
			  struct ustd_session_snap *snap)
{
	char parent[4096];
	unsigned n = 1;
	int ret;

	if (!s->overwrite) {
		snprintf(snap->path, sizeof(snap->path),
			 "session '%s' is not in flight-recorder mode: its traces are written to disk as they go, there is no buffer to snapshot (create the session with --overwrite)",
			 s->name);
		return -EOPNOTSUPP;
	}
	if (s->state != USTD_SESSION_ACTIVE) {
		snprintf(snap->path, sizeof(snap->path),
			 "session '%s' is not active: its buffers were written out when it stopped or are not allocated yet (ustctl start-session %s)",
			 s->name, s->name);
		return -EINVAL;
	}
	if (dir[0] && dir[0] != '/') {
		snprintf(snap->path, sizeof(snap->path), "the snapshot's directory must be absolute");
		return -EINVAL;
	}
	if (snprintf(parent, sizeof(parent), "%s%s", dir[0] ? dir : s->dir,
		     dir[0] ? "" : "/snapshots") >= (int)sizeof(parent)) {
		snprintf(snap->path, sizeof(snap->path), "the snapshot's directory is too long");
		return -ENAMETOOLONG;
	}
	ret = ustd_session_snapshot_all(ss, s, parent, "snapshot", &n, snap);
	if (ret == 0 && !snap->taken) {
		snprintf(snap->path, sizeof(snap->path),
			 "session '%s' has no process: nothing to snapshot%s", s->name,
			 snap->failed ? " (every process's snapshot failed: see ustd's messages)" : "");
		ret = snap->failed ? -EIO : -ENODATA;
	}
	return ret;
}
