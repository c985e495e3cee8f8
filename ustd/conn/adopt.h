/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Picking up the traces of a ustd that died: at start-up, every control
 * socket of our user in <rundir>/apps is asked to report here
 * (USTCOMM_CTL_RECONNECT). An application whose ustd is gone connects
 * back, describes its trace again and hands over its buffers, which we
 * continue from where the last consumer stopped; one connected to a live
 * ustd declines. Nothing waits: connections and requests are non-blocking,
 * answers arrive through the epoll loop, and a timer forgets the
 * applications that did not answer in time.
 */
#ifndef USTD_ADOPT_H
#define USTD_ADOPT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "ustd/conn/conn.h"

#define USTD_ADOPT_REPLY_MAX	1024

struct ustd_adopt_conn {
	struct ustd_watch watch;	/* USTD_WATCH_ADOPT */
	struct ustd_adopt_conn *next;
	int fd;
	pid_t pid;
	bool done;			/* closed; freed by ustd_adopt_reap() */
	size_t len;
	char reply[USTD_ADOPT_REPLY_MAX];
};

struct ustd_adopt {
	struct ustd_watch timer_watch;	/* USTD_WATCH_ADOPT_TIMER */
	const struct ustd_ctx *ctx;
	int timer_fd;
	struct ustd_adopt_conn *conns;
};

/* Asks every application; sock_path is ours, absolute. Failing to ask is
 * not fatal: those applications keep running without a consumer. */
void ustd_adopt_start(struct ustd_adopt *a, const struct ustd_ctx *ctx, const char *sock_path);
/* Asks one application, pid, to report here (a trace stopped by a full
 * disk, space_wait.h), under the same deadline. */
void ustd_adopt_ask_pid(struct ustd_adopt *a, pid_t pid, const char *sock_path);
void ustd_adopt_on_conn(struct ustd_adopt *a, struct ustd_adopt_conn *c);
void ustd_adopt_on_timer(struct ustd_adopt *a);
/* Frees the connections closed during the last epoll batch. */
void ustd_adopt_reap(struct ustd_adopt *a);
void ustd_adopt_fini(struct ustd_adopt *a);

#endif
