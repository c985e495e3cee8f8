/* SPDX-License-Identifier: LGPL-2.1-only */
#include <string.h>

#include "libustcomm/pattern.h"

/*
 * Whether s matches the glob p. With covers, s is itself a glob read as
 * text, and a '?' of p does not stand for a '*' of s (one character is not
 * any run): then every name s matches, p matches, since each '*' of s lies
 * within a run some '*' of p takes. The recursion depth is bounded by the
 * number of '*' in the pattern.
 */
static int glob_match(const char *p, const char *s, int covers)
{
	for (; *p; p++, s++) {
		if (*p == '*') {
			while (p[1] == '*')
				p++;
			if (!p[1])
				return 1;
			for (; *s; s++) {
				if (glob_match(p + 1, s, covers))
					return 1;
			}
			return 0;
		}
		if (!*s || (*p == '?' ? covers && *s == '*' : *p != *s))
			return 0;
	}
	return !*s;
}

/* pattern in the "channel:name" spelling, in buf when it had to change. */
static const char *canonical(const char *pattern, char *buf, size_t size)
{
	const char *slash = strchr(pattern, '/');
	size_t len = strlen(pattern);

	if (slash && !strchr(pattern, ':') && len < size) {
		memcpy(buf, pattern, len + 1);
		buf[slash - pattern] = ':';
		pattern = buf;
	}
	return pattern;
}

int ustcomm_pattern_match(const char *pattern, const char *full_name)
{
	char buf[256];

	return glob_match(canonical(pattern, buf, sizeof(buf)), full_name, 0);
}

int ustcomm_pattern_covers(const char *outer, const char *inner)
{
	char obuf[256], ibuf[256];

	return glob_match(canonical(outer, obuf, sizeof(obuf)),
			  canonical(inner, ibuf, sizeof(ibuf)), 1);
}

int ustcomm_pattern_valid(const char *p)
{
	size_t len = strlen(p);

	if (!len || len > USTCOMM_PATTERN_MAX)
		return 0;
	for (; *p; p++) {
		if (*p <= ' ' || *p > '~' || *p == ',')
			return 0;
	}
	return 1;
}
