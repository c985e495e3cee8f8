/* SPDX-License-Identifier: LGPL-2.1-only */
#include <string.h>
#include <ust/core.h>
#include "libustcomm/field_size.h"

static uint64_t field_get_uint(const char *p, unsigned size)
{
	uint64_t v = 0;

	memcpy(&v, p, size);	/* little-endian (ctf_layout.h) */
	return v;
}

int64_t ustcomm_field_size(const struct ustcomm_field_layout *f, const char *p, size_t avail)
{
	const char *nul;
	uint64_t n;

	switch (f->kind) {
	case UST_FIELD_INTEGER:
	case UST_FIELD_FLOAT:
		n = f->size;
		break;
	case UST_FIELD_STRING:
		nul = memchr(p, '\0', avail);
		if (!nul)
			return -1;
		n = (uint64_t)(nul - p) + 1;
		break;
	case UST_FIELD_ARRAY:
		n = (uint64_t)f->length * f->size;
		break;
	case UST_FIELD_SEQUENCE:
		if (avail < f->len_size)
			return -1;
		n = field_get_uint(p, f->len_size);
		if (n > avail)
			return -1;
		n = f->len_size + n * f->size;
		break;
	default:
		return -1;
	}
	return n > avail ? -1 : (int64_t)n;
}
