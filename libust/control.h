/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The per-process control socket that carries the commands
 * (libustcomm/ctl_protocol.h, control_cmd.h); see control.c for how it
 * runs without a thread.
 */
#ifndef UST_CONTROL_H
#define UST_CONTROL_H

#include <stddef.h>
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/strbuf.h"

enum ust_control_mode {
	UST_CONTROL_SIGNAL,		/* served from the signal handler */
	UST_CONTROL_THREAD,		/* served by a listener thread */
	UST_CONTROL_NONE,		/* no control socket */
};

/* Executes a decoded request, appends the whole reply: the commands
 * (control_cmd.h), which sit above the socket that carries them. */
typedef void (*ust_control_handler)(const struct ustcomm_ctl_msg *req,
				    struct ustcomm_strbuf *out);

/* At load time, in a normal context: requests go to handle. */
int ust_control_init(enum ust_control_mode mode, int sig, ust_control_handler handle);
/* Under ust_lock, in a normal context (not a signal handler): a listener
 * thread serves the socket from now on; why is said by ustctl info. */
void ust_control_start_thread(const char *why);
/* Under ust_lock, in a normal context: the listener thread takes over when
 * the program replaced libust's handler of the control signal. */
void ust_control_check(void);
/* Under ust_lock, after buffers were made: their pages are made by the
 * listener thread if there is one, else now (channel.h).
 * Async-signal-safe. */
void ust_control_populate(void);
/* The same without the lock, from anywhere (a thread buffer's writer):
 * only asks the listener thread, when there is one; async-signal-safe. */
void ust_control_populate_soon(void);
/* Under ust_lock: how the socket is served, for ustctl info. */
void ust_control_describe(char *buf, size_t len);
/* Under ust_lock, in the child of fork(): a socket of its own, or in
 * signal mode with defer, none until ust_control_open(). */
void ust_control_after_fork_child(int defer);
/* Under ust_lock, async-signal-safe: the socket, if there is none yet. */
void ust_control_open(void);
/* Under ust_lock, at exit: closes and removes the socket. */
void ust_control_fini(void);

#endif
