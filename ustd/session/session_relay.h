/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Sessions streamed to lttng-relayd (ustctl create-session -r URL): the
 * session's relay session and connection (relay_share.h), opened when the
 * session is created, and the traces that join it. The session's local
 * directory, OUTPUT/NAME-YYYYMMDD-HHMMSS under ustd's output, names the
 * session's directory at relayd and takes what relayd cannot (the
 * fallback); it goes when nothing fell back into it.
 */
#ifndef USTD_SESSION_RELAY_H
#define USTD_SESSION_RELAY_H

#include <stddef.h>
#include "ustd/session/session.h"

/* What a streamed session refuses, for want of it being done. */
#define USTD_SESSION_RELAY_NO_ROTATION \
	"session '%s' streams to lttng-relayd: rotation of streamed sessions is not done (manual 4.2); rotate a session whose traces are local (-o DIR)"

/*
 * create-session -r url, once s->dir is made: connects to relayd and
 * creates the relay session. 0, or a negative errno with why (of size
 * why_size) saying what failed; s->dir is then removed.
 */
int ustd_session_relay_open(struct ustd_session *s, const struct ustd_ctx *ctx, const char *url,
			    char *why, size_t why_size);

/* HELLO of a trace named like a streamed session: files app under the
 * session and returns the session's share; NULL for any other trace. */
struct ustd_relay_share *ustd_session_relay(struct ustd_sessions *ss, struct ustd_app *app,
					    const char *trace_name);

#endif
