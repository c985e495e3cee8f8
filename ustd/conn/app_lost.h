/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a trace stopped by a write error (a full disk) loses, counted: its
 * streams are held (ustd_stream_hold()) until the process ends, and what
 * their rings never gave to a file is told then, by ustd and, for a
 * session's program, by stop-session and destroy-session (session_loss.h).
 * A trace paused for space (space_wait.h) hands its rings to the wait.
 */
#ifndef USTD_APP_LOST_H
#define USTD_APP_LOST_H

#include <stdint.h>
#include "ustd/conn/conn.h"

/* A paused trace's rings, out of its application (which goes away). */
struct ustd_lost_rings {
	struct ustd_stream *streams;
	size_t nr;
	struct ustd_layouts layouts;
};

/* Holds app's open streams: out of the epoll set, files closed. */
void ustd_app_hold_streams(struct ustd_app *app);

/* The events app's held streams lost so far (ustd_stream_lost()). */
uint64_t ustd_app_lost(const struct ustd_app *app);

/* The process of a stopped trace ends: says what it lost and adds it to
 * its session's tally. Nothing for a trace that was not stopped. */
void ustd_app_lost_end(struct ustd_app *app);

/* Moves app's held streams and its layouts out; NULL without memory
 * (they then stay app's) or when none is held. */
struct ustd_lost_rings *ustd_app_take_rings(struct ustd_app *app);

uint64_t ustd_lost_rings_count(const struct ustd_lost_rings *r);
/* Unmaps them; NULL is fine. */
void ustd_lost_rings_free(struct ustd_lost_rings *r);

/*
 * The events a session's traces lost outside their files: shared by the
 * session, its programs whose trace stopped and the controller waiting
 * to be told, since destroy-session frees the session before it answers.
 */
struct ustd_loss_tally {
	uint64_t lost;			/* of the programs that ended */
	unsigned refs;
};

struct ustd_loss_tally *ustd_loss_tally_get(struct ustd_loss_tally *t);
/* NULL is fine. */
void ustd_loss_tally_put(struct ustd_loss_tally *t);

#endif
