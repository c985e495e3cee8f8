/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Durations as users write them (--rotate-every, --on-rotate-timeout):
 * a decimal count followed by a unit, us, ms, s, m or h; a bare count is
 * microseconds, as LTTng's enable-rotation --timer takes it.
 */
#ifndef USTCOMM_DURATION_H
#define USTCOMM_DURATION_H

#include <stddef.h>
#include <stdint.h>
#include "libustcomm/common.h"

/* 0 with *us within [min_us, max_us], or -EINVAL (the caller says what
 * was expected). */
USTCOMM_API int ustcomm_parse_duration(const char *text, uint64_t min_us, uint64_t max_us,
				       uint64_t *us);

/* The reverse, in the largest unit that divides it ("10m", "500ms",
 * "1500us"); 0 is "0us". */
USTCOMM_API void ustcomm_format_duration(char *buf, size_t len, uint64_t us);

#endif
