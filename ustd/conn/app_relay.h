/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A process's trace streamed to lttng-relayd: its own relay session
 * (ustd --relay, usttrace --relay), or its part of a streamed session's
 * (create-session -r, relay_share.h); the fallback to local files when
 * relayd goes away (relay_fallback.h).
 */
#ifndef USTD_APP_RELAY_H
#define USTD_APP_RELAY_H

#include <stdbool.h>
#include "ustd/conn/conn.h"

struct ustd_relay_share;

/* Opens the trace's own relay session; < 0: the trace stays local (said). */
int ustd_app_relay_open(struct ustd_app *app);
/* Joins a streamed session's relay session; < 0: kept local (said). */
int ustd_app_relay_join(struct ustd_app *app, struct ustd_relay_share *sh);
/* Announces a new stream to relayd; relayd gone: the stream and the
 * trace go to local files. */
int ustd_app_relay_stream(struct ustd_app *app, struct ustd_app_stream *as);
/* A relay call returned ret: on failure the trace falls back to files. */
void ustd_app_relay_check(struct ustd_app *app, int ret);
/* The end of a relayed trace, once relayd confirmed every packet. */
void ustd_app_relay_close(struct ustd_app *app);
/* Stops streaming; close_streams: the trace stopped midway. */
void ustd_app_relay_release(struct ustd_app *app, bool close_streams);

#endif
