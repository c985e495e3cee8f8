/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The perf counters of the perf:thread:* contexts (event_context.h), as
 * perf_event_open() knows them: opened on the calling thread, user-space
 * counts only. Async-signal-safe (system calls and ustcomm_format()).
 */
#ifndef USTCOMM_PERF_EVENT_H
#define USTCOMM_PERF_EVENT_H

#include <stddef.h>
#include "libustcomm/common.h"

/* The descriptor of a new counter of context id, or a negative errno. */
USTCOMM_API int ustcomm_perf_open(int id);
/* Whether such a counter can be opened here: 0, or the negative errno
 * with the cause and what to do about it in why. */
USTCOMM_API int ustcomm_perf_check(int id, char *why, size_t why_size);

#endif
