/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Strings that are not UTF-8, as a program may well record them: each
 * ill-formed form that a lax decoder lets through, between valid text.
 */
#ifndef UST_TEST_BAD_STRINGS_H
#define UST_TEST_BAD_STRINGS_H

static const char *const bad_strings[] = {
	"surrogate \xed\xa0\x80 end",		/* U+D800 encoded */
	"overlong \xe0\x80\xaf end",		/* '/' in three bytes */
	"overlong2 \xc0\xaf end",		/* '/' in two bytes */
	"above \xf4\x90\x80\x80 end",		/* U+110000 */
	"above2 \xf7\xbf\xbf\xbf end",		/* U+1FFFFF */
	"truncated \xe2\x82 end",		/* U+20AC without its last byte */
	"truncated at the end \xf0\x9f\x98",	/* U+1F600 cut by the NUL */
	"lone \x80 continuation, \xff byte",
	"valid \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xef\xbf\xbd",
};

#define BAD_STRINGS_NR (sizeof(bad_strings) / sizeof(bad_strings[0]))

#endif
