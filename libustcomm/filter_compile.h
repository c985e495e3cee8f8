/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The filter expression language, LTTng's (lttng-tools 2.13,
 * filter-parser.y), and its compiler to bytecode (filter_bytecode.h).
 * Controllers run it; the application never parses text. From the
 * loosest to the tightest binding, all left-associative:
 *
 *	expr     = and { "||" and } ;
 *	and      = equality { "&&" equality } ;
 *	equality = relation { ( "==" | "!=" ) relation } ;
 *	relation = bitor { ( "<" | "<=" | ">" | ">=" ) bitor } ;
 *	bitor    = bitxor { "|" bitxor } ;
 *	bitxor   = bitand { "^" bitand } ;
 *	bitand   = shift { "&" shift } ;
 *	shift    = unary { ( "<<" | ">>" ) unary } ;
 *	unary    = ( "!" | "-" | "+" | "~" ) unary | primary ;
 *	primary  = integer | float | string | field | "$ctx." name
 *	         | "$app." name | "(" expr ")" ;
 *
 * The bitwise operators bind tighter than the comparisons, unlike C:
 * "a & 3 == 1" is "(a & 3) == 1", as in LTTng. Arithmetic (+ - * / %),
 * which LTTng parses and then refuses, is refused. The manual (5.1) has
 * the literals, the types and what differs from LTTng.
 */
#ifndef USTCOMM_FILTER_COMPILE_H
#define USTCOMM_FILTER_COMPILE_H

#include <stddef.h>
#include "libustcomm/filter_bytecode.h"

/*
 * Compiles text. With fields (the event's, nr_fields of them), the types
 * must fit; without (NULL), fields may have any type and the application
 * checks when it links. Returns 0; or 1, compiled, when the filter names a
 * field not in fields, an unknown $ctx context or an $app context: it
 * records nothing of that event, as in LTTng, and err holds that warning.
 * On error, returns -EINVAL (or -ENOMEM) with err->offset the 1-based byte
 * column in text and err->text the reason. *prog is malloc'd.
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
