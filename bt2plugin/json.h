/* SPDX-License-Identifier: LGPL-2.1-only */
/* Writing babeltrace2 values as JSON (RFC 8259) to a stdio stream. */
#ifndef UST_BT2_JSON_H
#define UST_BT2_JSON_H

#include <stdint.h>
#include <stdio.h>
#include <babeltrace2/babeltrace.h>

/* s as a JSON string, quotes included: always valid UTF-8, each ill-formed
 * subpart of s (bt2plugin/utf8.h) replaced by U+FFFD as strict decoders do. */
void ust_json_string(FILE *f, const char *s);
void ust_json_u64(FILE *f, uint64_t v);
void ust_json_i64(FILE *f, int64_t v);
/* A time in nanoseconds as microseconds with three decimals, exactly. */
void ust_json_us(FILE *f, int64_t ns);
/* Any field: integers, enumerations and reals as numbers (NaN and
 * infinities, which JSON lacks, as strings), strings, arrays as arrays,
 * structures as objects, options and variants as their content or null. */
void ust_json_field(FILE *f, const bt_field *field);
/* The members of a structure field as `"name":value` pairs, comma-separated,
 * each preceded by a comma when lead_comma is set. Returns the count. */
uint64_t ust_json_members(FILE *f, const bt_field *structure, int lead_comma);

#endif
