/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Markers: printf-style instrumentation points.
 *
 *	trace_mark(ust, search_event, "dn %s count %d", dn, count);
 *	trace_mark(ust, tick, "");
 *
 * channel and name are identifiers. The format must be a string literal:
 * the identifier before each conversion names its field, and the compiler
 * checks the arguments against it as it checks printf's (-Wformat). It is
 * parsed once, when the marker is registered. A disabled marker costs one
 * load and one branch; its arguments are not evaluated.
 */
#ifndef UST_MARKER_H
#define UST_MARKER_H

#include <ust/core.h>

/* The format of a marker without arguments, as classic UST spelled it. */
#define MARK_NOARGS " "

/*
 * Splitting a variadic list into its first argument and the rest, without
 * GNU's ", ## __VA_ARGS__", so that the instrumentation macros also build
 * warning-free with -std=c11 -pedantic. Shared by tracepoint.h and
 * tracepoint_event.h; lists of up to 63 arguments.
 */
#define __UST_ARG_FIRST(...)		__UST_ARG_FIRST_(__VA_ARGS__, _)
#define __UST_ARG_FIRST_(first, ...)	first
/* Everything after the first argument, with a leading comma when not empty. */
#define __UST_ARG_REST(...)		__UST_ARG_SPLIT(__UST_ARG_REST_, __VA_ARGS__)
/* Everything after the first argument. */
#define __UST_ARG_TAIL(...)		__UST_ARG_SPLIT(__UST_ARG_TAIL_, __VA_ARGS__)

#define __UST_ARG_SPLIT(prefix, ...) \
	__UST_ARG_CAT(prefix, __UST_ARG_COUNT(__VA_ARGS__))(__VA_ARGS__)
#define __UST_ARG_CAT(a, b)		__UST_ARG_CAT_(a, b)
#define __UST_ARG_CAT_(a, b)		a##b
#define __UST_ARG_COUNT(...) \
	__UST_ARG_PICK64(__VA_ARGS__, \
		MORE, MORE, MORE, MORE, MORE, MORE, MORE, MORE, MORE, MORE, \
		MORE, MORE, MORE, MORE, MORE, MORE, MORE, MORE, MORE, MORE, \
		MORE, MORE, MORE, MORE, MORE, MORE, MORE, MORE, MORE, MORE, \
		MORE, MORE, MORE, MORE, MORE, MORE, MORE, MORE, MORE, MORE, \
		MORE, MORE, MORE, MORE, MORE, MORE, MORE, MORE, MORE, MORE, \
		MORE, MORE, MORE, MORE, MORE, MORE, MORE, MORE, MORE, MORE, \
		MORE, MORE, ONE, _)
#define __UST_ARG_PICK64( \
	_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, \
	_17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, \
	_31, _32, _33, _34, _35, _36, _37, _38, _39, _40, _41, _42, _43, _44, \
	_45, _46, _47, _48, _49, _50, _51, _52, _53, _54, _55, _56, _57, _58, \
	_59, _60, _61, _62, _63, sel, ...) sel
#define __UST_ARG_REST_ONE(first)
#define __UST_ARG_REST_MORE(first, ...)	, __VA_ARGS__
#define __UST_ARG_TAIL_ONE(first)
#define __UST_ARG_TAIL_MORE(first, ...)	__VA_ARGS__

/* Never called: gives the compiler a printf prototype to check against. */
static inline void __ust_noinstr __attribute__((format(printf, 1, 2)))
__ust_marker_check_format(const char *format, ...)
{
	(void)format;
}

/*
 * The descriptor is a block-scope static, one per site (one per program for
 * a site in a C++ inline function, one per instantiation in a template);
 * the assembler lists it in the events section (core.h says why not a
 * section attribute). The check sees the format behind a blank so that an
 * empty format does not trip -Wformat-zero-length.
 */
#define trace_mark(chan, ev, ...) \
	trace_mark_level(chan, ev, UST_LOGLEVEL_DEFAULT, __VA_ARGS__)

/* A marker with a severity (enum ust_loglevel), for --loglevel rules:
 *	trace_mark_level(ust, disk_full, UST_LOGLEVEL_ERR, "free %lu", n); */
#define trace_mark_level(chan, ev, level, ...) \
	do { \
		static struct ust_event_desc __ust_marker_desc __UST_SDT_MARK_DESC_ATTR = \
			__UST_EVENT_DESC_INIT(#chan, #ev, __UST_ARG_FIRST(__VA_ARGS__), \
					      NULL, 0, (level)); \
		__UST_SECTION_ENTRY(UST_SECTION_EVENTS, __ust_marker_desc); \
		if (0) \
			__ust_marker_check_format(" " __VA_ARGS__); \
		__UST_MARKER_EMIT(chan, ev, __ust_marker_desc, __VA_ARGS__); \
	} while (0)

#if UST_SDT
#include <ust/sdt.h>
#define __UST_MARKER_EMIT(chan, ev, desc, ...) \
	do { \
		int32_t __ust_flags = ust_site_enabled((desc).enabled); \
		if (ust_unlikely(__ust_flags)) { \
			__UST_SDT_MARK(chan, ev, desc, __ust_flags, __VA_ARGS__) \
		} \
	} while (0)
#else
#define __UST_SDT_MARK_DESC_ATTR
#define __UST_MARKER_EMIT(chan, ev, desc, ...) \
	do { \
		if (ust_unlikely(ust_site_enabled((desc).enabled))) \
			ust_marker_emit(&(desc) __UST_ARG_REST(__VA_ARGS__)); \
	} while (0)
#endif

#endif
