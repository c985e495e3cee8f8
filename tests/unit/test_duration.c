/* SPDX-License-Identifier: GPL-2.0-only */
/* Durations as ustctl's --rotate-every and --on-rotate-timeout take them. */
#include <stdint.h>
#include <string.h>
#include "libustcomm/duration.h"
#include "tests/unit/tap.h"

#define MIN_US	100000ull			/* 100 ms */
#define MAX_US	(31ull * 86400 * 1000000)	/* 31 days */

static void is(const char *text, uint64_t want)
{
	uint64_t v = 12345;
	int ret = ustcomm_parse_duration(text, MIN_US, MAX_US, &v);

	tap_ok(ret == 0 && v == want, "'%s' is %llu us (got %d, %llu)", text,
	       (unsigned long long)want, ret, (unsigned long long)v);
}

static void refused(const char *text)
{
	uint64_t v = 12345;
	int ret = ustcomm_parse_duration(text, MIN_US, MAX_US, &v);

	tap_ok(ret < 0 && v == 12345, "'%s' is refused and nothing stored", text);
}

/* Written in the largest unit that divides it, and read back the same. */
static void written(uint64_t us, const char *want)
{
	char buf[32];
	uint64_t back = 0;

	ustcomm_format_duration(buf, sizeof(buf), us);
	tap_ok(!strcmp(buf, want) && ustcomm_parse_duration(buf, 0, UINT64_MAX, &back) == 0 &&
	       back == us, "%llu us is written '%s' (%s) and reads back", (unsigned long long)us,
	       want, buf);
}

int main(void)
{
	is("500ms", 500000);
	is("1s", 1000000);
	is("10m", 600000000);
	is("10min", 600000000);
	is("2h", 7200000000ull);
	is("100000us", 100000);
	is("250000", 250000);		/* bare: microseconds, as LTTng's --timer */
	is("744h", 744ull * 3600 * 1000000);
	refused("");
	refused("0");
	refused("99ms");		/* below the least */
	refused("745h");		/* beyond the most */
	refused("1x");
	refused("1.5s");
	refused("-1s");
	refused("+1s");
	refused(" 1s");
	refused("1s ");
	refused("s");
	refused("1S");
	refused("99999999999999999999h");	/* overflows strtoull */
	refused("18446744073709551615h");	/* overflows the product */
	written(7200000000ull, "2h");
	written(600000000, "10m");
	written(30000000, "30s");
	written(1500000, "1500ms");
	written(500000, "500ms");
	written(1500, "1500us");
	tap_plan(tap_count);
	return tap_done();
}
