/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The filter expression language (LTTng's, the subset below) and its
 * compiler to bytecode (filter_bytecode.h). Controllers run it; the
 * application never parses text.
 *
 *	expr     = or ;
 *	or       = and { "||" and } ;
 *	and      = equality { "&&" equality } ;
 *	equality = relation { ( "==" | "!=" ) relation } ;
 *	relation = unary { ( "<" | "<=" | ">" | ">=" ) unary } ;
 *	unary    = ( "!" | "-" ) unary | primary ;
 *	primary  = integer | float | string | field | "$ctx." name
 *	         | "(" expr ")" ;
 *
 * Integers are decimal, 0x hexadecimal or 0 octal; floats have a '.' or
 * an exponent. Strings are in double quotes with \" \\ \* \n \t escapes;
 * one with an unescaped '*' is a glob pattern. Strings compare with ==
 * and != only; numbers with all six; && || ! take numbers.
 */
#ifndef USTCOMM_FILTER_COMPILE_H
#define USTCOMM_FILTER_COMPILE_H

#include <stddef.h>
#include "libustcomm/filter_bytecode.h"

/*
 * Compiles text. With fields (the event's, nr_fields of them), every field
 * name must be one of them and the types must fit; without (NULL), fields
 * may have any type and the application checks when it links. On error,
 * returns -EINVAL (or -ENOMEM) with err->offset the 1-based column in text
 * and err->text the reason. *prog is malloc'd.
 */
USTCOMM_API int ust_filter_compile(const char *text, const struct ust_filter_field *fields,
				   uint32_t nr_fields, void **prog, size_t *len,
				   struct ust_filter_error *err);

/*
 * The type a filter gives a field listed by list-markers ("int32",
 * "uint64 hex", "double", "string", "uint8[4]"...).
 */
USTCOMM_API enum ust_filter_type ust_filter_type_from_name(const char *type);

#endif
