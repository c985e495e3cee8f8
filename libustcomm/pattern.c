/* SPDX-License-Identifier: LGPL-2.1-only */
#include <string.h>

#include "libustcomm/pattern.h"

/* The recursion depth is bounded by the number of '*' in the pattern. */
static int glob_match(const char *p, const char *s)
{
	for (; *p; p++, s++) {
		if (*p == '*') {
			while (p[1] == '*')
				p++;
			if (!p[1])
				return 1;
			for (; *s; s++) {
				if (glob_match(p + 1, s))
					return 1;
			}
			return 0;
		}
		if (!*s || (*p != '?' && *p != *s))
			return 0;
	}
	return !*s;
}

int ustcomm_pattern_match(const char *pattern, const char *full_name)
{
	char buf[256];
	const char *slash;
	size_t len;

	slash = strchr(pattern, '/');
	len = strlen(pattern);
	if (slash && !strchr(pattern, ':') && len < sizeof(buf)) {
		memcpy(buf, pattern, len + 1);
		buf[slash - pattern] = ':';
		pattern = buf;
	}
	return glob_match(pattern, full_name);
}
