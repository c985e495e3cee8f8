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

/*
 * Every name q matches, p matches: q read as text matches p, except that a
 * '?' of p does not stand for a '*' of q (one character is not any run).
 * Each '*' of q then lies within a run some '*' of p takes, so whatever it
 * stands for, p still matches.
 */
static int glob_covers(const char *p, const char *q)
{
	for (; *p; p++, q++) {
		if (*p == '*') {
			while (p[1] == '*')
				p++;
			if (!p[1])
				return 1;
			for (; *q; q++) {
				if (glob_covers(p + 1, q))
					return 1;
			}
			return 0;
		}
		if (!*q || (*p == '?' ? *q == '*' : *p != *q))
			return 0;
	}
	return !*q;
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

	return glob_match(canonical(pattern, buf, sizeof(buf)), full_name);
}

int ustcomm_pattern_covers(const char *outer, const char *inner)
{
	char obuf[256], ibuf[256];

	return glob_covers(canonical(outer, obuf, sizeof(obuf)),
			   canonical(inner, ibuf, sizeof(ibuf)));
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
