/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Event name patterns: matching, which patterns are valid, and when one
 * pattern covers another (a plain rule then replaces the older one):
 * every case checked against names, so that "covers" is never claimed
 * where some name matches the inner pattern and not the outer one.
 */
#include <string.h>
#include "libustcomm/pattern.h"
#include "tests/unit/tap.h"

static const char *const names[] = {
	"ust:tick", "ust:tock", "ust:t", "ust:", "other:count", "a:b", "ab:c", "ust:tickle",
	"x:*", "ust:t?ck",
};

/* covers(outer, inner) must imply: every name inner matches, outer matches. */
static int sound(const char *outer, const char *inner)
{
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (ustcomm_pattern_match(inner, names[i]) && !ustcomm_pattern_match(outer, names[i]))
			return 0;
	}
	return 1;
}

static void covers(const char *outer, const char *inner, int want)
{
	int got = ustcomm_pattern_covers(outer, inner);

	tap_ok(got == want && (!got || sound(outer, inner)), "'%s' %s '%s'", outer,
	       want ? "covers" : "does not cover", inner);
}

int main(void)
{
	tap_ok(ustcomm_pattern_match("ust:*", "ust:tick"), "ust:* matches ust:tick");
	tap_ok(ustcomm_pattern_match("ust/tick", "ust:tick"), "the channel/name spelling");
	tap_ok(!ustcomm_pattern_match("ust:t?ck", "ust:tiick"), "? is one character");
	covers("*", "ust:tick", 1);
	covers("*", "ust:t*", 1);
	covers("*", "*", 1);
	covers("ust:*", "ust:t*", 1);
	covers("ust:*", "ust/tick", 1);
	covers("ust/*", "ust:tick", 1);
	covers("ust:t*", "ust:*", 0);
	covers("ust:tick", "ust:t*", 0);
	covers("ust:t?ck", "ust:tick", 1);
	covers("ust:t?ck", "ust:t*ck", 0);
	covers("ust:t?ck", "ust:t?ck", 1);
	covers("*:count", "other:*", 0);
	covers("a*b*", "a*", 0);
	covers("a*", "a*b*", 1);
	covers("other:count", "other:count", 1);
	tap_ok(ustcomm_pattern_valid("ust:*") && !ustcomm_pattern_valid("a b") &&
	       !ustcomm_pattern_valid("a,b") && !ustcomm_pattern_valid(""),
	       "valid patterns: printable, no space, no comma, not empty");
	{
		char longest[USTCOMM_PATTERN_MAX + 2];

		memset(longest, 'a', sizeof(longest));
		longest[USTCOMM_PATTERN_MAX] = '\0';
		tap_ok(ustcomm_pattern_valid(longest), "a pattern of %d characters is valid",
		       USTCOMM_PATTERN_MAX);
		longest[USTCOMM_PATTERN_MAX] = 'a';
		longest[USTCOMM_PATTERN_MAX + 1] = '\0';
		tap_ok(!ustcomm_pattern_valid(longest), "one more is not");
	}
	tap_plan(tap_count);
	return tap_done();
}
