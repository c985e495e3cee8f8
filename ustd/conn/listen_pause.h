/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A listening socket that stops being watched while ustd cannot take
 * connections (out of descriptors, or memory): level-triggered, a
 * readable listener left in the epoll set would wake ustd at once, again
 * and again. Paused, the connections wait in the backlog (a client's
 * connect() waits, or fails once the backlog is full); the socket is
 * watched again when the owner says descriptors were freed, or at the
 * latest after USTD_LISTEN_RETRY_S.
 */
#ifndef USTD_LISTEN_PAUSE_H
#define USTD_LISTEN_PAUSE_H

#include <stdbool.h>
#include <sys/epoll.h>
#include "ustd/conn/conn.h"

#define USTD_LISTEN_RETRY_S	1

struct ustd_listen_pause {
	struct ustd_watch timer_watch;	/* USTD_WATCH_LISTEN_RETRY */
	int epfd;
	int listen_fd;
	struct epoll_event ev;		/* listen_fd's registration */
	int timer_fd;			/* one-shot, armed while paused */
	bool paused;
};

/* Watches listen_fd with ev (not taken over). 0 or a negative errno. */
int ustd_listen_pause_init(struct ustd_listen_pause *p, int epfd, int listen_fd,
			   const struct epoll_event *ev);

/* Stops watching the socket; why (as strerror() says it) is told, once in
 * a while (log_repeat.h). */
void ustd_listen_pause(struct ustd_listen_pause *p, const char *what, const char *why);

/* Watches the socket again, if paused (the timer expired, or
 * descriptors were freed). */
void ustd_listen_resume(struct ustd_listen_pause *p);

/* From the timer: ustd_listen_pause_of(w) finds the owner. */
struct ustd_listen_pause *ustd_listen_pause_of(struct ustd_watch *w);

/* Closes the timer; the socket is the caller's. */
void ustd_listen_pause_fini(struct ustd_listen_pause *p);

#endif
