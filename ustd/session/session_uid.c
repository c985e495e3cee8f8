/* SPDX-License-Identifier: GPL-2.0-only */
/* A session's buffers per user (session_uid.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/log.h"
#include "ustd/conn/uid_set.h"
#include "ustd/session/session_uid.h"

int ustd_session_uid_join(struct ustd_sessions *ss, struct ustd_session *s, struct ustd_app *app)
{
	struct ustd_uid_set *set = NULL, **grown;
	struct ustd_app *sink;
	size_t i;
	int ret;

	for (i = 0; i < s->nr_uid_sets && !set; i++) {
		if (ustd_uid_set_uid(s->uid_sets[i]) == app->uid)
			set = s->uid_sets[i];
	}
	if (!set) {
		grown = realloc(s->uid_sets, (s->nr_uid_sets + 1) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		s->uid_sets = grown;
		ret = ustd_uid_set_new(&set, ss->ctx, s->name, app->uid, app->clock, s->overwrite,
				       &sink);
		if (ret < 0) {
			ustcomm_err("session %s: cannot make the buffers of uid %u: %s; %s is not traced",
				    s->name, (unsigned)app->uid, strerror(-ret), app->label);
			return ret;
		}
		s->uid_sets[s->nr_uid_sets++] = set;
		sink->next = *ss->apps;
		*ss->apps = sink;
	}
	app->uid_set = set;
	app->uid_ops = &ustd_uid_set_member_ops;
	return 0;
}

/* The members still pointing at the set no longer ask it anything. */
void ustd_session_uid_set_leave(struct ustd_sessions *ss, struct ustd_uid_set *set)
{
	struct ustd_app *app;

	for (app = ss ? *ss->apps : NULL; app; app = app->next) {
		if (app->uid_set == set)
			app->uid_set = NULL;
	}
	ustd_uid_set_free(set);
}

void ustd_session_uid_flush(struct ustd_session *s)
{
	size_t i;

	for (i = 0; i < s->nr_uid_sets; i++)
		ustd_uid_set_flush(s->uid_sets[i]);
}

void ustd_session_uid_end(struct ustd_session *s)
{
	size_t i;

	/* Its members outlive it, perhaps: they no longer ask the sets. */
	for (i = 0; i < s->nr_uid_sets; i++)
		ustd_session_uid_set_leave(s->rot.ss, s->uid_sets[i]);
	free(s->uid_sets);
	s->uid_sets = NULL;
	s->nr_uid_sets = 0;
}

void ustd_sessions_uid_end(struct ustd_sessions *ss)
{
	struct ustd_session *s;

	for (s = ss ? ss->list : NULL; s; s = s->next)
		ustd_session_uid_end(s);
}
