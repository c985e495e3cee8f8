/* SPDX-License-Identifier: LGPL-2.1-only */
/* Buffer geometry as users write it: UST_SUBBUF_SIZE, --subbuf-size, ... */
#ifndef USTCOMM_BUFSIZE_H
#define USTCOMM_BUFSIZE_H

#include <stdint.h>
#include "libustcomm/common.h"

/* Parses decimal with an optional k or M suffix (powers of 1024) into a
 * power of two within [min, max]. Returns 0, or -EINVAL for anything else
 * (the caller says what was expected). */
USTCOMM_API int ustcomm_parse_pow2(const char *text, uint32_t min, uint32_t max,
				   uint32_t *out);

#endif
