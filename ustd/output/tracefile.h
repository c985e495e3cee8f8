/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Bounded disk: one stream's packets cut into files of at most `size`
 * bytes of whole packets, of which only the newest `count` stay, as
 * LTTng's consumer does with --tracefile-size/--tracefile-count. The
 * files are named <stream>_<k> (index/<stream>_<k>.idx), k counting
 * from 0 modulo count: the file begun when count exist replaces the
 * oldest, so that a stream never holds more than count * size bytes (a
 * packet larger than size gets a file of its own, as in LTTng).
 * babeltrace2 orders the packets of the files left by their times.
 */
#ifndef USTD_TRACEFILE_H
#define USTD_TRACEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ustd/output/trace_dir.h"

struct ustd_tracefile {
	uint64_t size;			/* 0: one file named <stream>, unbounded */
	uint32_t count;			/* 0: keep every file */
	uint64_t files;			/* files begun before the current one */
};

/* The name of the file being written for stream: <stream>, or
 * <stream>_<k> with limits. Returns 0 or -ENAMETOOLONG. */
int ustd_tracefile_name(const struct ustd_tracefile *tf, const char *stream, char *out,
			size_t len);

/* Whether a packet of len bytes begins a new file after a file of
 * file_len bytes: the file holds packets and would pass its size. */
bool ustd_tracefile_full(const struct ustd_tracefile *tf, uint64_t file_len, uint64_t len);

/* Moves on to the next file of stream in td: removes the file it
 * replaces, if any, so that the caller can create it. Returns 0 or a
 * negative errno (the file could not be removed: the disk would grow). */
int ustd_tracefile_advance(struct ustd_tracefile *tf, const struct ustd_trace_dir *td,
			   const char *stream);

#endif
