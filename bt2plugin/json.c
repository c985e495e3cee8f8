/* SPDX-License-Identifier: LGPL-2.1-only */
#include <inttypes.h>
#include <math.h>

#include "bt2plugin/json.h"
#include "bt2plugin/utf8.h"

void ust_json_u64(FILE *f, uint64_t v)
{
	char buf[24], *p = buf + sizeof(buf);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fwrite_unlocked(p, 1, (size_t)(buf + sizeof(buf) - p), f);
}

void ust_json_i64(FILE *f, int64_t v)
{
	if (v < 0) {
		putc_unlocked('-', f);
		ust_json_u64(f, -(uint64_t)v);
	} else {
		ust_json_u64(f, (uint64_t)v);
	}
}

/* Printable ASCII other than '"' and '\\': written as it is. */
static int plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

void ust_json_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t run, n;

	putc_unlocked('"', f);
	while (*s) {
		for (run = 0; plain(s[run]); run++)
			;
		if (run) {
			fwrite_unlocked(s, 1, run, f);
			s += run;
			continue;
		}
		if (*s == '"' || *s == '\\') {
			putc_unlocked('\\', f);
			putc_unlocked(*s++, f);
		} else if (*s < 0x20) {
			fprintf(f, "\\u%04x", *s++);
		} else if (ust_utf8_seq(s, &n)) {
			fwrite_unlocked(s, 1, n, f);
			s += n;
		} else {
			fputs_unlocked(UST_UTF8_REPLACEMENT, f);
			s += n;
		}
	}
	putc_unlocked('"', f);
}

void ust_json_us(FILE *f, int64_t ns)
{
	uint64_t mag = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	char frac[4] = { '.', (char)('0' + mag / 100 % 10), (char)('0' + mag / 10 % 10),
			 (char)('0' + mag % 10) };

	if (ns < 0)
		putc_unlocked('-', f);
	ust_json_u64(f, mag / 1000);
	fwrite_unlocked(frac, 1, sizeof(frac), f);
}

static void json_real(FILE *f, double v)
{
	if (isnan(v))
		fputs_unlocked("\"nan\"", f);
	else if (isinf(v))
		fputs_unlocked(v > 0 ? "\"inf\"" : "\"-inf\"", f);
	else
		fprintf(f, "%.17g", v);
}

static void json_array(FILE *f, const bt_field *field)
{
	uint64_t i, n = bt_field_array_get_length(field);

	putc_unlocked('[', f);
	for (i = 0; i < n; i++) {
		if (i)
			putc_unlocked(',', f);
		ust_json_field(f, bt_field_array_borrow_element_field_by_index_const(field, i));
	}
	putc_unlocked(']', f);
}

uint64_t ust_json_members(FILE *f, const bt_field *structure, int lead_comma)
{
	const bt_field_class *fc = bt_field_borrow_class_const(structure);
	uint64_t i, n = bt_field_class_structure_get_member_count(fc);

	for (i = 0; i < n; i++) {
		const bt_field_class_structure_member *m =
			bt_field_class_structure_borrow_member_by_index_const(fc, i);

		if (i || lead_comma)
			putc_unlocked(',', f);
		ust_json_string(f, bt_field_class_structure_member_get_name(m));
		putc_unlocked(':', f);
		ust_json_field(f, bt_field_structure_borrow_member_field_by_index_const(structure, i));
	}
	return n;
}

void ust_json_field(FILE *f, const bt_field *field)
{
	bt_field_class_type t = bt_field_get_class_type(field);

	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		ust_json_u64(f, bt_field_integer_unsigned_get_value(field));
	else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		ust_json_i64(f, bt_field_integer_signed_get_value(field));
	else if (t == BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL)
		json_real(f, bt_field_real_double_precision_get_value(field));
	else if (t == BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL)
		json_real(f, bt_field_real_single_precision_get_value(field));
	else if (t == BT_FIELD_CLASS_TYPE_STRING)
		ust_json_string(f, bt_field_string_get_value(field));
	else if (t == BT_FIELD_CLASS_TYPE_BOOL)
		fputs_unlocked(bt_field_bool_get_value(field) ? "true" : "false", f);
	else if (t == BT_FIELD_CLASS_TYPE_BIT_ARRAY)
		fprintf(f, "%" PRIu64, bt_field_bit_array_get_value_as_integer(field));
	else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ARRAY))
		json_array(f, field);
	else if (t == BT_FIELD_CLASS_TYPE_STRUCTURE) {
		putc_unlocked('{', f);
		ust_json_members(f, field, 0);
		putc_unlocked('}', f);
	} else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_OPTION)) {
		const bt_field *inner = bt_field_option_borrow_field_const(field);

		if (inner)
			ust_json_field(f, inner);
		else
			fputs_unlocked("null", f);
	} else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_VARIANT))
		ust_json_field(f, bt_field_variant_borrow_selected_option_field_const(field));
	else
		fputs_unlocked("null", f);
}
