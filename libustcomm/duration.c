/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "libustcomm/bufsize.h"
#include "libustcomm/duration.h"

static const struct {
	const char *name;
	uint64_t us;
} units[] = {
	{ "", 1 }, { "us", 1 }, { "ms", 1000 }, { "s", 1000000 },
	{ "m", 60000000 }, { "min", 60000000 }, { "h", 3600000000ull },
};

USTCOMM_API int ustcomm_parse_duration(const char *text, uint64_t min_us, uint64_t max_us,
				       uint64_t *us)
{
	const char *end;
	uint64_t v;
	size_t i;

	if (ustcomm_parse_leading_u64(text, &v, &end) < 0)
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].name))
			continue;
		if (v > max_us / units[i].us || v * units[i].us < min_us)
			return -EINVAL;
		*us = v * units[i].us;
		return 0;
	}
	return -EINVAL;
}

USTCOMM_API void ustcomm_format_duration(char *buf, size_t len, uint64_t us)
{
	static const size_t largest_first[] = { 6, 4, 3, 2, 1 };
	size_t i, u = 1;

	for (i = 0; i < sizeof(largest_first) / sizeof(largest_first[0]); i++) {
		u = largest_first[i];
		if (us && !(us % units[u].us))
			break;
	}
	snprintf(buf, len, "%" PRIu64 "%s", us / units[u].us, units[u].name);
}
