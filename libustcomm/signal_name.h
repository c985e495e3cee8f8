/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The control signal's names (UST_SIGNAL): libust reads the variable,
 * ustctl reads it from a program's environment to say why the program
 * does not answer, and both name the signal in messages.
 */
#ifndef USTCOMM_SIGNAL_NAME_H
#define USTCOMM_SIGNAL_NAME_H

#include <stddef.h>
#include "libustcomm/common.h"

/* The signal libust uses when UST_SIGNAL is not set: its default action
 * is to ignore it, so a delivery where libust's handler is not installed
 * harms nothing. */
#define USTCOMM_SIGNAL_DEFAULT_NAME	"SIGURG"

/* A number, or a name with or without "SIG" (URG, IO, POLL, USR1, USR2,
 * RTMIN, RTMIN+N); NULL or "" is the default. Returns the signal, or
 * -EINVAL for one that is not usable (unknown, SIGKILL, SIGSTOP). */
USTCOMM_API int ustcomm_signal_parse(const char *s);

/* "SIGURG", "SIGRTMIN+3", or "signal N". Async-signal-safe. */
USTCOMM_API void ustcomm_signal_name(int sig, char *buf, size_t len);

#endif
