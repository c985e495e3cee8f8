/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Marker format parser and marker payload serializer.
 *
 * A format is literal text and conversions; the identifier just before a
 * conversion ("dn %s", "x=%d", "x: %d") names its field, else the field is
 * argN. Everything a conversion could mean beyond its type (flags, width,
 * precision) is refused rather than silently ignored, so that what the user
 * reads in the format is what the trace records.
 */
#include <errno.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>

#include "libust/marker_format.h"

enum length_mod {
	MOD_NONE,
	MOD_HH,
	MOD_H,
	MOD_L,
	MOD_LL,
	MOD_Z,
	MOD_J,
};

/* "arg" and up to two digits (UST_MARKER_MAX_FIELDS) and the NUL. */
#define ARG_NAME_MAX	6

struct pending_field {
	struct ust_field_desc desc;	/* name not set yet */
	uint8_t arg;
	const char *name;		/* in the format, or NULL for argN */
	size_t name_len;
};

static const char *const msg_incomplete =
	"the format ends with an incomplete conversion (write %% for a literal percent sign)";
static const char *const msg_flags =
	"flags, field width and precision are not supported (write a bare conversion such as %d or %s)";
static const char *const msg_length =
	"unsupported length modifier (supported: hh h l ll z j)";
static const char *const msg_length_conv =
	"this length modifier does not apply to the conversion (only %d %i %u %x take hh h l ll z j; %f takes l)";
static const char *const msg_wide =
	"wide characters and strings (%lc, %ls) are not supported";
static const char *const msg_n = "%n is not supported";
static const char *const msg_conv =
	"unsupported conversion (supported: %d %i %u %x with hh h l ll z j, %c %s %p %f %lf, and %%)";
static const char *const msg_too_many =
	"more than 32 fields in one marker";

static int is_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		(c >= '0' && c <= '9') || c == '_';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* Reads the length modifier at *pp and advances past it. */
static int parse_length(const char **pp, enum length_mod *mod)
{
	const char *p = *pp;

	switch (*p) {
	case 'h':
		*mod = p[1] == 'h' ? MOD_HH : MOD_H;
		break;
	case 'l':
		*mod = p[1] == 'l' ? MOD_LL : MOD_L;
		break;
	case 'z':
		*mod = MOD_Z;
		break;
	case 'j':
		*mod = MOD_J;
		break;
	case 'L': case 'q': case 't':
		return -EINVAL;
	default:
		*mod = MOD_NONE;
		return 0;
	}
	*pp = p + (*mod == MOD_HH || *mod == MOD_LL ? 2 : 1);
	return 0;
}

static void integer_field(struct pending_field *pf, enum length_mod mod, int is_signed,
			  int base)
{
	static const struct {
		uint8_t size;
		uint8_t arg_signed;
		uint8_t arg_unsigned;
	} types[] = {
		[MOD_NONE] = { sizeof(int), UST_MARKER_ARG_INT, UST_MARKER_ARG_UINT },
		[MOD_HH] = { sizeof(char), UST_MARKER_ARG_INT, UST_MARKER_ARG_UINT },
		[MOD_H] = { sizeof(short), UST_MARKER_ARG_INT, UST_MARKER_ARG_UINT },
		[MOD_L] = { sizeof(long), UST_MARKER_ARG_LONG, UST_MARKER_ARG_ULONG },
		[MOD_LL] = { sizeof(long long), UST_MARKER_ARG_LLONG, UST_MARKER_ARG_ULLONG },
		[MOD_Z] = { sizeof(size_t), UST_MARKER_ARG_SSIZE, UST_MARKER_ARG_SIZE },
		[MOD_J] = { sizeof(intmax_t), UST_MARKER_ARG_INTMAX, UST_MARKER_ARG_UINTMAX },
	};

	pf->desc.kind = UST_FIELD_INTEGER;
	pf->desc.size = types[mod].size;
	pf->desc.is_signed = is_signed;
	pf->desc.base = base;
	pf->arg = is_signed ? types[mod].arg_signed : types[mod].arg_unsigned;
}

/*
 * Parses the conversion whose '%' is at *pp (not "%%") into pf and advances
 * *pp past it.
 */
static int parse_conversion(const char **pp, struct pending_field *pf, const char **err)
{
	const char *p = *pp + 1;
	enum length_mod mod;
	int ret = -EINVAL;

	if (*p == '\0') {
		*err = msg_incomplete;
		goto end;
	}
	if (strchr("-+ #0'I.*", *p) || is_digit(*p)) {
		*err = msg_flags;
		goto end;
	}
	if (parse_length(&p, &mod)) {
		*err = msg_length;
		goto end;
	}
	switch (*p) {
	case 'd': case 'i':
		integer_field(pf, mod, 1, 10);
		break;
	case 'u':
		integer_field(pf, mod, 0, 10);
		break;
	case 'x':
		integer_field(pf, mod, 0, 16);
		break;
	case 'c':
		if (mod != MOD_NONE) {
			*err = mod == MOD_L ? msg_wide : msg_length_conv;
			goto end;
		}
		/* A char field, signed as the platform's char is. */
		pf->desc.kind = UST_FIELD_INTEGER;
		pf->desc.size = 1;
		pf->desc.is_signed = (char)-1 < (char)1;
		pf->desc.base = 10;
		pf->arg = UST_MARKER_ARG_INT;
		break;
	case 's':
		if (mod != MOD_NONE) {
			*err = mod == MOD_L ? msg_wide : msg_length_conv;
			goto end;
		}
		pf->desc.kind = UST_FIELD_STRING;
		pf->arg = UST_MARKER_ARG_STRING;
		break;
	case 'p':
		if (mod != MOD_NONE) {
			*err = msg_length_conv;
			goto end;
		}
		pf->desc.kind = UST_FIELD_INTEGER;
		pf->desc.size = sizeof(void *);
		pf->desc.base = 16;
		pf->arg = UST_MARKER_ARG_POINTER;
		break;
	case 'f':
		if (mod != MOD_NONE && mod != MOD_L) {
			*err = msg_length_conv;
			goto end;
		}
		pf->desc.kind = UST_FIELD_FLOAT;
		pf->desc.size = sizeof(double);
		pf->desc.is_signed = 1;
		pf->desc.base = 10;
		pf->arg = UST_MARKER_ARG_DOUBLE;
		break;
	case 'n':
		*err = msg_n;
		goto end;
	case '\0':
		*err = msg_incomplete;
		goto end;
	default:
		*err = msg_conv;
		goto end;
	}
	*pp = p + 1;
	ret = 0;
end:
	return ret;
}

/*
 * The identifier ending just before the conversion at conv, looking no
 * further back than text (the end of the previous conversion). Blanks and
 * one '=' or ':' may separate it from the conversion.
 */
static void find_name(const char *text, const char *conv, struct pending_field *pf)
{
	const char *end = conv, *start;

	while (end > text && is_space(end[-1]))
		end--;
	if (end > text && (end[-1] == '=' || end[-1] == ':')) {
		end--;
		while (end > text && is_space(end[-1]))
			end--;
	}
	start = end;
	while (start > text && is_ident_char(start[-1]))
		start--;
	if (start == end || is_digit(*start))
		return;
	pf->name = start;
	pf->name_len = end - start;
}

_Static_assert(UST_MARKER_MAX_FIELDS <= 100, "argN names have at most two digits");

static void arg_name(char *buf, uint32_t index)
{
	memcpy(buf, "arg", 3);
	buf += 3;
	if (index >= 10)
		*buf++ = '0' + index / 10;
	*buf++ = '0' + index % 10;
	*buf = '\0';
}

/*
 * A name of the form argDIGITS is only kept at its own position, so that it
 * can never collide with the argN of an unnamed field.
 */
static int name_is_foreign_arg(const struct pending_field *pf, uint32_t index)
{
	char own[ARG_NAME_MAX];
	size_t i;

	if (pf->name_len < 4 || strncmp(pf->name, "arg", 3))
		return 0;
	for (i = 3; i < pf->name_len; i++)
		if (!is_digit(pf->name[i]))
			return 0;
	arg_name(own, index);
	return pf->name_len != strlen(own) || strncmp(pf->name, own, pf->name_len);
}

/* Drops the names that cannot be used as they are: they become argN. */
static void settle_names(struct pending_field *fields, uint32_t nr)
{
	uint32_t i, j;

	for (i = 0; i < nr; i++) {
		if (!fields[i].name)
			continue;
		if (name_is_foreign_arg(&fields[i], i)) {
			fields[i].name = NULL;
			continue;
		}
		for (j = 0; j < i; j++) {
			if (fields[j].name && fields[j].name_len == fields[i].name_len &&
			    !memcmp(fields[j].name, fields[i].name, fields[i].name_len)) {
				fields[i].name = NULL;
				break;
			}
		}
	}
}

/* One block: the field array, then the arg bytes, then the names. */
static int build(const struct pending_field *pending, uint32_t nr,
		 struct ust_marker_format *out)
{
	size_t names_size = 0, fixed_size = 0;
	uint32_t i, nr_strings = 0;
	char *block, *name;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!nr)
		goto end;
	for (i = 0; i < nr; i++)
		names_size += (pending[i].name ? pending[i].name_len : ARG_NAME_MAX - 1) + 1;
	block = malloc(nr * sizeof(struct ust_field_desc) + nr + names_size);
	if (!block) {
		ret = -ENOMEM;
		goto end;
	}
	out->fields = (struct ust_field_desc *)block;
	out->args = (uint8_t *)(block + nr * sizeof(struct ust_field_desc));
	name = (char *)out->args + nr;
	for (i = 0; i < nr; i++) {
		out->fields[i] = pending[i].desc;
		out->fields[i].name = name;
		out->args[i] = pending[i].arg;
		if (pending[i].name) {
			memcpy(name, pending[i].name, pending[i].name_len);
			name[pending[i].name_len] = '\0';
		} else {
			arg_name(name, i);
		}
		name += strlen(name) + 1;
		if (pending[i].arg == UST_MARKER_ARG_STRING)
			nr_strings++;
		else
			fixed_size += pending[i].desc.size;
	}
	out->nr_fields = nr;
	out->nr_strings = nr_strings;
	out->fixed_size = fixed_size;
end:
	return ret;
}

int ust_marker_format_parse(const char *format, struct ust_marker_format *out,
			    const char **err)
{
	struct pending_field pending[UST_MARKER_MAX_FIELDS];
	const char *p = format, *text = format, *conv;
	uint32_t nr = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(pending, 0, sizeof(pending));
	while (*p) {
		if (*p != '%') {
			p++;
			continue;
		}
		if (p[1] == '%') {
			p += 2;
			text = p;
			continue;
		}
		if (nr == UST_MARKER_MAX_FIELDS) {
			*err = msg_too_many;
			ret = -EINVAL;
			goto end;
		}
		conv = p;
		ret = parse_conversion(&p, &pending[nr], err);
		if (ret)
			goto end;
		find_name(text, conv, &pending[nr]);
		text = p;
		nr++;
	}
	settle_names(pending, nr);
	ret = build(pending, nr, out);
end:
	return ret;
}

void ust_marker_format_fini(struct ust_marker_format *f)
{
	free(f->fields);
	memset(f, 0, sizeof(*f));
}

union marker_value {
	uint64_t u;
	double d;
	const char *s;
};

/* Fetches the next argument with the type it was passed as. */
static union marker_value fetch(va_list *ap, uint8_t arg)
{
	union marker_value v;

	switch (arg) {
	case UST_MARKER_ARG_INT:
		v.u = (uint64_t)(int64_t)va_arg(*ap, int);
		break;
	case UST_MARKER_ARG_UINT:
		v.u = va_arg(*ap, unsigned int);
		break;
	case UST_MARKER_ARG_LONG:
		v.u = (uint64_t)(int64_t)va_arg(*ap, long);
		break;
	case UST_MARKER_ARG_ULONG:
		v.u = va_arg(*ap, unsigned long);
		break;
	case UST_MARKER_ARG_LLONG:
		v.u = (uint64_t)va_arg(*ap, long long);
		break;
	case UST_MARKER_ARG_ULLONG:
		v.u = va_arg(*ap, unsigned long long);
		break;
	case UST_MARKER_ARG_SSIZE:
		v.u = (uint64_t)(int64_t)va_arg(*ap, ssize_t);
		break;
	case UST_MARKER_ARG_SIZE:
		v.u = va_arg(*ap, size_t);
		break;
	case UST_MARKER_ARG_INTMAX:
		v.u = (uint64_t)va_arg(*ap, intmax_t);
		break;
	case UST_MARKER_ARG_UINTMAX:
		v.u = va_arg(*ap, uintmax_t);
		break;
	case UST_MARKER_ARG_POINTER:
		v.u = (uintptr_t)va_arg(*ap, void *);
		break;
	case UST_MARKER_ARG_DOUBLE:
		v.d = va_arg(*ap, double);
		break;
	default:
		v.s = va_arg(*ap, const char *);
		if (!v.s)
			v.s = "(null)";
		break;
	}
	return v;
}

size_t ust_marker_payload_size(const struct ust_marker_format *f, va_list ap,
			       size_t *str_lens)
{
	size_t size = f->fixed_size;
	union marker_value v;
	va_list aq;
	uint32_t i;

	if (!f->nr_strings)
		return size;
	va_copy(aq, ap);
	for (i = 0; i < f->nr_fields; i++) {
		v = fetch(&aq, f->args[i]);
		if (f->args[i] == UST_MARKER_ARG_STRING) {
			*str_lens = strlen(v.s);
			size += *str_lens++ + 1;
		}
	}
	va_end(aq);
	return size;
}

/* The low size bytes of v, in native byte order. */
static void put_uint(char *dst, uint64_t v, unsigned int size)
{
	uint8_t u8 = v;
	uint16_t u16 = v;
	uint32_t u32 = v;

	switch (size) {
	case 1:
		memcpy(dst, &u8, 1);
		break;
	case 2:
		memcpy(dst, &u16, 2);
		break;
	case 4:
		memcpy(dst, &u32, 4);
		break;
	default:
		memcpy(dst, &v, 8);
		break;
	}
}

void ust_marker_payload_write(const struct ust_marker_format *f, char *dst, va_list ap,
			      const size_t *str_lens)
{
	const struct ust_field_desc *fd;
	union marker_value v;
	size_t len;
	va_list aq;
	uint32_t i;

	va_copy(aq, ap);
	for (i = 0; i < f->nr_fields; i++) {
		fd = &f->fields[i];
		v = fetch(&aq, f->args[i]);
		switch (fd->kind) {
		case UST_FIELD_STRING:
			len = *str_lens++;
			memcpy(dst, v.s, len);
			dst[len] = '\0';
			dst += len + 1;
			break;
		case UST_FIELD_FLOAT:
			memcpy(dst, &v.d, sizeof(double));
			dst += sizeof(double);
			break;
		default:
			put_uint(dst, v.u, fd->size);
			dst += fd->size;
			break;
		}
	}
	va_end(aq);
}
