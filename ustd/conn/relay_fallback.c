/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include "libustcomm/log.h"
#include "ustd/output/output.h"
#include "ustd/output/packet_index.h"
#include "ustd/conn/relay_fallback.h"

struct ustd_app *ustd_fallback_app(struct ustd_sink *sink)
{
	return (struct ustd_app *)((char *)sink - offsetof(struct ustd_app, sink));
}

int ustd_fallback_open(struct ustd_app *app)
{
	struct ustd_app_stream *as;
	struct ustd_stream_out *o;
	int ret = 0;

	if (!app->td.path) {
		/* A session's trace keeps the session's layout. */
		ret = app->sink.share ?
			ustd_trace_dir_create_proc(&app->td, app->dir, app->procname, app->pid) :
			ustd_trace_dir_create(&app->td, app->dir, app->procname, app->pid,
					      app->started);
		if (ret == 0 && app->metadata.len)
			ret = ustd_trace_dir_append_metadata(&app->td, app->metadata.buf,
							     app->metadata.len);
	}
	for (as = app->streams; as && ret == 0; as = as->next) {
		o = &as->stream.out;
		if (o->fd >= 0 ||
		    (!as->stream.open && !ustd_relay_pending_has(&app->sink.pending, o)))
			continue;
		ret = ustd_stream_out_create(o, &app->td, as->stream.name);
	}
	return ret;
}

/* One packet as relayd was sent it, and its index entry; nothing of it
 * when either write fails. */
static int fallback_write(struct ustd_stream_out *out, const char *pkt, size_t len)
{
	struct ust_index_entry e;
	int ret;

	ustd_index_entry(&e, pkt, out->len);
	ret = ustd_write_all(out->fd, pkt, len);
	if (ret == 0)
		ret = ustd_write_all(out->idx_fd, &e, sizeof(e));
	if (ret < 0) {
		if (ftruncate(out->fd, (off_t)out->len) < 0 ||
		    ftruncate(out->idx_fd, (off_t)out->idx_len) < 0)
			ustcomm_dbg("cutting off a partial packet of the relay fallback: %s",
				    strerror(errno));
		return ret;
	}
	out->len += len;
	out->idx_len += sizeof(e);
	return 0;
}

int ustd_fallback_write_kept(struct ustd_app *app)
{
	struct ustd_app_stream *as;
	int ret = 0;

	ustd_relay_pending_drop_confirmed(&app->sink.pending);
	for (as = app->streams; as && ret == 0; as = as->next) {
		if (as->stream.out.fd >= 0)
			ret = ustd_relay_pending_flush(&app->sink.pending, &as->stream.out,
						       fallback_write);
		/* A stream closed meanwhile had its file made for its copies. */
		if (!as->stream.open)
			ustd_stream_out_close(&as->stream.out);
	}
	return ret;
}

int ustd_fallback_spill(struct ustd_sink *sink, struct ustd_stream_out *out, const char *pkt,
			size_t len)
{
	struct ustd_app *app = ustd_fallback_app(sink);
	struct ustd_app_stream *as;
	uint64_t kept = sink->pending.bytes;
	int ret = 0;

	/* The copies are written below: none may still be on its way out.
	 * Then most of what is kept may be written by now: ask first. */
	ret = ustd_relay_sync(sink->relay);
	for (as = app->streams; as && ret == 0; as = as->next) {
		if (as->stream.out.sink)
			ret = ustd_stream_confirm(&as->stream);
	}
	if (ret < 0) {
		/* relayd is gone: lost() wrote the copies with the rest. */
		sink->lost(sink);
		return app->stopped ? -EIO : out ? fallback_write(out, pkt, len) : 0;
	}
	ustd_relay_pending_drop_confirmed(&sink->pending);
	if (!out && !ustd_relay_pending_over(&sink->pending))
		return 0;
	ret = ustd_fallback_open(app);
	if (ret == 0)
		ret = ustd_fallback_write_kept(app);
	if (ret == 0 && out)
		ret = fallback_write(out, pkt, len);
	if (ret < 0)
		return ret;
	/* Rounded up: "more than the 8192 KiB" must not read 8192 KiB. */
	if (!sink->pending.spilled++)
		ustcomm_err("lttng-relayd at %s is behind on %s: %llu KiB of packets it has not confirmed writing (more than the %llu KiB kept for it) are written to %s too",
			    app->relay_text, app->label, (unsigned long long)((kept + 1023) >> 10),
			    (unsigned long long)(sink->pending.max >> 10), app->td.path);
	return 0;
}
