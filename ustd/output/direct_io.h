/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A stream file written with O_DIRECT straight from the memory its packets
 * are in (the shared ring), several writes in flight through io_uring.
 *
 * Written through the page cache, every packet was copied there, then
 * written back and dropped by the writeback thread (writeback.h): the copy
 * and the page-cache bookkeeping were most of ustd's CPU per event, and a
 * synchronous O_DIRECT write stalled the drain for the device's latency
 * (210 us per 256 KiB, manual 10.7). Here the drain submits and goes on;
 * the device works on several packets at once, and the sub-buffers go back
 * to the writers as their writes complete, in the order they were
 * submitted (the ring is released in order).
 *
 * Every completion is signalled on an eventfd the caller polls (a stream's
 * wakeup), so that the drain runs again when a write is done and nothing
 * waits on the disk but a caller that asks to.
 *
 * Not every file can be written so: tmpfs (its page cache is the file: a
 * direct write would be the same copy), a file system refusing O_DIRECT, a
 * kernel without io_uring or with it disabled (sysctl
 * kernel.io_uring_disabled, seccomp), ustd built without liburing. Then
 * ustd_dio_open() says why, the file is left as it was, and the caller
 * writes through the page cache.
 */
#ifndef USTD_DIRECT_IO_H
#define USTD_DIRECT_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Offsets, lengths and the memory written from: the page size of x86 and
 * the logical block size of common devices (at most 4096). */
#define USTD_DIO_ALIGN		4096
/* Writes in flight per file: enough for the drain never to wait on the
 * device, a quarter of a default ring (16 sub-buffers) at most held back
 * from the writers, and those would be waiting to be written anyway. */
#define USTD_DIO_DEPTH		4

struct ustd_dio;

/* From now on every file is written through the page cache (ustd
 * --page-cache): ustd_dio_open() refuses them, saying so. */
void ustd_dio_refuse(void);

/*
 * Makes fd (a regular file open for writing) a direct one, its completions
 * signalled on notify_fd (an eventfd). Returns 0 with *d, or 1 with *why
 * (a constant string) when the file is to be written through the page
 * cache, or a negative errno (memory).
 */
int ustd_dio_open(struct ustd_dio **d, int fd, int notify_fd, const char **why);

/* Ends the writes still in flight (waiting for them) and frees d; fd stays
 * open. NULL is fine. */
void ustd_dio_close(struct ustd_dio *d);

unsigned ustd_dio_in_flight(const struct ustd_dio *d);

/*
 * Starts writing len bytes at pkt (USTD_DIO_ALIGN-aligned, unchanged until
 * the write completes) at offset (aligned), its first head_len bytes
 * replaced by head's and zeroes after len up to the next multiple of
 * USTD_DIO_ALIGN. tag comes back with the write's completion. Returns 0 or
 * a negative errno (-EBUSY: USTD_DIO_DEPTH writes in flight).
 */
int ustd_dio_submit(struct ustd_dio *d, const char *pkt, size_t len, const char *head,
		    size_t head_len, uint64_t offset, void *tag);

/*
 * A write that completed, in whatever order the device finished them: its
 * tag in *tag and its outcome in *result (0, or a negative errno; a short
 * write is finished synchronously). Returns 0, -EAGAIN when none completed
 * (wait false) or none is in flight, or another negative errno when waiting
 * failed.
 */
int ustd_dio_reap(struct ustd_dio *d, bool wait, void **tag, int *result);

/* Asks the kernel to give up the writes in flight that have not started:
 * they complete with -ECANCELED; those under way complete as they would.
 * Returns 0 or a negative errno. */
int ustd_dio_cancel(struct ustd_dio *d);

/* Writes a packet held anywhere (a private copy), as ustd_dio_submit()
 * would, and waits for it; no other write may be in flight. Returns 0 or a
 * negative errno. */
int ustd_dio_write_copy(struct ustd_dio *d, const char *pkt, size_t len, const char *head,
			size_t head_len, uint64_t offset);

#endif
