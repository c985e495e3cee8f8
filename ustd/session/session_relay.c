/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include "ustd/relay/relay_share.h"
#include "ustd/session/session_relay.h"

int ustd_session_relay_open(struct ustd_session *s, const struct ustd_ctx *ctx, const char *url,
			    char *why, size_t why_size)
{
	int ret;

	if (s->overwrite) {
		/* Its traces stay in memory until a snapshot writes them, and
		 * snapshots are written to local directories only. */
		snprintf(why, why_size, "session '%s': a flight-recorder session (--overwrite) cannot be streamed to lttng-relayd: its snapshots are written locally (-o DIR)",
			 s->name);
		ret = -EOPNOTSUPP;
	} else {
		ret = ustd_relay_share_open(&s->relay, url, s->name, ctx->hostname,
					    ctx->live_timer_us, s->dir, why, why_size);
	}
	if (ret < 0)
		rmdir(s->dir);
	return ret;
}

struct ustd_relay_share *ustd_session_relay(struct ustd_sessions *ss, struct ustd_app *app,
					    const char *trace_name)
{
	struct ustd_session *s = ustd_session_find(ss, trace_name);

	if (!s || !s->relay)
		return NULL;
	/* Buffers per user: the set's trace (its sink) is streamed; a
	 * process of the set joins it (ustd_session_trace_dir()). */
	if (s->per_uid && !app->uid_sink)
		return NULL;
	app->session = s;
	return s->relay;
}
