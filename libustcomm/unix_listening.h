/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Whether a program listens on a control socket, without connecting to
 * it: a connection rings the program's control signal (libust/control.c),
 * and a controller that only lists programs must not.
 */
#ifndef USTCOMM_UNIX_LISTENING_H
#define USTCOMM_UNIX_LISTENING_H

#include "libustcomm/common.h"

/* 1 when a socket of this network namespace listens on path (as bound,
 * an absolute path), 0 when none does, -errno when the kernel's table
 * (/proc/net/unix) cannot be read. Not for signal context (stdio). */
USTCOMM_API int ustcomm_unix_listening(const char *path);

#endif
