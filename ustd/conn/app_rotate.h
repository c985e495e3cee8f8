/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A program's part of a session's rotation: what the session layer calls
 * when a chunk ends (ustd/session/session_rotate.c).
 */
#ifndef USTD_APP_ROTATE_H
#define USTD_APP_ROTATE_H

#include "ustd/conn/conn.h"

/* Drains as up to limit; true while a packet ending before limit is
 * left (at most a ring is taken a call). For a cut: this rotation, and
 * the count of what a stopped session's traces lost (session_loss.c). */
bool ustd_app_drain_to(struct ustd_app_stream *as, uint64_t limit);
/* Then waits for what was drained to be in the file whole (the writes
 * straight from the ring at the device: a few ms, longer while the disk
 * lags), so that a stopped session's files can be read and counted. */
void ustd_app_settle(struct ustd_app_stream *as);

/*
 * The session's chunk ends: closes the open packets of app's streams,
 * writes them out, moves app's trace directory into the directory chunk
 * and goes on in a fresh one. skip_idle: a trace that wrote nothing since
 * the chunk began (a process waiting, or the set of buffers per user when
 * nobody writes) stays where it is and goes on into the next chunk (a
 * scheduled rotation: no chunk of empty traces every period). Files whose
 * writes from the ring are still at the device are finished as those
 * complete, counted on w meanwhile (NULL: they are waited for here). 0, or
 * a negative errno (said; the trace of app is stopped).
 */
int ustd_app_rotate(struct ustd_app *app, const char *chunk, bool skip_idle,
		    struct ustd_close_wait *w);

#endif
