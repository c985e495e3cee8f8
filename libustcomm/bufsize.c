/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libustcomm/bufsize.h"
#include "libustcomm/shm_layout.h"

USTCOMM_API int ustcomm_parse_leading_u64(const char *text, uint64_t *v, const char **end)
{
	char *after;

	if (!text || *text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(text, &after, 10);
	*end = after;
	return errno ? -EINVAL : 0;
}

USTCOMM_API void ustcomm_format_size(char *buf, size_t len, uint64_t v)
{
	static const char suffix[] = "GMk";
	unsigned shift = 30, i;

	for (i = 0; i < 3; i++, shift -= 10) {
		if (v && !(v % (1ull << shift))) {
			snprintf(buf, len, "%" PRIu64 "%c", v >> shift, suffix[i]);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64, v);
}

USTCOMM_API int ustcomm_parse_size(const char *text, uint64_t min, uint64_t max,
				   uint64_t *out)
{
	unsigned shift = 0;
	const char *end;
	uint64_t v;

	if (ustcomm_parse_leading_u64(text, &v, &end) < 0)
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		shift = 10;
	else if (*end == 'm' || *end == 'M')
		shift = 20;
	else if (*end == 'g' || *end == 'G')
		shift = 30;
	if (shift)
		end++;
	if (*end || v > (max >> shift))
		return -EINVAL;
	v <<= shift;
	if (v < min)
		return -EINVAL;
	*out = v;
	return 0;
}

USTCOMM_API int ustcomm_parse_pow2(const char *text, uint32_t min, uint32_t max,
				   uint32_t *out)
{
	uint64_t v;

	/* No G: no power of two this parses for is that large. */
	if (!text || strpbrk(text, "gG") ||
	    ustcomm_parse_size(text, min, max, &v) < 0 || !ust_is_pow2(v))
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}
