/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What making and ending a session shares between ustctl's commands
 * (session_ctl.c) and the sessions a restarted ustd resumes
 * (session_resume.c): freeing one, and asking every running program to
 * join it.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "libustcomm/log.h"
#include "ustd/relay/relay_share.h"
#include "ustd/session/session_life.h"
#include "ustd/session/session_loss.h"
#include "ustd/session/session_rotate.h"
#include "ustd/session/session_track.h"
#include "ustd/session/session_trigger.h"
#include "ustd/session/session_uid.h"

static void rule_free(struct ustd_session_rule *r)
{
	int i;

	for (i = 0; i < 5; i++)
		free(r->s[i]);
}

void ustd_session_free(struct ustd_session *s)
{
	size_t i;

	ustd_session_uid_end(s);
	ustd_rotation_fini(s);
	ustd_session_triggers_free(s);
	ustd_session_trackers_free(s);
	ustd_relay_share_put(s->relay);
	ustd_loss_tally_put(s->tally);
	for (i = 0; i < s->nr_rules; i++)
		rule_free(&s->rules[i]);
	free(s->rules);
	free(s->channels);
	free(s->dir);
	free(s);
}

/* Every program with a control socket in apps/ but ustd itself that the
 * session's trackers pass. */
void ustd_session_join_all(struct ustd_sessions *ss, struct ustd_session *s,
			   struct ustd_apply_waiter *w)
{
	DIR *dir = opendir(ss->apply.apps_dir);
	struct dirent *de;
	char *end;
	long pid;

	if (!dir) {
		ustcomm_err("cannot list the programs in %s: %s", ss->apply.apps_dir,
			    strerror(errno));
		return;
	}
	while ((de = readdir(dir)) != NULL) {
		pid = strtol(de->d_name, &end, 10);
		if (!isdigit((unsigned char)de->d_name[0]) || *end || pid <= 0 || pid == getpid() ||
		    !ustd_session_tracks_pid(s, (pid_t)pid))
			continue;
		ustd_apply_begin(&ss->apply, USTD_APPLY_JOIN, (pid_t)pid, s, NULL, 0, w);
	}
	closedir(dir);
}
