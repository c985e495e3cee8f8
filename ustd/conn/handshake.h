/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A connection costs ustd two descriptors (the socket, the process's
 * pidfd) for as long as it lasts. A program linked with libust says HELLO
 * as soon as it connected; a client that has not, USTD_HANDSHAKE_TIMEOUT_S
 * after connecting (it said nothing, or stopped in the middle of its
 * HELLO), is dropped. A program that said HELLO is never dropped for
 * being quiet: that is a traced program with nothing to say.
 */
#ifndef USTD_HANDSHAKE_H
#define USTD_HANDSHAKE_H

#include <stdbool.h>
#include "ustd/conn/app.h"

#define USTD_HANDSHAKE_TIMEOUT_S	5

struct ustd_handshake {
	struct ustd_watch watch;	/* USTD_WATCH_HANDSHAKE_TIMER */
	int epfd;
	int timer_fd;			/* ticks each second while armed */
	bool armed;
	struct ustd_app **apps;		/* main()'s list */
};

/* 0 or a negative errno. */
int ustd_handshake_init(struct ustd_handshake *h, int epfd, struct ustd_app **apps);

/* A connection was accepted: the timer runs until it said HELLO or went. */
void ustd_handshake_add(struct ustd_handshake *h);

/* The timer ticked: drops the connections late with their HELLO. */
void ustd_handshake_on_timer(struct ustd_handshake *h);

void ustd_handshake_fini(struct ustd_handshake *h);

#endif
