/* SPDX-License-Identifier: GPL-2.0-only */
/* What session.c and session_ctl.c share. */
#ifndef USTD_SESSION_INTERNAL_H
#define USTD_SESSION_INTERNAL_H

#include "ustd/session/session.h"
#include "ustd/conn/listen_pause.h"
#include "ustd/session/session_apply.h"

struct ustd_sessions {
	struct ustd_session *list;
	struct ustd_ctx *ctx;
	struct ustd_app **apps;		/* main()'s list */
	struct ustd_apply_ctx apply;
	char sock_path[4200];
	char file_path[4200];
	int listen_fd;
	int inotify_fd;			/* apps/: programs that appear */
	struct ustd_session_watch listen_watch;
	struct ustd_session_watch inotify_watch;
	struct ustd_listen_pause listen_pause;	/* out of descriptors */
};

void ustd_session_free(struct ustd_session *s);
/* The settings of channel name, added when missing; NULL when there is
 * no room. */
struct ustd_session_channel *ustd_session_channel(struct ustd_session *s, const char *name);
/* Copies the five strings of a rule in. 0, -ENOSPC or -ENOMEM. */
int ustd_session_add_rule(struct ustd_session *s, const char *const *five);
/* Rewrites the file of active sessions; reports a failure. */
int ustd_sessions_publish(struct ustd_sessions *ss);
int ustd_session_make_dir(struct ustd_session *s, const char *output);
/* Out of the list; its programs' traces no longer belong to it. */
void ustd_session_unlink(struct ustd_sessions *ss, struct ustd_session *s);

#endif
