/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The one lock of libust's slow paths: registry, trace, channels, control.
 * Its holder has the control signal blocked (see lock.c), so the control
 * server, which runs in a signal handler, never waits for the thread it
 * interrupted.
 */
#ifndef UST_LOCK_H
#define UST_LOCK_H

void ust_lock(void);
void ust_unlock(void);
/* ust_lock(), or -EDEADLK when the calling thread holds it already (the
 * caller runs in a signal handler that interrupted the holder).
 * Async-signal-safe. */
int ust_lock_unless_held(void);
/* The control signal ust_lock() blocks; set once, before any caller. */
void ust_lock_set_signal(int sig);

#endif
