/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Keeping each session on disk. The description is SESSION_DESCRIBE's
 * (session_settings.c), turned into a session file by libustctl, which
 * save-session uses too: one format, one writer, and a kept file loads
 * with load-session as any saved one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <ust/ustctl.h>
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/log.h"
#include "ustd/session/session_persist.h"
#include "ustd/session/session_settings.h"

int ustd_session_keep_path(const struct ustd_sessions *ss, const char *name, char *buf,
			   size_t size)
{
	int n = snprintf(buf, size, "%s/%s.xml", ss->keep_dir, name);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static const int resume_states[] = {
	[USTD_SESSION_CREATED] = USTCTL_RESUME_CREATED,
	[USTD_SESSION_ACTIVE] = USTCTL_RESUME_ACTIVE,
	[USTD_SESSION_STOPPED] = USTCTL_RESUME_STOPPED,
};

static int write_kept(struct ustd_sessions *ss, const struct ustd_session *s, const char *path)
{
	struct ustctl_session_resume resume = {
		.state = resume_states[s->state],
		.dir = s->dir,
		.chunks = s->rot.chunks,
		.chunk_begin = (long long)s->rot.chunk_begin,
	};
	struct ustctl_session *us = NULL;
	struct ustctl_session_extra *ux = NULL;
	const char **args = NULL;
	char *text = NULL;
	ssize_t n;
	int ret;

	n = ustd_session_describe(s, ss->ctx->output, &args, &text);
	ret = n < 0 ? (int)n : ustctl_session_from_description(s->name, args, (size_t)n, &us, &ux);
	if (!ret && mkdir(ss->keep_dir, 0700) < 0 && errno != EEXIST)
		ret = -errno;
	if (!ret)
		ret = ustctl_session_resume_write(path, us, ux, &resume);
	if (us)
		ustctl_session_free(us);
	ustctl_session_extra_free(ux);
	free(args);
	free(text);
	return ret;
}

void ustd_session_keep(struct ustd_sessions *ss, const char *name)
{
	struct ustd_session *s;
	char path[4400];
	int ret;

	/* A refused create-session may name anything: no path is made of it. */
	if (!ustcomm_session_name_valid(name) ||
	    ustd_session_keep_path(ss, name, path, sizeof(path)) < 0)
		return;
	s = ustd_session_find(ss, name);
	if (!s) {
		if (unlink(path) < 0 && errno != ENOENT)
			ustcomm_err("cannot remove %s, the file of destroyed session %s: %s; remove it, or a restarted ustd makes the session again",
				    path, name, strerror(errno));
		return;
	}
	ret = write_kept(ss, s, path);
	if (ret)
		ustcomm_err("cannot keep session %s in %s: %s; a restarted ustd would not resume it as it is now",
			    name, path, ret == -ENOMEM ? "out of memory" :
			    ustctl_last_error()[0] ? ustctl_last_error() : strerror(-ret));
}
