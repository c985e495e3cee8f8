/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Stream files closed while their writes from the ring were still at the
 * device (stream_direct.h): a rotation, the next file of a bounded
 * stream. Waiting for those writes in ustd's loop stalled every other
 * stream for the device's latency (about 210 us per 256 KiB packet; a
 * second and more on a lagging device), and the writers discarded
 * meanwhile. Such a file is set aside instead, no longer holding any of
 * the ring (its packets in flight were copied out: their writes are done
 * again from the copies), and finished when its writes complete: the
 * completions signal the stream's wake-up, whose drain comes here.
 *
 * Whoever must know when the files are whole (a rotation's chunk is
 * published only then) counts them with a ustd_close_wait.
 */
#ifndef USTD_STREAM_CLOSING_H
#define USTD_STREAM_CLOSING_H

#include <stdbool.h>
#include <stdint.h>
#include "ustd/conn/stream_direct.h"

/* Files not finished yet: pending counts them (its holder adds one of its
 * own while it sets them aside, and lets go of it after), and done(w) is
 * called once it comes down to 0. */
struct ustd_close_wait {
	unsigned pending;
	void (*done)(struct ustd_close_wait *w);
};

/* Lets go of one count of w; done(w) when it was the last. NULL is fine. */
void ustd_close_wait_put(struct ustd_close_wait *w);

struct ustd_closing_file;

/*
 * Sets aside d (writing fd, its index idx_fd of idx_len bytes; none of its
 * packets held in the ring) at the end of *list, counted on w (NULL:
 * nobody waits); d, fd and idx_fd are the list's then. name: the
 * stream's, for messages (copied). Returns 0, or -ENOMEM (nothing
 * taken: the caller closes them as before).
 */
int ustd_closing_add(struct ustd_closing_file **list, struct ustd_stream_direct *d, int fd,
		     int idx_fd, uint64_t idx_len, struct ustd_close_wait *w, const char *name);

/*
 * Finishes the files of *list whose writes completed (wait: every file,
 * waiting for the device). What they wrote adds to done: the largest
 * discarded and ts_end (a newer file's packets may have been written
 * already), and the packets a failed write cut off; not written, which
 * the caller counted when it set the file aside (ustd_stream_direct_queued():
 * a rotation's chunk is sized when it ends).
 */
void ustd_closing_poll(struct ustd_closing_file **list, bool wait, struct ustd_direct_done *done);

#endif
