/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Marker format parser and payload serializer: the field each conversion
 * becomes, field naming, the formats refused and why, and the exact bytes
 * recorded for real variadic calls.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "libust/marker_format.h"
#include "tests/unit/tap.h"

#define CHAR_SIGNED	((char)-1 < (char)1)

struct conv_case {
	const char *format;
	uint8_t kind;
	uint8_t size;
	uint8_t is_signed;
	uint8_t base;
	uint8_t arg;
};

static const struct conv_case conv_cases[] = {
	{ "v %d", UST_FIELD_INTEGER, sizeof(int), 1, 10, UST_MARKER_ARG_INT },
	{ "v %i", UST_FIELD_INTEGER, sizeof(int), 1, 10, UST_MARKER_ARG_INT },
	{ "v %u", UST_FIELD_INTEGER, sizeof(int), 0, 10, UST_MARKER_ARG_UINT },
	{ "v %x", UST_FIELD_INTEGER, sizeof(int), 0, 16, UST_MARKER_ARG_UINT },
	{ "v %hhd", UST_FIELD_INTEGER, 1, 1, 10, UST_MARKER_ARG_INT },
	{ "v %hhu", UST_FIELD_INTEGER, 1, 0, 10, UST_MARKER_ARG_UINT },
	{ "v %hhx", UST_FIELD_INTEGER, 1, 0, 16, UST_MARKER_ARG_UINT },
	{ "v %hd", UST_FIELD_INTEGER, 2, 1, 10, UST_MARKER_ARG_INT },
	{ "v %hi", UST_FIELD_INTEGER, 2, 1, 10, UST_MARKER_ARG_INT },
	{ "v %hu", UST_FIELD_INTEGER, 2, 0, 10, UST_MARKER_ARG_UINT },
	{ "v %hx", UST_FIELD_INTEGER, 2, 0, 16, UST_MARKER_ARG_UINT },
	{ "v %ld", UST_FIELD_INTEGER, sizeof(long), 1, 10, UST_MARKER_ARG_LONG },
	{ "v %lu", UST_FIELD_INTEGER, sizeof(long), 0, 10, UST_MARKER_ARG_ULONG },
	{ "v %lx", UST_FIELD_INTEGER, sizeof(long), 0, 16, UST_MARKER_ARG_ULONG },
	{ "v %lld", UST_FIELD_INTEGER, 8, 1, 10, UST_MARKER_ARG_LLONG },
	{ "v %lli", UST_FIELD_INTEGER, 8, 1, 10, UST_MARKER_ARG_LLONG },
	{ "v %llu", UST_FIELD_INTEGER, 8, 0, 10, UST_MARKER_ARG_ULLONG },
	{ "v %llx", UST_FIELD_INTEGER, 8, 0, 16, UST_MARKER_ARG_ULLONG },
	{ "v %zd", UST_FIELD_INTEGER, sizeof(size_t), 1, 10, UST_MARKER_ARG_SSIZE },
	{ "v %zu", UST_FIELD_INTEGER, sizeof(size_t), 0, 10, UST_MARKER_ARG_SIZE },
	{ "v %zx", UST_FIELD_INTEGER, sizeof(size_t), 0, 16, UST_MARKER_ARG_SIZE },
	{ "v %jd", UST_FIELD_INTEGER, sizeof(intmax_t), 1, 10, UST_MARKER_ARG_INTMAX },
	{ "v %ju", UST_FIELD_INTEGER, sizeof(intmax_t), 0, 10, UST_MARKER_ARG_UINTMAX },
	{ "v %jx", UST_FIELD_INTEGER, sizeof(intmax_t), 0, 16, UST_MARKER_ARG_UINTMAX },
	{ "v %c", UST_FIELD_INTEGER, 1, CHAR_SIGNED, 10, UST_MARKER_ARG_INT },
	{ "v %p", UST_FIELD_INTEGER, sizeof(void *), 0, 16, UST_MARKER_ARG_POINTER },
	{ "v %s", UST_FIELD_STRING, 0, 0, 0, UST_MARKER_ARG_STRING },
	{ "v %f", UST_FIELD_FLOAT, 8, 1, 10, UST_MARKER_ARG_DOUBLE },
	{ "v %lf", UST_FIELD_FLOAT, 8, 1, 10, UST_MARKER_ARG_DOUBLE },
};

static void test_conversions(void)
{
	struct ust_marker_format f;
	const struct ust_field_desc *fd;
	const char *err = NULL;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(conv_cases) / sizeof(conv_cases[0]); i++) {
		const struct conv_case *c = &conv_cases[i];

		ret = ust_marker_format_parse(c->format, &f, &err);
		if (!tap_ok(ret == 0 && f.nr_fields == 1, "\"%s\" parses to one field", c->format)) {
			tap_diag("ret %d, nr_fields %u, err %s", ret, f.nr_fields, ret ? err : "-");
			continue;
		}
		fd = &f.fields[0];
		tap_ok(fd->kind == c->kind && fd->size == c->size && fd->is_signed == c->is_signed &&
		       fd->base == c->base && f.args[0] == c->arg && !strcmp(fd->name, "v") &&
		       fd->len_size == 0 && fd->length == 0,
		       "\"%s\": kind %u size %u signed %u base %u arg %u name %s",
		       c->format, fd->kind, fd->size, fd->is_signed, fd->base, f.args[0], fd->name);
		ust_marker_format_fini(&f);
	}
}

/* names: the expected field names separated by single blanks, or "" */
static void check_names(const char *format, const char *names)
{
	struct ust_marker_format f;
	const char *err = NULL;
	char got[512] = "";
	uint32_t i;
	int ret;

	ret = ust_marker_format_parse(format, &f, &err);
	if (!tap_ok(ret == 0, "\"%s\" parses", format)) {
		tap_diag("ret %d: %s", ret, err);
		return;
	}
	for (i = 0; i < f.nr_fields; i++) {
		if (i)
			strcat(got, " ");
		strcat(got, f.fields[i].name);
	}
	tap_ok(!strcmp(got, names), "\"%s\" names its fields \"%s\" (got \"%s\")",
	       format, names, got);
	ust_marker_format_fini(&f);
}

static void test_names(void)
{
	check_names("", "");
	check_names(" ", "");
	check_names("nothing to see, 100%% literal", "");
	check_names("dn %s count %d", "dn count");
	check_names("x=%d y:%d", "x y");
	check_names("x = %d, y : %u", "x y");
	check_names("count%d", "count");
	check_names("%d %d", "arg0 arg1");
	check_names("%d%d%s", "arg0 arg1 arg2");
	check_names("a %d %d", "a arg1");
	check_names("a %d a %d", "a arg1");
	check_names("0x%x 9lives %d", "arg0 arg1");
	check_names("rate 100%% done %d", "done");
	check_names("%%d %d", "d");
	check_names("obj.field %d", "field");
	check_names("_under_score1 %d", "_under_score1");
	/* argN spellings stay unique whatever the user wrote */
	check_names("arg1 %d %d", "arg0 arg1");
	check_names("arg0 %d arg1 %d", "arg0 arg1");
	check_names("%d arg0 %d", "arg0 arg1");
}

struct reject_case {
	const char *format;
	const char *message;	/* a part of the expected message */
};

static const struct reject_case reject_cases[] = {
	{ "v %5d", "width" },
	{ "v %-d", "flags" },
	{ "v %+d", "flags" },
	{ "v %05d", "flags" },
	{ "v %#x", "flags" },
	{ "v % d", "flags" },
	{ "v %.3s", "precision" },
	{ "v %*d", "width" },
	{ "v %n", "%n" },
	{ "v %ls", "%ls" },
	{ "v %lc", "%lc" },
	{ "v %X", "unsupported conversion" },
	{ "v %o", "unsupported conversion" },
	{ "v %e", "unsupported conversion" },
	{ "v %g", "unsupported conversion" },
	{ "v %Lf", "length modifier" },
	{ "v %td", "length modifier" },
	{ "v %qd", "length modifier" },
	{ "v %hs", "does not apply" },
	{ "v %lp", "does not apply" },
	{ "v %hhf", "does not apply" },
	{ "v %llf", "does not apply" },
	{ "v %hc", "does not apply" },
	{ "v %", "incomplete conversion" },
	{ "v %h", "incomplete conversion" },
	{ "ok %d then %5d", "width" },
};

static void test_rejects(void)
{
	struct ust_marker_format f;
	const char *err;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(reject_cases) / sizeof(reject_cases[0]); i++) {
		const struct reject_case *c = &reject_cases[i];

		err = NULL;
		f.nr_fields = 99;
		ret = ust_marker_format_parse(c->format, &f, &err);
		tap_ok(ret == -EINVAL && err && strstr(err, c->message) && f.nr_fields == 0 &&
		       f.fields == NULL,
		       "\"%s\" is refused: %s", c->format, err ? err : "(no message)");
		ust_marker_format_fini(&f);
	}
}

static void test_field_limit(void)
{
	struct ust_marker_format f;
	char format[256] = "";
	const char *err = NULL;
	int i, ret;

	for (i = 0; i < UST_MARKER_MAX_FIELDS; i++)
		strcat(format, "%d ");
	ret = ust_marker_format_parse(format, &f, &err);
	tap_ok(ret == 0 && f.nr_fields == UST_MARKER_MAX_FIELDS &&
	       !strcmp(f.fields[31].name, "arg31"),
	       "%d fields are accepted, the last named arg31", UST_MARKER_MAX_FIELDS);
	ust_marker_format_fini(&f);
	tap_ok(f.fields == NULL && f.nr_fields == 0, "fini leaves the format empty");

	strcat(format, "%d");
	ret = ust_marker_format_parse(format, &f, &err);
	tap_ok(ret == -EINVAL && strstr(err, "more than 32 fields"),
	       "%d fields are refused: %s", UST_MARKER_MAX_FIELDS + 1, ret ? err : "accepted");
	ust_marker_format_fini(&f);
}

/* ---- payloads ---- */

#define BUF_SIZE	1024
#define CANARY		0xa5

/* Sizes and records one event the way ust_marker_emit() does. */
static size_t record(const struct ust_marker_format *f, unsigned char *buf, ...)
{
	size_t str_lens[UST_MARKER_MAX_FIELDS];
	va_list ap;
	size_t size;

	va_start(ap, buf);
	size = ust_marker_payload_size(f, ap, str_lens);
	memset(buf, CANARY, BUF_SIZE);
	if (size < BUF_SIZE)
		ust_marker_payload_write(f, (char *)buf, ap, str_lens);
	va_end(ap);
	return size;
}

struct expect {
	unsigned char bytes[BUF_SIZE];
	size_t len;
};

static void put(struct expect *e, const void *p, size_t n)
{
	memcpy(e->bytes + e->len, p, n);
	e->len += n;
}

#define PUT(e, type, value) \
	do { \
		type __v = (value); \
		put(e, &__v, sizeof(__v)); \
	} while (0)

static void check_payload(const char *what, const unsigned char *buf, size_t size,
			  const struct expect *e)
{
	size_t i;

	tap_ok(size == e->len, "%s: payload size %zu (expected %zu)", what, size, e->len);
	if (size != e->len || size >= BUF_SIZE)
		return;
	for (i = 0; i < size && buf[i] == e->bytes[i]; i++)
		;
	if (!tap_ok(i == size, "%s: payload bytes", what))
		tap_diag("first difference at byte %zu: 0x%02x, expected 0x%02x",
			 i, buf[i], e->bytes[i]);
	tap_ok(buf[size] == CANARY, "%s: nothing written past the payload", what);
}

static int parse_ok(const char *format, struct ust_marker_format *f)
{
	const char *err = NULL;
	int ret = ust_marker_format_parse(format, f, &err);

	if (ret)
		tap_diag("\"%s\": %d %s", format, ret, err);
	return ret == 0;
}

static void test_payload_integers(void)
{
	static const char format[] =
		"a %d b %hhd c %hu d %ld e %llx f %zu g %jd h %c i %p j %u k %hhx l %zd m %lu";
	unsigned char buf[BUF_SIZE];
	struct ust_marker_format f;
	struct expect e = { .len = 0 };
	size_t size;

	if (!tap_ok(parse_ok(format, &f), "integer format parses"))
		return;
	size = record(&f, buf, -1, (signed char)-2, (unsigned short)65535, -3L,
		      0x1122334455667788ULL, (size_t)7, (intmax_t)-9, 'Z', (void *)0x1234,
		      4000000000u, (unsigned char)0xfe, (ssize_t)-5, 123456789UL);
	PUT(&e, int32_t, -1);
	PUT(&e, int8_t, -2);
	PUT(&e, uint16_t, 65535);
	PUT(&e, long, -3L);
	PUT(&e, uint64_t, 0x1122334455667788ULL);
	PUT(&e, size_t, 7);
	PUT(&e, intmax_t, -9);
	PUT(&e, char, 'Z');
	PUT(&e, uintptr_t, 0x1234);
	PUT(&e, uint32_t, 4000000000u);
	PUT(&e, uint8_t, 0xfe);
	PUT(&e, ssize_t, -5);
	PUT(&e, unsigned long, 123456789UL);
	tap_ok(f.nr_strings == 0 && f.fixed_size == e.len,
	       "integers: fixed size %zu without strings", f.fixed_size);
	check_payload("integers", buf, size, &e);
	ust_marker_format_fini(&f);
}

static void test_payload_strings_doubles(void)
{
	static const char format[] = "s %s n %s d %f c %c l %lf e %s x %d";
	unsigned char buf[BUF_SIZE];
	struct ust_marker_format f;
	struct expect e = { .len = 0 };
	size_t size;

	if (!tap_ok(parse_ok(format, &f), "string and double format parses"))
		return;
	size = record(&f, buf, "hello", (char *)NULL, 1.5, 'q', -2.25, "", 42);
	put(&e, "hello", 6);
	put(&e, "(null)", 7);
	PUT(&e, double, 1.5);
	PUT(&e, char, 'q');
	PUT(&e, double, -2.25);
	put(&e, "", 1);
	PUT(&e, int32_t, 42);
	tap_ok(f.nr_strings == 3, "strings: three string fields counted");
	check_payload("strings, NULL, doubles, chars", buf, size, &e);
	ust_marker_format_fini(&f);
}

/* More arguments than registers: the later ones come from the stack. */
static void test_payload_many(void)
{
	unsigned char buf[BUF_SIZE];
	struct ust_marker_format f;
	struct expect e = { .len = 0 };
	char format[512] = "";
	size_t size;
	int i;

	for (i = 0; i < 10; i++)
		strcat(format, "%d %f %s ");
	if (!tap_ok(parse_ok(format, &f) && f.nr_fields == 30, "30-field format parses"))
		return;
	size = record(&f, buf,
		      0, 0.5, "s0", 1, 1.5, "s1", 2, 2.5, "s2", 3, 3.5, "s3", 4, 4.5, "s4",
		      5, 5.5, "s5", 6, 6.5, "s6", 7, 7.5, "s7", 8, 8.5, "s8", 9, 9.5, "s9");
	for (i = 0; i < 10; i++) {
		char s[3] = { 's', (char)('0' + i), '\0' };

		PUT(&e, int32_t, i);
		PUT(&e, double, i + 0.5);
		put(&e, s, 3);
	}
	check_payload("30 mixed arguments", buf, size, &e);
	ust_marker_format_fini(&f);
}

static void test_payload_empty(void)
{
	unsigned char buf[BUF_SIZE];
	struct ust_marker_format f;
	struct expect e = { .len = 0 };

	if (!tap_ok(parse_ok("", &f) && f.nr_fields == 0 && f.fields == NULL,
		    "empty format: no fields, nothing allocated"))
		return;
	check_payload("no arguments", buf, record(&f, buf), &e);
	ust_marker_format_fini(&f);
}

/* Sizes, then changes the string the way another thread could, then writes. */
static size_t record_changing(const struct ust_marker_format *f, unsigned char *buf,
			      char *text, const char *later, ...)
{
	size_t str_lens[UST_MARKER_MAX_FIELDS];
	va_list ap;
	size_t size;

	va_start(ap, later);
	size = ust_marker_payload_size(f, ap, str_lens);
	strcpy(text, later);
	memset(buf, CANARY, BUF_SIZE);
	ust_marker_payload_write(f, (char *)buf, ap, str_lens);
	va_end(ap);
	return size;
}

static void test_payload_string_changes(void)
{
	unsigned char buf[BUF_SIZE];
	struct ust_marker_format f;
	char text[32] = "abc";
	size_t size;

	if (!tap_ok(parse_ok("s %s n %d", &f), "parse \"s %%s n %%d\""))
		return;
	size = record_changing(&f, buf, text, "abcdefghijklmnop", text, 7);
	tap_ok(size == 8 && !memcmp(buf, "abc\0\x07\0\0\0", 8) && buf[8] == CANARY,
	       "a string that grows between sizing and writing is cut at its measured length");
	ust_marker_format_fini(&f);
}

int main(void)
{
	test_conversions();
	test_names();
	test_rejects();
	test_field_limit();
	test_payload_integers();
	test_payload_strings_doubles();
	test_payload_many();
	test_payload_empty();
	test_payload_string_changes();
	tap_plan(tap_count);
	return tap_done();
}
