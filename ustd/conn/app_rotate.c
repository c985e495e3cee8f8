/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One process's part of a session's rotation. Each packet goes to exactly
 * one chunk: the packets open at the rotation are closed (as the live
 * timer closes them) and every packet that ends before that point is
 * written to the chunk that ends; the writers go on into the next packet,
 * which is the next chunk's. A packet a writer is still filling when the
 * rotation looks (preempted in the middle of an event) is waited for, up
 * to ROTATE_WAIT_NS: past that it is complete later and goes to the next
 * chunk, whole, and the chunk after holds events older than some of the
 * one before (the writer's thread may have gone on in another CPU's
 * packet before it was preempted back in this one).
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include "libustcomm/clock.h"
#include "ustd/conn/app_rotate.h"

/* Drains of at most one ring each: the flushed ring, and the packets the
 * flush completed behind it. */
#define ROTATE_DRAINS	3
/* How long one process's rotation waits for a writer preempted in the
 * middle of an event: ustd's loop waits with it, so a bound of a few
 * scheduler ticks; ustd sleeps meanwhile (it may be SCHED_FIFO on the
 * writer's CPU). */
#define ROTATE_WAIT_NS	20000000L
#define ROTATE_NAP_NS	100000L

bool ustd_app_drain_to(struct ustd_app_stream *as, uint64_t limit)
{
	int ret;

	if (as->app->closed || !as->stream.open)
		return false;
	ret = ustd_stream_drain(&as->stream, limit);
	if (ret < 0)
		as->app->ops->fail(as->app, ret);
	else if (ret > 0)
		as->app->ops->close_stream(as);
	return ret == 0 && as->stream.open && ustd_stream_more_before(&as->stream, limit);
}

void ustd_app_settle(struct ustd_app_stream *as)
{
	int ret;

	if (as->app->closed || !as->stream.open)
		return;
	ret = ustd_stream_settle(&as->stream);
	if (ret < 0)
		as->app->ops->fail(as->app, ret);
}

/* Whether the streams wrote nothing since the chunk began. */
static bool app_idle(const struct ustd_app *app)
{
	const struct ustd_app_stream *as;

	for (as = app->streams; as; as = as->next) {
		if (as->stream.out.written != as->chunk_base)
			return false;
	}
	return true;
}

int ustd_app_rotate(struct ustd_app *app, const char *chunk, bool skip_idle,
		    struct ustd_close_wait *w)
{
	int tsc = app->clock == USTCOMM_CLOCK_TSC, i, ret = 0;
	const struct timespec nap = { 0, ROTATE_NAP_NS };
	struct ustd_app_stream *as;
	long waited = 0;

	/* Nothing recorded yet: nothing to archive, the directory stays. */
	if (app->closed || app->relayed || app->stopped || !app->td.path ||
	    !app->td.metadata_len)
		return 0;
	for (as = app->streams; as; as = as->next) {
		if (!as->stream.open || as->stream.overwrite)
			continue;
		/* Written straight from the ring, the drain below would wait
		 * for the device, packet after packet, in ustd's loop. */
		ustd_stream_direct_closing(as->stream.out.direct);
		ustcomm_cbuf_flush(&as->stream.cb, tsc, NULL);
		as->rot_limit = ustd_stream_write_position(&as->stream);
	}
	/* The metadata of every event before those positions is in the
	 * socket now: on disk before the events (as ustd_app_on_stream()). */
	app->ops->take_sent(app);
	for (as = app->streams; as; as = as->next) {
		if (as->stream.overwrite)
			continue;
		for (i = 0; i < ROTATE_DRAINS && ustd_app_drain_to(as, as->rot_limit); i++)
			;
		while (i == ROTATE_DRAINS && waited < ROTATE_WAIT_NS &&
		       ustd_app_drain_to(as, as->rot_limit)) {
			nanosleep(&nap, NULL);
			waited += ROTATE_NAP_NS;
		}
	}
	/* Ended meanwhile: its directory is whole, and moved as an ended
	 * process's is (session_rotate.c). */
	if (app->closed || app->stopped || !app->td.path || (skip_idle && app_idle(app)))
		return 0;
	for (as = app->streams; as; as = as->next) {
		if (as->stream.open && w)
			ustd_stream_out_close_later(&as->stream.out, w);
		else if (as->stream.open)
			ustd_stream_out_close(&as->stream.out);
	}
	ret = ustd_trace_dir_rotate(&app->td, chunk);
	for (as = app->streams; as && ret == 0; as = as->next) {
		if (!as->stream.open)
			continue;
		as->stream.out.tf.files = 0;
		ret = ustd_stream_out_create(&as->stream.out, &app->td, as->stream.name);
		as->stream.dir = app->td.path;
	}
	if (ret < 0)
		app->ops->fail(app, ret);
	return ret;
}
