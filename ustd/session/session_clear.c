/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "libustcomm/log.h"
#include "ustd/conn/app_clear.h"
#include "ustd/conn/app_rotate.h"
#include "ustd/output/dir_publish.h"
#include "ustd/session/session_clear.h"
#include "ustd/session/session_relay.h"
#include "ustd/session/session_rotate.h"

struct clear_arg {
	const char *to;			/* disk: the hidden directory */
	unsigned cleared, failed;
};

static void clear_app(struct ustd_app *app, void *arg)
{
	struct clear_arg *ca = arg;

	if (!ca->to)
		ca->cleared += ustd_app_clear_buffers(app) > 0;
	else if (ustd_app_rotate(app, ca->to, false, NULL) < 0)
		ca->failed++;
	else
		ca->cleared++;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 ? -1 : 0;
}

/* The processes went on in fresh directories: the hidden one, with
 * what they wrote before and the ended processes' traces, goes. */
static int clear_disk(struct ustd_sessions *ss, struct ustd_session *s, struct clear_arg *ca,
		      char *why, size_t why_size)
{
	char hidden[4096];
	int ret = ustd_dir_partial(s->dir, "clear", hidden, sizeof(hidden));

	if (ret < 0) {
		snprintf(why, why_size, "cannot create a directory in %s: %s", s->dir,
			 strerror(-ret));
		return ret;
	}
	ca->to = hidden;
	ustd_session_for_each_app(ss, s, clear_app, ca);
	ret = ustd_session_move_ended(ss, s->dir, hidden);
	if (ret < 0)
		ustcomm_err("session %s: cannot clear the traces of ended processes in %s: %s",
			    s->name, s->dir, strerror(-ret));
	if (nftw(hidden, remove_one, 16, FTW_DEPTH | FTW_PHYS) < 0) {
		ret = -errno;
		snprintf(why, why_size, "cannot remove %s, which holds what was cleared: %s",
			 hidden, strerror(errno));
		return ret;
	}
	if (ca->failed) {
		snprintf(why, why_size, "%u process%s could not go on into fresh files (see ustd's messages): their traces are stopped",
			 ca->failed, ca->failed == 1 ? "" : "es");
		return -EIO;
	}
	/* What is recorded from now on is the current chunk. */
	if (s->rot.chunk_begin)
		s->rot.chunk_begin = time(NULL);
	if (s->state != USTD_SESSION_ACTIVE)
		s->rot.rotated_since_stop = true;
	return 0;
}

int ustd_session_clear(struct ustd_sessions *ss, struct ustd_session *s, unsigned *processes,
		       char *why, size_t why_size)
{
	struct clear_arg ca = { 0 };
	int ret = 0;

	if (s->relay) {
		snprintf(why, why_size, "session '%s' is streamed to lttng-relayd, whose protocol (2.10) has no clear: what relayd wrote stays (destroy the session and create it again)",
			 s->name);
		return -EOPNOTSUPP;
	}
	if (s->overwrite)
		ustd_session_for_each_app(ss, s, clear_app, &ca);
	else
		ret = clear_disk(ss, s, &ca, why, why_size);
	*processes = ca.cleared;
	return ret;
}
