/* SPDX-License-Identifier: LGPL-2.1-only */
#include <stdbool.h>

#include "bt2plugin/utf8.h"
#include "bt2plugin/xml_text.h"

/* Valid UTF-8 that XML 1.0 still forbids (its Char production). */
static bool xml_nonchar(const unsigned char *s, size_t n)
{
	return n == 3 && s[0] == 0xef && s[1] == 0xbf && (s[2] == 0xbe || s[2] == 0xbf);
}

void ust_xml_escaped(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	while (*s) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if (*s >= 0x80) {
				if (ust_utf8_seq(s, &n) && !xml_nonchar(s, n))
					fwrite(s, 1, n, f);
				else
					fputs(UST_UTF8_REPLACEMENT, f);
				s += n;
				continue;
			}
			if (*s < 0x20 && *s != '\t' && *s != '\n')
				fputs(UST_UTF8_REPLACEMENT, f);
			else
				putc(*s, f);
		}
		s++;
	}
}
