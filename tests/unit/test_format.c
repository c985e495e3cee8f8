/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The async-signal-safe formatter against the C library's snprintf(), for
 * every conversion, flag and length our code uses; truncation; refusal of
 * what it does not know.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "libustcomm/format.h"
#include "tests/unit/tap.h"

#define SAME(...)								\
	do {									\
		char want[128], got[128];					\
		int nw = snprintf(want, sizeof(want), __VA_ARGS__);		\
		int ng = ustcomm_format(got, sizeof(got), __VA_ARGS__);		\
		tap_ok(nw == ng && !strcmp(want, got), "%s: \"%s\" (got \"%s\", %d)", \
		       #__VA_ARGS__, want, got, ng);				\
	} while (0)

int main(void)
{
	char small[8], buf[64];
	int n;

	SAME("plain text");
	SAME("%d %i %u", -42, 17, 4000000000u);
	SAME("%d", (int)INT32_MIN);
	SAME("%x %X %o", 0xbeefu, 0xbeefu, 8u);
	SAME("%hhd %hhu %hd %hu", (signed char)-3, (unsigned char)250, (short)-300,
	     (unsigned short)65000);
	SAME("%ld %lu %lld %llu", -1L, 1UL << 63, (long long)INT64_MIN, 18446744073709551615ULL);
	SAME("%zu %zd %jd %td", (size_t)123, (ssize_t)-5, (intmax_t)-7, (ptrdiff_t)9);
	SAME("%lx %llx", 0xdeadbeefcafeUL, 0x1ULL);
	SAME("%03o|\\%c", 7u, 'q');
	SAME("[%5d|%-5d|%05d|%05d]", 42, 42, 42, -42);
	SAME("[%.3d|%8.3d|%-8.3d]", 7, -7, 7);
	SAME("[%*d|%-*d]", 6, 1, 6, 2);
	SAME("[%s|%10s|%-10s|%.2s|%.*s]", "abc", "abc", "abc", "abc", 1, "xyz");
	SAME("%p", (void *)0x1234);
	SAME("100%% %s", "done");
	SAME("%u", 0u);
	SAME("[%c%c]", 'a', 'b');

	n = ustcomm_format(small, sizeof(small), "%s-%u", "abcdef", 123u);
	tap_ok(n == 10 && !strcmp(small, "abcdef-"),
	       "truncated: the length it needs (%d), the text cut and terminated (\"%s\")",
	       n, small);
	n = ustcomm_format(NULL, 0, "%d", 12345);
	tap_ok(n == 5, "no buffer: only the length (%d)", n);
	n = ustcomm_format(buf, sizeof(buf), "a %d b %f c", 1, 2.0);
	tap_ok(n == -EINVAL && !strcmp(buf, "a 1 b ?"),
	       "an unknown conversion is refused, the text before it kept (\"%s\")", buf);
	tap_ok(!strcmp(ustcomm_strerror(ENOENT), "No such file or directory") &&
	       !strcmp(ustcomm_strerror(99999), "unknown error"),
	       "strerror without locale: known and unknown numbers");
	tap_plan(tap_count);
	return tap_done();
}
