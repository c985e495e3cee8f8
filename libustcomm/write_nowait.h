/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * A write to a descriptor that libust shares with the program it lives in
 * (its stderr): it never waits for a reader, never raises SIGPIPE, and
 * leaves the descriptor's file status flags, which the program and its
 * parent share, as they were.
 */
#ifndef USTCOMM_WRITE_NOWAIT_H
#define USTCOMM_WRITE_NOWAIT_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Writes len bytes (at most PIPE_BUF, so that a pipe takes all or nothing)
 * or nothing: returns len, or -EAGAIN when the reader is behind, -EPIPE
 * when nobody reads any more, another negative errno otherwise.
 * Async-signal-safe: system calls only.
 */
ssize_t ustcomm_write_nowait(int fd, const void *buf, size_t len);

#endif
