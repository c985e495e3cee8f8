/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A program's part of clear-session for a flight-recorder session: what
 * its buffers hold is discarded, as lttng clear empties a snapshot
 * session's buffers. The writers are not touched: each stream remembers
 * the position of the clear, and its snapshots and final ring
 * (ustd_stream_write_ring()) begin there.
 */
#ifndef USTD_APP_CLEAR_H
#define USTD_APP_CLEAR_H

#include "ustd/conn/conn.h"

/* Closes the open packets of app's flight-recorder streams and marks
 * everything before as cleared. Returns the streams cleared. */
unsigned ustd_app_clear_buffers(struct ustd_app *app);

#endif
