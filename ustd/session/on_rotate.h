/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --on-rotate: the command run on each archived chunk, as
 * `/bin/sh -c 'CMD "$1"' ustd-on-rotate CHUNK`, in a process group of its
 * own, stdin /dev/null, ustd's stdout and stderr. ustd never waits for it:
 * its end comes through a pidfd in the event loop, and a timerfd kills
 * the group when it runs past its bound. A failure (cannot start, non-zero
 * exit, killed) is reported on stderr with the chunk's path; tracing goes
 * on either way.
 */
#ifndef USTD_ON_ROTATE_H
#define USTD_ON_ROTATE_H

#include <stdint.h>

/* Starts cmd on chunk for session; 0 or a negative errno (said). */
int ustd_on_rotate_run(int epfd, const char *session, const char *cmd, const char *chunk,
		       uint64_t timeout_us);

/* Frees the commands that ended; after each epoll batch. */
void ustd_on_rotate_reap(void);

/* ustd exits: stops watching the commands (they run on, reparented). */
void ustd_on_rotate_fini(void);

#endif
