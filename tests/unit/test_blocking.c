/* SPDX-License-Identifier: GPL-2.0-only */
/* The blocking timeout as users write it (libustcomm/blocking.h), and back. */
#include <stdint.h>
#include <string.h>
#include "libustcomm/blocking.h"
#include "tests/unit/tap.h"

static void accept(const char *text, uint32_t want)
{
	uint32_t v = 12345;
	int ret = ustcomm_blocking_parse(text, &v);

	tap_ok(ret == 0 && v == want, "'%s' is %u us (got %d, %u)", text, want, ret, v);
}

static void refuse(const char *text)
{
	uint32_t v = 12345;
	int ret = ustcomm_blocking_parse(text, &v);

	tap_ok(ret < 0 && v == 12345, "'%s' is refused and nothing stored", text ? text : "NULL");
}

static void format(uint32_t us, const char *want)
{
	char buf[UST_BLOCKING_TEXT_MAX];
	uint32_t back = 0;

	ustcomm_blocking_format(buf, sizeof(buf), us);
	tap_ok(!strcmp(buf, want) && ustcomm_blocking_parse(buf, &back) == 0 && back == us,
	       "%u is written '%s' and reads back (got '%s')", us, want, buf);
}

int main(void)
{
	accept("0", UST_BLOCKING_NEVER);
	accept("inf", UST_BLOCKING_INF);
	accept("250000", 250000);
	accept("250000us", 250000);
	accept("250ms", 250000);
	accept("2s", 2000000);
	accept("4294s", 4294000000u);
	accept("4294967294", UST_BLOCKING_MAX_US);
	refuse(NULL);
	refuse("");
	refuse("-1");
	refuse("+5");
	refuse(" 5");
	refuse("5 ");
	refuse("5x");
	refuse("5m");
	refuse("5 ms");
	refuse("ms");
	refuse("infinity");
	refuse("INF");
	refuse("4294967295");
	refuse("4295s");
	refuse("99999999999999999999999");
	format(0, "0");
	format(500000, "500000");
	format(UST_BLOCKING_MAX_US, "4294967294");
	format(UST_BLOCKING_INF, "inf");
	tap_plan(tap_count);
	return tap_done();
}
