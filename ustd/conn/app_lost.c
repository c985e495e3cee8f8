/* SPDX-License-Identifier: GPL-2.0-only */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include "libustcomm/log.h"
#include "ustd/conn/app_lost.h"

void ustd_app_hold_streams(struct ustd_app *app)
{
	struct ustd_app_stream *as;

	for (as = app->streams; as; as = as->next) {
		if (!as->stream.open)
			continue;
		/* The application still holds the eventfd: closing ours would
		 * not take it out of the epoll set. */
		epoll_ctl(app->ctx->epfd, EPOLL_CTL_DEL, as->stream.wakeup_fd, NULL);
		ustd_stream_hold(&as->stream);
	}
}

static bool app_holds_streams(const struct ustd_app *app)
{
	const struct ustd_app_stream *as;

	for (as = app->streams; as; as = as->next)
		if (as->stream.held)
			return true;
	return false;
}

uint64_t ustd_app_lost(const struct ustd_app *app)
{
	const struct ustd_app_stream *as;
	uint64_t lost = 0;

	for (as = app->streams; as; as = as->next)
		lost += ustd_stream_lost(&as->stream, &app->layouts);
	return lost;
}

void ustd_app_lost_end(struct ustd_app *app)
{
	uint64_t lost;

	if (!app->stopped || app->relayed)
		return;
	lost = ustd_app_lost(app);
	/* Its rings went to a wait for space (space_wait.h), which says. */
	if (app_holds_streams(app))
		ustcomm_warn("%s ended; %" PRIu64 " events it recorded are in no file of its trace, which was stopped by a write error",
			     app->label, lost);
	if (app->tally)
		app->tally->lost += lost;
	ustd_loss_tally_put(app->tally);
	app->tally = NULL;
}

struct ustd_lost_rings *ustd_app_take_rings(struct ustd_app *app)
{
	struct ustd_lost_rings *r = calloc(1, sizeof(*r));
	struct ustd_app_stream *as;
	size_t nr = 0;

	for (as = app->streams; as; as = as->next)
		nr += as->stream.held;
	if (r && nr)
		r->streams = calloc(nr, sizeof(*r->streams));
	if (!r || !r->streams) {
		free(r);
		return NULL;
	}
	for (as = app->streams; as; as = as->next) {
		if (!as->stream.held)
			continue;
		r->streams[r->nr++] = as->stream;
		as->stream.held = false;
	}
	r->layouts = app->layouts;
	app->layouts = (struct ustd_layouts) { NULL, 0 };
	return r;
}

uint64_t ustd_lost_rings_count(const struct ustd_lost_rings *r)
{
	uint64_t lost = 0;
	size_t i;

	for (i = 0; i < r->nr; i++)
		lost += ustd_stream_lost(&r->streams[i], &r->layouts);
	return lost;
}

void ustd_lost_rings_free(struct ustd_lost_rings *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr; i++)
		ustd_stream_close(&r->streams[i]);
	free(r->streams);
	ustd_layouts_free(&r->layouts);
	free(r);
}

struct ustd_loss_tally *ustd_loss_tally_get(struct ustd_loss_tally *t)
{
	if (t)
		t->refs++;
	return t;
}

void ustd_loss_tally_put(struct ustd_loss_tally *t)
{
	if (t && --t->refs == 0)
		free(t);
}
