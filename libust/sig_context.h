/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Whether the calling thread runs a signal handler, for the writers that
 * would otherwise wait for ustd (ring_buffer_wait.c): a handler must never
 * wait, since the code it interrupted may hold the very packet ustd needs.
 *
 * libust exports sigaction() and signal() (LIBUST_1.2), so the program and
 * every library linked with -lust, which is all code that can trace,
 * install their handlers through it. Each handler is then entered through
 * a trampoline that records, per thread, the stack frame it runs on.
 * Handlers installed by code not linked with -lust, or by the raw system
 * call, are not seen: such a handler that calls into traced code is taken
 * for ordinary code (manual, "When the buffers fill").
 */
#ifndef UST_SIG_CONTEXT_H
#define UST_SIG_CONTEXT_H

/* 1 when the caller runs inside a handler entered through the trampoline,
 * else 0. Async-signal-safe. */
int ust_sig_in_handler(void);

#endif
