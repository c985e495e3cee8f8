/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <stdlib.h>

#include "libustcomm/bufsize.h"
#include "libustcomm/shm_layout.h"

USTCOMM_API int ustcomm_parse_pow2(const char *text, uint32_t min, uint32_t max,
				   uint32_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (!text || *text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno)
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		shift = 10;
	else if (*end == 'm' || *end == 'M')
		shift = 20;
	if (shift)
		end++;
	if (*end || v > (max >> shift))
		return -EINVAL;
	v <<= shift;
	if (v < min || !ust_is_pow2(v))
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}
