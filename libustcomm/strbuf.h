/* SPDX-License-Identifier: LGPL-2.1-only */
/* A growable NUL-terminated text buffer; an allocation failure is sticky. */
#ifndef USTCOMM_STRBUF_H
#define USTCOMM_STRBUF_H

#include <stddef.h>
#include "libustcomm/common.h"

struct ustcomm_strbuf {
	char *buf;
	size_t len;
	size_t cap;
	int err;		/* -ENOMEM once any append failed */
};

#define USTCOMM_STRBUF_INIT { NULL, 0, 0, 0 }

USTCOMM_API int ustcomm_strbuf_printf(struct ustcomm_strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
USTCOMM_API int ustcomm_strbuf_append(struct ustcomm_strbuf *sb, const char *s, size_t len);
USTCOMM_API void ustcomm_strbuf_reset(struct ustcomm_strbuf *sb);	/* len = 0, keeps memory */
USTCOMM_API void ustcomm_strbuf_free(struct ustcomm_strbuf *sb);

#endif
