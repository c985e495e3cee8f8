/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * start-session's account of the running programs it left alone: they
 * match the session but trace another session already (or a trace of
 * their own) and hold the most traces a process may (four). The reply names those
 * sessions, so that a session that traces none of them is not a mystery.
 */
#ifndef USTD_SESSION_BUSY_H
#define USTD_SESSION_BUSY_H

#include <stddef.h>
#include <sys/types.h>
#include "ustd/session/session.h"

struct ustd_busy {
	pid_t *pids;
	size_t nr, cap;
};

/* Program pid was left alone. 0 or -ENOMEM (then it is not counted). */
int ustd_busy_add(struct ustd_busy *b, pid_t pid);
void ustd_busy_fini(struct ustd_busy *b);

/*
 * The programs of b by the session whose trace they hold ("" for a trace
 * of no session of this ustd, or one ustd has not heard of yet): pairs of
 * strings NAME, COUNT added to args (the counts written in nums, one per
 * pair), at most b->nr pairs. Returns how many strings it added.
 */
size_t ustd_busy_tally(struct ustd_sessions *ss, const struct ustd_busy *b, const char **args,
		       char (*nums)[16]);

#endif
