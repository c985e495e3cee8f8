/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/strbuf.h"

/* Makes room for extra more bytes plus the NUL. */
static int strbuf_reserve(struct ustcomm_strbuf *sb, size_t extra)
{
	size_t need, cap;
	char *buf;

	if (sb->err)
		return sb->err;
	if (extra > (size_t)-1 / 2 - sb->len) {
		sb->err = -ENOMEM;
		return sb->err;
	}
	need = sb->len + extra + 1;
	if (need <= sb->cap)
		return 0;
	cap = sb->cap ? sb->cap : 256;
	while (cap < need)
		cap *= 2;
	buf = realloc(sb->buf, cap);
	if (!buf) {
		sb->err = -ENOMEM;
		return sb->err;
	}
	sb->buf = buf;
	sb->cap = cap;
	return 0;
}

int ustcomm_strbuf_append(struct ustcomm_strbuf *sb, const char *s, size_t len)
{
	int ret = strbuf_reserve(sb, len);

	if (ret)
		return ret;
	memcpy(sb->buf + sb->len, s, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
	return 0;
}

int ustcomm_strbuf_printf(struct ustcomm_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n, ret;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		sb->err = -EINVAL;
		return sb->err;
	}
	ret = strbuf_reserve(sb, (size_t)n);
	if (ret)
		return ret;
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
	return 0;
}

void ustcomm_strbuf_reset(struct ustcomm_strbuf *sb)
{
	sb->len = 0;
	sb->err = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void ustcomm_strbuf_free(struct ustcomm_strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = 0;
	sb->cap = 0;
	sb->err = 0;
}
