/* SPDX-License-Identifier: LGPL-2.1-only */
/* Buffer geometry as users write it: UST_SUBBUF_SIZE, --subbuf-size, ... */
#ifndef USTCOMM_BUFSIZE_H
#define USTCOMM_BUFSIZE_H

#include <stddef.h>
#include <stdint.h>
#include "libustcomm/common.h"

/* Parses decimal with an optional k or M suffix (powers of 1024) into a
 * power of two within [min, max]. Returns 0, or -EINVAL for anything else
 * (the caller says what was expected). */
USTCOMM_API int ustcomm_parse_pow2(const char *text, uint32_t min, uint32_t max,
				   uint32_t *out);

/* The decimal number text begins with (a digit first), *end after it.
 * 0 or -EINVAL (no digit, overflow). */
USTCOMM_API int ustcomm_parse_leading_u64(const char *text, uint64_t *v, const char **end);

/* The reverse: the largest suffix that divides v ("1M", "4096"). */
USTCOMM_API void ustcomm_format_size(char *buf, size_t len, uint64_t v);

/* Parses decimal with an optional k, M or G suffix (powers of 1024) into
 * a value within [min, max]. Returns 0 or -EINVAL. */
USTCOMM_API int ustcomm_parse_size(const char *text, uint64_t min, uint64_t max,
				   uint64_t *out);

/*
 * Bounded disk: each stream cut into files of at most this many bytes of
 * whole packets (0: one file, unbounded), only the newest count of them
 * kept (0: all). The smallest size is that of one padded packet on disk.
 */
#define UST_TRACEFILE_SIZE_MIN		4096ull
#define UST_TRACEFILE_SIZE_MAX		(1ull << 50)
#define UST_TRACEFILE_COUNT_MAX		1000000u

#endif
