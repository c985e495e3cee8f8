/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * A channel's blocking timeout as users write it and as the control
 * protocol carries it: how long a writer that finds the ring full waits
 * for ustd to release a sub-buffer before it discards the event
 * (libust/ring_buffer_wait.c). LTTng-UST's --blocking-timeout spelling:
 * "0" (never wait: discard at once, the default), "inf" (wait as long as
 * ustd lives), or a count of microseconds; "ms" and "s" suffixes are
 * accepted too, "us" says microseconds explicitly.
 */
#ifndef USTCOMM_BLOCKING_H
#define USTCOMM_BLOCKING_H

#include <stddef.h>
#include <stdint.h>
#include "libustcomm/common.h"

#define UST_BLOCKING_NEVER	0u
#define UST_BLOCKING_INF	UINT32_MAX
/* The longest finite timeout: about 71 minutes. */
#define UST_BLOCKING_MAX_US	(UINT32_MAX - 1u)
/* Enough for "inf" and any finite value in decimal. */
#define UST_BLOCKING_TEXT_MAX	16

/* 0 with *us set, or -EINVAL (the caller says what was expected).
 * Async-signal-safe: no locale, no allocation. */
USTCOMM_API int ustcomm_blocking_parse(const char *text, uint32_t *us);
/* "inf" or the microseconds in decimal. */
USTCOMM_API void ustcomm_blocking_format(char *buf, size_t len, uint32_t us);

#endif
