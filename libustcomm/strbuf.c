/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Async-signal-safe, because libust builds metadata and control replies in
 * a signal handler: memory comes from mmap()/mremap() (system calls, not
 * malloc, so no allocator lock the interrupted code might hold) and text
 * from ustcomm_vformat().
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include "libustcomm/format.h"
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
	cap = sb->cap ? sb->cap : 4096;
	while (cap < need)
		cap *= 2;
	if (sb->buf)
		buf = mremap(sb->buf, sb->cap, cap, MREMAP_MAYMOVE);
	else
		buf = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
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
	n = ustcomm_vformat(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		sb->err = -EINVAL;
		return sb->err;
	}
	ret = strbuf_reserve(sb, (size_t)n);
	if (ret)
		return ret;
	va_start(ap, fmt);
	ustcomm_vformat(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
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
	if (sb->buf)
		munmap(sb->buf, sb->cap);
	sb->buf = NULL;
	sb->len = 0;
	sb->cap = 0;
	sb->err = 0;
}
