/* SPDX-License-Identifier: GPL-2.0-only */
/* Buffer geometry parsing shared by libust (environment) and usttrace. */
#include <stdint.h>
#include "libustcomm/bufsize.h"
#include "tests/unit/tap.h"

static void accept(const char *text, uint32_t want)
{
	uint32_t v = 0;
	int ret = ustcomm_parse_pow2(text, 4096, 64u << 20, &v);

	tap_ok(ret == 0 && v == want, "'%s' is %u (got %d, %u)", text, want, ret, v);
}

static void refuse(const char *text)
{
	uint32_t v = 12345;
	int ret = ustcomm_parse_pow2(text, 4096, 64u << 20, &v);

	tap_ok(ret < 0 && v == 12345, "'%s' is refused and nothing stored", text);
}

int main(void)
{
	accept("4096", 4096);
	accept("4k", 4096);
	accept("256K", 262144);
	accept("1M", 1u << 20);
	accept("64m", 64u << 20);
	refuse("");
	refuse("1000");
	refuse("2048");
	refuse("128M");
	refuse("-4096");
	refuse("+4096");
	refuse(" 4096");
	refuse("4096 ");
	refuse("4kk");
	refuse("4G");
	refuse("0x1000");
	refuse("18446744073709551616");
	refuse("17592186044416k");
	refuse("0");
	tap_plan(tap_count);
	return tap_done();
}
