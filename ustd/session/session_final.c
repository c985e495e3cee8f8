/* SPDX-License-Identifier: GPL-2.0-only */
/* The last chunk of a destroyed session (session_final.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/log.h"
#include "ustd/session/session_final.h"
#include "ustd/session/session_rotate.h"

struct ustd_session_final {
	struct ustd_apply_waiter waiter;
	struct ustd_sessions *ss;
	struct ustd_chunk_end end;	/* its strings are the copies below */
	char *name, *dir, *on_rotate;
	struct ustd_apply_waiter *then;
};

static void final_free(struct ustd_session_final *f)
{
	free(f->name);
	free(f->dir);
	free(f->on_rotate);
	free(f);
}

static void final_done(struct ustd_apply_waiter *w)
{
	struct ustd_session_final *f = (struct ustd_session_final *)w;
	struct ustd_apply_waiter *then = f->then;
	char out[4096];
	int ret = ustd_rotation_archive_last(f->ss, &f->end, out, sizeof(out));

	if (ret == 0)
		ustcomm_dbg("session %s destroyed: its last chunk is %s", f->name, out);
	else if (ret != -ENODATA)
		ustcomm_err("session %s destroyed, but its last chunk could not be archived: %s; its traces stay in %s",
			    f->name, out, f->dir);
	final_free(f);
	if (then && --then->pending == 0)
		then->done(then);
}

struct ustd_session_final *ustd_session_final_begin(struct ustd_sessions *ss,
						    const struct ustd_session *s,
						    struct ustd_apply_waiter *then)
{
	const struct ustd_session_rotation *rot = &s->rot;
	struct ustd_session_final *f;

	if (s->overwrite || !rot->chunk_begin || (!rot->every_us && !rot->size && !rot->chunks))
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->name = strdup(s->name)) || !(f->dir = strdup(s->dir)) ||
	    (rot->on_rotate && !(f->on_rotate = strdup(rot->on_rotate)))) {
		ustcomm_err("session %s: out of memory; its last chunk stays in %s, not archived",
			    s->name, s->dir);
		if (f)
			final_free(f);
		return NULL;
	}
	ustd_rotation_chunk_end(s, &f->end);
	f->end.name = f->name;
	f->end.dir = f->dir;
	f->end.on_rotate = f->on_rotate;
	f->ss = ss;
	/* Held until release: a conversation ending at once does not
	 * archive before the others began. */
	f->waiter.pending = 1;
	f->waiter.done = final_done;
	f->then = then;
	then->pending++;
	return f;
}

struct ustd_apply_waiter *ustd_session_final_waiter(struct ustd_session_final *f)
{
	return &f->waiter;
}

void ustd_session_final_release(struct ustd_session_final *f)
{
	if (--f->waiter.pending == 0)
		final_done(&f->waiter);
}

void ustd_session_final_forget(struct ustd_session_final *f)
{
	f->then = NULL;
}
