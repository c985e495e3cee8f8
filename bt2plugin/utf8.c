/* SPDX-License-Identifier: LGPL-2.1-only */
#include "bt2plugin/utf8.h"

bool ust_utf8_seq(const unsigned char *s, size_t *len)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need, i;

	/* The second byte's range is what excludes overlong forms (E0, F0),
	 * surrogates (ED) and code points above U+10FFFF (F4). */
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;
		else if (s[0] == 0xed)
			hi = 0x9f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 4;
		if (s[0] == 0xf0)
			lo = 0x90;
		else if (s[0] == 0xf4)
			hi = 0x8f;
	} else {
		*len = 1;
		return false;
	}
	if (s[1] < lo || s[1] > hi) {
		*len = 1;
		return false;
	}
	/* The NUL that ends the string is no continuation byte: the scan
	 * stops on it. */
	for (i = 2; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*len = i;
			return false;
		}
	}
	*len = need;
	return true;
}
