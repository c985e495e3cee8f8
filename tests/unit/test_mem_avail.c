/* SPDX-License-Identifier: GPL-2.0-only */
/* The memory check's rule and its words (libustcomm/mem_avail.h). */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "libustcomm/mem_avail.h"
#include "tests/unit/tap.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)

static void bytes_are(uint64_t v, const char *want)
{
	char buf[32];

	ustcomm_format_bytes(buf, sizeof(buf), v);
	tap_ok(!strcmp(buf, want), "%llu bytes read '%s' (got '%s')", (unsigned long long)v, want,
	       buf);
}

static const struct ustcomm_mem_avail no_cgroup = {
	.meminfo = 23 * GiB + 100 * MiB, .cg_limit = USTCOMM_MEM_UNKNOWN,
	.avail = 23 * GiB + 100 * MiB,
};
static const struct ustcomm_mem_avail cgroup = {
	.meminfo = 23 * GiB, .cg_limit = 512 * MiB, .cg_used = 40 * MiB, .avail = 472 * MiB,
};

int main(void)
{
	struct ustcomm_mem_request one = { 0 }, three = { 0 }, mixed = { 0 };
	struct ustcomm_mem_avail unknown = { USTCOMM_MEM_UNKNOWN, USTCOMM_MEM_UNKNOWN, 0,
					     USTCOMM_MEM_UNKNOWN };
	char why[512];
	int ret, i;

	bytes_are(100, "100 bytes");
	bytes_are(4096, "4 KiB");
	bytes_are(64 * MiB, "64 MiB");
	bytes_are(23 * GiB + 100 * MiB, "23.1 GiB");
	/* The control pages do not show: 96 GiB and 120 KiB is 96 GiB. */
	bytes_are(96 * GiB + 120 * 1024, "96 GiB");
	bytes_are(1024 * 1024 - 1, "1 MiB");

	ustcomm_mem_request_add(&one, 64u << 20, 256, 2, 0);
	tap_ok(one.bytes > 32 * GiB && one.bytes < 32 * GiB + MiB && !one.mixed,
	       "one channel: 64 MiB x 256 x 2 CPUs and their control pages");
	ret = ustcomm_mem_check(&one, &no_cgroup, why, sizeof(why));
	tap_ok(ret == -ENOMEM && strstr(why, "64 MiB x 256 sub-buffers x 2 CPUs x 1 channel = 32 GiB") &&
	       strstr(why, "exceed 11.5 GiB, half of the memory available (23.1 GiB MemAvailable)"),
	       "larger than MemAvailable: refused with the sizes (%s)", why);
	for (i = 0; i < 3; i++)
		ustcomm_mem_request_add(&three, 4096, 16, 2, 0);
	ret = ustcomm_mem_check(&three, &cgroup, why, sizeof(why));
	tap_ok(ret == 0, "3 channels of 4 KiB x 16 fit in a 512 MiB cgroup");
	ustcomm_mem_request_add(&three, 1u << 20, 256, 2, 0);
	ret = ustcomm_mem_check(&three, &cgroup, why, sizeof(why));
	tap_ok(ret == -ENOMEM && three.mixed && three.nr_channels == 4 &&
	       strstr(why, "4 channels x 2 CPUs = 512.4 MiB (the largest: 1 MiB x 256 sub-buffers)") &&
	       strstr(why, "(23 GiB MemAvailable, cgroup limit 512 MiB with 40 MiB used)"),
	       "channels of several geometries over the cgroup's room: refused, naming the limit (%s)",
	       why);
	ustcomm_mem_request_add(&mixed, 1u << 20, 117, 2, 0);
	tap_ok(ustcomm_mem_check(&mixed, &cgroup, why, sizeof(why)) == 0,
	       "234 MiB and pages: within half of 472 MiB");
	mixed = (struct ustcomm_mem_request){ 0 };
	ustcomm_mem_request_add(&mixed, 1u << 20, 119, 2, 0);
	tap_ok(ustcomm_mem_check(&mixed, &cgroup, why, sizeof(why)) == -ENOMEM,
	       "238 MiB: over half of 472 MiB");
	mixed = (struct ustcomm_mem_request){ 0 };
	ustcomm_mem_request_add(&mixed, 1u << 20, 32, 2, 8);
	ret = ustcomm_mem_check(&mixed, &cgroup, why, sizeof(why));
	tap_ok(ret == -ENOMEM && mixed.bytes > 320 * MiB && mixed.bytes < 321 * MiB &&
	       strstr(why, "1 MiB x 32 sub-buffers x (2 CPUs + 8 thread buffers) x 1 channel = 320"),
	       "thread buffers beside the CPUs': counted, and named apart (%s)", why);
	tap_ok(ustcomm_mem_check(&one, &unknown, why, sizeof(why)) == 0,
	       "nothing could be read: nothing is refused");
	ustcomm_mem_avail(&unknown);
	tap_ok(unknown.meminfo != USTCOMM_MEM_UNKNOWN && unknown.avail <= unknown.meminfo,
	       "this machine's MemAvailable is read and bounds what is available");
	tap_ok(unknown.cg_limit == USTCOMM_MEM_UNKNOWN || unknown.cg_limit < (1ull << 62),
	       "a cgroup limit found is a real one, never 'max'");
	tap_plan(tap_count);
	return tap_done();
}
