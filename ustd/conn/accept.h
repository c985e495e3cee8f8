/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Taking connections on ustd's socket without letting the clients harm
 * ustd: a bounded number per wake-up (the signals and the applications
 * already traced are served between), and none while descriptors run
 * short (listen_pause.h): ustd listens again once a connection closed,
 * or after a second. Each connection must say HELLO in time
 * (handshake.h).
 */
#ifndef USTD_ACCEPT_H
#define USTD_ACCEPT_H

#include <stdbool.h>
#include "ustd/conn/app.h"
#include "ustd/conn/listen_pause.h"

struct ustd_handshake;

struct ustd_accept {
	struct ustd_watch listen_watch;	/* USTD_WATCH_LISTEN */
	struct ustd_listen_pause pause;
	const struct ustd_ctx *ctx;
	struct ustd_app **apps;		/* main()'s list: accepted ones go first */
	struct ustd_handshake *handshake;	/* told of every connection */
	int listen_fd;
	/* Accepting stops while the descriptors left are this few: what
	 * the applications already traced send (a stream's memfd and
	 * eventfd) and what ustd opens for them (its file) needs room. */
	int reserve;
	int limit;			/* RLIMIT_NOFILE, as read at start */
};

/* Watches listen_fd (still the caller's to close). 0 or a negative
 * errno. */
int ustd_accept_start(struct ustd_accept *a, const struct ustd_ctx *ctx, int listen_fd,
		      struct ustd_app **apps, struct ustd_handshake *handshake);

/* The socket is readable: accepts up to a batch of connections. */
void ustd_accept_on_listen(struct ustd_accept *a);

/* Descriptors were closed: listens again if it paused. */
void ustd_accept_resume(struct ustd_accept *a);

/* ustd is exiting: takes the connections left in the backlog (programs
 * that may have sent everything and exited), as many as descriptors allow. */
void ustd_accept_backlog(struct ustd_accept *a);

void ustd_accept_fini(struct ustd_accept *a);

#endif
