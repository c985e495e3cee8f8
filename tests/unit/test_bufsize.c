/* SPDX-License-Identifier: GPL-2.0-only */
/* Buffer geometry parsing shared by libust (environment) and usttrace. */
#include <stdint.h>
#include <string.h>
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

/* Sizes that need not be powers of two: the tracefile size. */
static void size_is(const char *text, int want_ret, uint64_t want)
{
	uint64_t v = 12345;
	int ret = ustcomm_parse_size(text, 0, UST_TRACEFILE_SIZE_MAX, &v);

	tap_ok(ret == want_ret && v == (want_ret ? 12345 : want),
	       "size '%s': %d, %llu (got %d, %llu)", text, want_ret, (unsigned long long)want,
	       ret, (unsigned long long)v);
}

static void size_written(uint64_t v, const char *want)
{
	char buf[32];
	uint64_t back = 0;

	ustcomm_format_size(buf, sizeof(buf), v);
	tap_ok(!strcmp(buf, want) && ustcomm_parse_size(buf, 0, UINT64_MAX, &back) == 0 && back == v,
	       "%llu is written '%s' (%s) and reads back", (unsigned long long)v, want, buf);
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
	size_is("0", 0, 0);
	size_is("5000", 0, 5000);
	size_is("1G", 0, 1ull << 30);
	size_is("3k", 0, 3072);
	size_is("1048576G", 0, 1ull << 50);
	size_is("1048577G", -22, 0);
	size_is("1T", -22, 0);
	size_is("1GB", -22, 0);
	size_is("", -22, 0);
	size_written(1ull << 30, "1G");
	size_written(3ull << 20, "3M");
	size_written(8192, "8k");
	size_written(4097, "4097");
	size_written(0, "0");
	tap_plan(tap_count);
	return tap_done();
}
