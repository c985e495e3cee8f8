/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * How many events a trace lost, counted from what is on disk: the
 * events_discarded of the packet contexts (cumulative per stream, so the
 * largest seen per stream is its total), the same numbers babeltrace2
 * reports. A stream is known by its trace's uuid, stream id and instance
 * (CPU), so that the directories one buffer was written to (a restarted
 * ustd, a trace resumed after a full disk, tracefile series) count once.
 * And the one way it is told to the user, by usttrace and ustctl alike.
 */
#ifndef USTCOMM_LOSS_H
#define USTCOMM_LOSS_H

#include <stddef.h>
#include <stdint.h>
#include "libustcomm/common.h"

struct ustcomm_loss_stream;

struct ustcomm_loss {
	struct ustcomm_loss_stream *streams;
	size_t nr, alloc;
};

#define USTCOMM_LOSS_INIT	{ NULL, 0, 0 }

/* Reads the packet contexts of every stream file of the trace directory
 * dir and, depth levels down, of the directories below it but index/ and
 * hidden ones (a session's: its processes' traces, its archived chunks).
 * 0, or a negative errno (the counts of the files read so far stay). */
USTCOMM_API int ustcomm_loss_scan(struct ustcomm_loss *l, const char *dir, unsigned depth);
/* The events discarded over every stream scanned. */
USTCOMM_API uint64_t ustcomm_loss_total(const struct ustcomm_loss *l);
USTCOMM_API void ustcomm_loss_free(struct ustcomm_loss *l);

/* "PREFIX: warning: N events were discarded (what): ..." with the remedy,
 * on stderr; nothing when n is 0. */
USTCOMM_API void ustcomm_loss_warn(uint64_t n, const char *what);

#endif
