/* SPDX-License-Identifier: LGPL-2.1-only */
/* Binary in hexadecimal text, for binary data in the string-only control
 * protocol and the environment (filter bytecode). */
#ifndef USTCOMM_HEX_H
#define USTCOMM_HEX_H

#include <stddef.h>
#include <sys/types.h>
#include "libustcomm/common.h"

/* The value of a hexadecimal digit (either case), -1 for another character. */
int ustcomm_hex_digit(char c);
/* Writes 2 * len lowercase digits and a NUL at out. */
USTCOMM_API void ustcomm_hex_encode(const void *in, size_t len, char *out);
/* Decodes the digits of hex (exactly 2 * n of them, either case) into out;
 * returns n, or -EINVAL for an odd count, a non-digit or more than out_size
 * bytes. Async-signal-safe. */
USTCOMM_API ssize_t ustcomm_hex_decode(const char *hex, void *out, size_t out_size);

#endif
