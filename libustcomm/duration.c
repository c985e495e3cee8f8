/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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
	unsigned long long v;
	char *end;
	size_t i;

	if (!text || *text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno)
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
