/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Async-signal-safe: only stack variables, the caller's buffer and
 * strerrordesc_np(), which returns a pointer into a constant table.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "libustcomm/format.h"

struct out {
	char *buf;
	size_t len;
	size_t pos;		/* may run past len: the length needed */
};

static void put(struct out *o, char c)
{
	if (o->pos + 1 < o->len)
		o->buf[o->pos] = c;
	o->pos++;
}

static void pad(struct out *o, char c, int n)
{
	while (n-- > 0)
		put(o, c);
}

/* A converted field: prefix ("0x", "-"), zeros, digits, with width applied. */
static void field(struct out *o, const char *prefix, const char *body, int body_len,
		  int zeros, int width, int left, int zero_pad)
{
	int plen = (int)strlen(prefix), total = plen + zeros + body_len;

	if (zero_pad && !left && width > total) {
		zeros += width - total;
		total = width;
	}
	if (!left)
		pad(o, ' ', width - total);
	while (*prefix)
		put(o, *prefix++);
	pad(o, '0', zeros);
	while (body_len-- > 0)
		put(o, *body++);
	if (left)
		pad(o, ' ', width - total);
}

static int digits(char *end, uintmax_t v, unsigned base, int upper)
{
	const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	int n = 0;

	do {
		*--end = set[v % base];
		v /= base;
		n++;
	} while (v);
	return n;
}

enum length { L_INT, L_CHAR, L_SHORT, L_LONG, L_LLONG, L_SIZE, L_MAX, L_PTRDIFF };

static uintmax_t arg_unsigned(va_list *ap, enum length l)
{
	switch (l) {
	case L_CHAR: return (unsigned char)va_arg(*ap, unsigned int);
	case L_SHORT: return (unsigned short)va_arg(*ap, unsigned int);
	case L_LONG: return va_arg(*ap, unsigned long);
	case L_LLONG: return va_arg(*ap, unsigned long long);
	case L_SIZE: return va_arg(*ap, size_t);
	case L_MAX: return va_arg(*ap, uintmax_t);
	case L_PTRDIFF: return (uintmax_t)va_arg(*ap, ptrdiff_t);
	default: return va_arg(*ap, unsigned int);
	}
}

static intmax_t arg_signed(va_list *ap, enum length l)
{
	switch (l) {
	case L_CHAR: return (signed char)va_arg(*ap, int);
	case L_SHORT: return (short)va_arg(*ap, int);
	case L_LONG: return va_arg(*ap, long);
	case L_LLONG: return va_arg(*ap, long long);
	case L_SIZE: return (intmax_t)va_arg(*ap, size_t);
	case L_MAX: return va_arg(*ap, intmax_t);
	case L_PTRDIFF: return va_arg(*ap, ptrdiff_t);
	default: return va_arg(*ap, int);
	}
}

int ustcomm_vformat(char *buf, size_t len, const char *fmt, va_list ap_in)
{
	struct out o = { .buf = buf, .len = len };
	char num[3 * sizeof(uintmax_t) + 2];
	char *end = num + sizeof(num);
	va_list ap;
	int ret = 0;

	va_copy(ap, ap_in);
	for (; *fmt; fmt++) {
		int left = 0, zero_pad = 0, width = 0, prec = -1, n;
		enum length l = L_INT;
		const char *prefix = "";
		uintmax_t u;
		intmax_t s;

		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		for (fmt++; *fmt == '-' || *fmt == '0'; fmt++) {
			if (*fmt == '-')
				left = 1;
			else
				zero_pad = 1;
		}
		if (*fmt == '*') {
			width = va_arg(ap, int);
			if (width < 0) {
				left = 1;
				width = -width;
			}
			fmt++;
		}
		for (; *fmt >= '0' && *fmt <= '9'; fmt++)
			width = width * 10 + (*fmt - '0');
		if (*fmt == '.') {
			prec = 0;
			if (*++fmt == '*') {
				prec = va_arg(ap, int);
				fmt++;
			}
			for (; *fmt >= '0' && *fmt <= '9'; fmt++)
				prec = prec * 10 + (*fmt - '0');
		}
		switch (*fmt) {
		case 'h':
			l = fmt[1] == 'h' ? L_CHAR : L_SHORT;
			fmt += fmt[1] == 'h' ? 2 : 1;
			break;
		case 'l':
			l = fmt[1] == 'l' ? L_LLONG : L_LONG;
			fmt += fmt[1] == 'l' ? 2 : 1;
			break;
		case 'z': l = L_SIZE; fmt++; break;
		case 'j': l = L_MAX; fmt++; break;
		case 't': l = L_PTRDIFF; fmt++; break;
		default: break;
		}
		switch (*fmt) {
		case '%':
			put(&o, '%');
			break;
		case 'c':
			num[0] = (char)va_arg(ap, int);
			field(&o, "", num, 1, 0, width, left, 0);
			break;
		case 's': {
			const char *str = va_arg(ap, const char *);

			if (!str)
				str = "(null)";
			n = prec >= 0 ? (int)strnlen(str, (size_t)prec) : (int)strlen(str);
			field(&o, "", str, n, 0, width, left, 0);
			break;
		}
		case 'd':
		case 'i':
			s = arg_signed(&ap, l);
			u = s < 0 ? (uintmax_t)0 - (uintmax_t)s : (uintmax_t)s;
			prefix = s < 0 ? "-" : "";
			goto number;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			u = arg_unsigned(&ap, l);
number:
			n = digits(end, u, *fmt == 'x' || *fmt == 'X' ? 16 : *fmt == 'o' ? 8 : 10,
				   *fmt == 'X');
			field(&o, prefix, end - n, n, prec > n ? prec - n : 0, width, left,
			      zero_pad && prec < 0);
			break;
		case 'p':
			u = (uintptr_t)va_arg(ap, void *);
			n = digits(end, u, 16, 0);
			field(&o, "0x", end - n, n, 0, width, left, 0);
			break;
		default:
			/* Unknown: its argument cannot be skipped safely, so stop here. */
			put(&o, '?');
			ret = -EINVAL;
			goto end;
		}
	}
end:
	va_end(ap);
	if (len)
		o.buf[o.pos < len ? o.pos : len - 1] = '\0';
	return ret ? ret : (int)o.pos;
}

int ustcomm_format(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = ustcomm_vformat(buf, len, fmt, ap);
	va_end(ap);
	return n;
}

const char *ustcomm_strerror(int errnum)
{
	const char *s = strerrordesc_np(errnum);

	return s ? s : "unknown error";
}

int ustcomm_parse_u32(const char *s, uint32_t *out)
{
	uint64_t v = 0;

	if (!*s || strlen(s) > 10)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (v > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}
