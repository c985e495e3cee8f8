/* SPDX-License-Identifier: GPL-2.0-only */
#include <stdlib.h>
#include "libustcomm/loss.h"
#include "ustd/conn/app.h"
#include "ustd/conn/app_lost.h"
#include "ustd/conn/app_rotate.h"
#include "ustd/session/session_loss.h"

/* session dir / archives / chunk / <procname>-<pid> / stream files */
#define SESSION_LOSS_DEPTH	3
/* Each drain takes at most a ring: the ring the stop flushed, and what
 * the flush completed behind it. */
#define SESSION_LOSS_DRAINS	3

/* The programs flushed their buffers when they stopped; their wakeups may
 * still be queued behind the controller's reply, and a count taken before
 * those packets are on disk would miss their discarded events. Written
 * straight from the rings, they are on disk once their writes complete:
 * waited for, so that stop-session also answers once the files are whole. */
static void session_loss_drain(struct ustd_app *app, void *arg)
{
	struct ustd_app_stream *as;
	uint64_t limit;
	int i;

	(void)arg;
	for (as = app->streams; as; as = as->next) {
		if (!as->stream.open || as->stream.overwrite)
			continue;
		limit = ustd_stream_write_position(&as->stream);
		for (i = 0; i < SESSION_LOSS_DRAINS && ustd_app_drain_to(as, limit); i++)
			;
		ustd_app_settle(as);
	}
}

struct ustd_loss_tally *ustd_session_tally(struct ustd_session *s)
{
	if (!s->tally) {
		s->tally = calloc(1, sizeof(*s->tally));
		if (s->tally)
			s->tally->refs = 1;
	}
	return s->tally;
}

/* What the stopped traces lost, those of programs still running too (a
 * destroyed session's programs have left it, not its tally). */
static uint64_t session_loss_stopped(struct ustd_sessions *ss,
				     const struct ustd_loss_tally *tally)
{
	const struct ustd_app *app;
	uint64_t lost;

	if (!tally)
		return 0;
	lost = tally->lost;
	for (app = *ss->apps; app; app = app->next) {
		if (app->tally == tally)
			lost += ustd_app_lost(app);
	}
	return lost;
}

int ustd_session_loss(struct ustd_sessions *ss, const char *name,
		      const struct ustd_loss_tally *tally, const char *dir,
		      uint64_t *discarded)
{
	struct ustcomm_loss loss = USTCOMM_LOSS_INIT;
	struct ustd_session *s = ustd_session_find(ss, name);
	int ret;

	if (s)
		ustd_session_for_each_trace(ss, s, session_loss_drain, NULL);
	ret = ustcomm_loss_scan(&loss, dir, SESSION_LOSS_DEPTH);
	*discarded = ustcomm_loss_total(&loss) + session_loss_stopped(ss, tally);
	ustcomm_loss_free(&loss);
	return ret;
}
