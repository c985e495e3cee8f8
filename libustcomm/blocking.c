/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <string.h>

#include "libustcomm/blocking.h"
#include "libustcomm/format.h"

USTCOMM_API int ustcomm_blocking_parse(const char *text, uint32_t *us)
{
	uint64_t v = 0, scale = 1;
	const char *p = text;

	if (!text)
		return -EINVAL;
	if (!strcmp(text, "inf")) {
		*us = UST_BLOCKING_INF;
		return 0;
	}
	if (*p < '0' || *p > '9')
		return -EINVAL;
	/* By hand: strtoull() is not async-signal-safe (the control server
	 * parses in a signal handler), and 2^32 bounds the digits anyway. */
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > UST_BLOCKING_MAX_US)
			return -EINVAL;
	}
	if (!strcmp(p, "s"))
		scale = 1000000;
	else if (!strcmp(p, "ms"))
		scale = 1000;
	else if (*p && strcmp(p, "us"))
		return -EINVAL;
	if (v * scale > UST_BLOCKING_MAX_US)
		return -EINVAL;
	*us = (uint32_t)(v * scale);
	return 0;
}

USTCOMM_API void ustcomm_blocking_format(char *buf, size_t len, uint32_t us)
{
	if (us == UST_BLOCKING_INF)
		ustcomm_format(buf, len, "inf");
	else
		ustcomm_format(buf, len, "%u", us);
}
