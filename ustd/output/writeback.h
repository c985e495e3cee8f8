/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The page cache and the blocks behind ustd's stream files, kept by a
 * thread of their own.
 *
 * Left to the kernel, a trace written at full speed stays in the page cache
 * until writeback begins at the dirty limit, gigabytes later: ustd's memory
 * grows with the trace, and every new page costs its allocation (on a VM
 * whose memory the host backs on first touch, writing a 256 KiB packet took
 * 680 us instead of 60, and the writers discarded; manual 10.7). Here the
 * written part of a file is handed to writeback a MiB at a time and, once
 * a window behind the end and written to disk, dropped from the cache: the
 * pages ustd writes into are the ones it gave back.
 *
 * None of it runs on the drain: sync_file_range() and fallocate() were seen
 * to block for 5 to 620 ms (device queue, journal), longer than a ring
 * lasts at full speed. The drain only publishes how far each file is
 * written; this thread reserves blocks ahead of that (ext4) and does the
 * rest. When it is slow, the cache grows as it did without it; nothing
 * waits for it.
 */
#ifndef USTD_WRITEBACK_H
#define USTD_WRITEBACK_H

#include <stdbool.h>
#include <stdint.h>

struct ustd_wb_file;

/* Starts the thread. Without it (it could not start: said on stderr),
 * ustd_wb_open() returns NULL and files are left to the kernel. */
int ustd_writeback_start(void);
/* Closes what is still open (ustd_wb_close) and ends the thread. */
void ustd_writeback_stop(void);

/*
 * Takes a file over: the thread works on a duplicate of fd, the caller
 * keeps fd. prealloc_chunk: bytes reserved ahead at a time (0: none).
 * window: bytes behind the end kept in the page cache. NULL when the
 * thread is not running or memory is short: the file is then left alone.
 */
struct ustd_wb_file *ustd_wb_open(int fd, uint64_t prealloc_chunk, uint64_t window);
/* The file holds len bytes of whole packets now (only grows). */
void ustd_wb_written(struct ustd_wb_file *f, uint64_t len);
/* Whether what was written is on disk but for the window: true for NULL.
 * The drain's call, as ustd_wb_written(). */
bool ustd_wb_caught_up(const struct ustd_wb_file *f);
/* The file is complete at len bytes: the thread gives back the blocks
 * reserved past len and closes its duplicate. f is not used after. */
void ustd_wb_close(struct ustd_wb_file *f, uint64_t len);

#endif
