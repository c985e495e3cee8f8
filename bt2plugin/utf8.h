/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * UTF-8 as strict decoders read it (RFC 3629, Unicode 15 ch. 3, "U+FFFD
 * substitution of maximal subparts", the practice of WHATWG's decoder and
 * of Python's bytes.decode(errors="replace")): no surrogates, no overlong
 * forms, nothing above U+10FFFF, no truncated sequences.
 */
#ifndef UST_BT2_UTF8_H
#define UST_BT2_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* What stands for each ill-formed subpart: U+FFFD in UTF-8. */
#define UST_UTF8_REPLACEMENT "\xef\xbf\xbd"

/*
 * The non-ASCII sequence at s (s[0] >= 0x80; the string is NUL-terminated).
 * Returns true with *len its length when it is well-formed; false with
 * *len the length of its maximal ill-formed subpart, to be replaced by one
 * U+FFFD (at least 1, never past the NUL).
 */
bool ust_utf8_seq(const unsigned char *s, size_t *len);

#endif
