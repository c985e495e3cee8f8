/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "libustcomm/hex.h"

void ustcomm_hex_encode(const void *in, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";
	const uint8_t *p = in;
	size_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * len] = '\0';
}

int ustcomm_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

ssize_t ustcomm_hex_decode(const char *hex, void *out, size_t out_size)
{
	size_t len = strlen(hex), i;
	uint8_t *p = out;

	if (len % 2 || len / 2 > out_size)
		return -EINVAL;
	for (i = 0; i < len / 2; i++) {
		int hi = ustcomm_hex_digit(hex[2 * i]), lo = ustcomm_hex_digit(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		p[i] = (uint8_t)(hi << 4 | lo);
	}
	return (ssize_t)(len / 2);
}
