/* SPDX-License-Identifier: GPL-2.0-only */
/* The end of a destroyed session's buffers per user (session_uid_end.h). */
#include <stdlib.h>
#include "ustd/session/session_uid.h"
#include "ustd/session/session_uid_end.h"

struct ustd_session_uid_end {
	struct ustd_apply_waiter waiter;
	struct ustd_sessions *ss;
	struct ustd_uid_set **sets;
	size_t nr_sets;
	struct ustd_apply_waiter *then;
};

static void uid_end_done(struct ustd_apply_waiter *w)
{
	struct ustd_session_uid_end *e = (struct ustd_session_uid_end *)w;
	struct ustd_apply_waiter *then = e->then;
	size_t i;

	for (i = 0; i < e->nr_sets; i++)
		ustd_session_uid_set_leave(e->ss, e->sets[i]);
	free(e->sets);
	if (then) {
		then->ok += w->ok;
		if (--then->pending == 0)
			then->done(then);
	}
	free(e);
}

struct ustd_session_uid_end *ustd_session_uid_end_begin(struct ustd_sessions *ss,
							struct ustd_session *s,
							struct ustd_apply_waiter *then)
{
	struct ustd_session_uid_end *e;

	if (!s->nr_uid_sets)
		return NULL;
	e = calloc(1, sizeof(*e));
	/* Without memory, the sets end now, with what the programs wrote. */
	if (!e) {
		ustd_session_uid_end(s);
		return NULL;
	}
	e->ss = ss;
	e->sets = s->uid_sets;
	e->nr_sets = s->nr_uid_sets;
	s->uid_sets = NULL;
	s->nr_uid_sets = 0;
	/* Held until release: a conversation ending at once does not end
	 * the sets before the others began. */
	e->waiter.pending = 1;
	e->waiter.done = uid_end_done;
	e->then = then;
	then->pending++;
	return e;
}

struct ustd_apply_waiter *ustd_session_uid_end_waiter(struct ustd_session_uid_end *e)
{
	return &e->waiter;
}

void ustd_session_uid_end_release(struct ustd_session_uid_end *e)
{
	if (--e->waiter.pending == 0)
		uid_end_done(&e->waiter);
}

void ustd_session_uid_end_forget(struct ustd_session_uid_end *e)
{
	e->then = NULL;
}

