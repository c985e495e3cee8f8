/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Triggers on ustd's side: an application's trigger channel
 * (USTCOMM_MSG_TRIGGER_CHANNEL, protocol.h) and what a firing does: a
 * snapshot of the processes the hook chooses, at most --at-most times a
 * minute per trigger, the firings beyond that counted and said.
 */
#ifndef USTD_TRIGGER_H
#define USTD_TRIGGER_H

#include <stdbool.h>
#include <stdint.h>
#include "ustd/conn/conn.h"

struct ustd_trigger_window;

struct ustd_trigger_chan {
	struct ustd_watch watch;	/* USTD_WATCH_TRIGGER */
	struct ustd_app *app;
	/* Writes the snapshot a firing asks for (app.c's, set at attach:
	 * the channel never calls the application itself). */
	int (*snapshot)(struct ustd_app *app, const char *dir);
	int fd;
	struct ustd_trigger_window *windows;	/* one per trigger id seen */
	/* A snapshot reads the application's socket, which may end it and
	 * detach the channel being read: it is closed when the read is over. */
	bool reading;
	bool detached;
};

/* Whether one more snapshot fits in the last minute of a window of
 * at_most times (0: no limit); if so, it is counted in. */
int ustd_trigger_admit(uint64_t *times, uint32_t at_most, uint32_t *n, uint32_t *head);

/* Said whatever ustd's verbosity: a firing that was not snapshotted is news. */
void ustd_trigger_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Watches fd (taken, also on failure) as app's trigger channel, replacing
 * the one it had; a firing's snapshot is taken by snapshot. 0 or a
 * negative errno. */
int ustd_trigger_attach(struct ustd_app *app, int fd,
			int (*snapshot)(struct ustd_app *app, const char *dir));

/* The channel is readable: every firing it holds is handled. */
void ustd_trigger_on_readable(struct ustd_trigger_chan *c);

/* The application is freed (or ends without ustd_trigger_stop()):
 * firings still queued are handled, the totals said, the channel closed
 * and freed. */
void ustd_trigger_detach(struct ustd_app *app);

/*
 * When the application ends: takes the firings still queued, then stops
 * watching the channel, whose memory stays until ustd_trigger_detach()
 * when the application is freed, after the epoll batch that ended it: an
 * event of the channel later in that batch (its hang-up comes with the
 * application's) must still find it.
 */
void ustd_trigger_stop(struct ustd_app *app);

#endif
