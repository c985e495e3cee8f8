/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Traces stopped by a full disk, picked up again once there is room.
 *
 * ustd closes such a process's files (so that deleting them frees their
 * space) and its connection; the process keeps its buffers, whose writers
 * discard and count what no longer fits, and the sub-buffer that did not
 * fit stays unconsumed. Once a second, the free space of each waiting
 * process's output directory is looked at; with room for the process's
 * buffers, the process is asked to report here again (adopt.h), and its
 * trace goes on in a new directory from that sub-buffer on. Its rings
 * stay mapped here meanwhile: when the process ends instead, what they
 * held and discarded is counted and said.
 */
#ifndef USTD_SPACE_WAIT_H
#define USTD_SPACE_WAIT_H

#include <stdint.h>
#include <sys/types.h>
#include "ustd/conn/adopt.h"
#include "ustd/conn/conn.h"
#include "ustd/conn/app_lost.h"

struct ustd_space_wait {
	struct ustd_watch watch;	/* USTD_WATCH_SPACE_TIMER */
	const struct ustd_ctx *ctx;
	struct ustd_adopt *adopt;
	const char *sock_path;		/* ours, for the reconnect requests */
	int timer_fd;			/* armed while a process waits */
	struct ustd_space_waiter *waiters;
};

void ustd_space_wait_init(struct ustd_space_wait *sw, const struct ustd_ctx *ctx,
			  struct ustd_adopt *adopt, const char *sock_path);

/* pid's trace, going to dir, stopped for want of space; need: the bytes
 * that must be free before it is asked back; rings: its rings (taken
 * over, also on failure; NULL: none to count). Returns 0 or a negative
 * errno (the process is then not asked back: said by the caller). */
int ustd_space_wait_add(struct ustd_space_wait *sw, pid_t pid, const char *dir, uint64_t need,
			struct ustd_lost_rings *rings);

/* The timer fired: asks back the processes whose directory has room, and
 * forgets those that ended. */
void ustd_space_wait_on_timer(struct ustd_space_wait *sw);

void ustd_space_wait_fini(struct ustd_space_wait *sw);

#endif
