/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * printf-style formatting that is async-signal-safe: no locale, no malloc,
 * no lock, so that libust's control server, which runs in a signal handler,
 * can build messages and metadata. It knows the conversions our own code
 * uses: d i u x X o c s p %, the flags '-' and '0', a width and a
 * precision (digits or '*'), and the length modifiers hh h l ll z j t.
 */
#ifndef USTCOMM_FORMAT_H
#define USTCOMM_FORMAT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include "libustcomm/common.h"

/* Like vsnprintf(): returns the length the whole text needs, or -EINVAL for
 * a conversion it does not know (the text then has '?' in its place). */
USTCOMM_API int ustcomm_vformat(char *buf, size_t len, const char *fmt, va_list ap);
USTCOMM_API int ustcomm_format(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Strictly decimal digits within uint32_t: 0, or -EINVAL. */
USTCOMM_API int ustcomm_parse_u32(const char *s, uint32_t *out);

/* strerror() without its locale lookup: a static English text. */
USTCOMM_API const char *ustcomm_strerror(int errnum);

#endif
