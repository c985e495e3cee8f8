/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Spans: an explicit duration, opened and closed by two markers.
 *
 *	ust_span_begin(myapp, request, "path %s", path);
 *	...
 *	ust_span_end(myapp, request, "status %d", status);
 *
 * They are ordinary markers named `<name>_begin` and `<name>_end` in the
 * channel `provider` (myapp:request_begin, myapp:request_end), so that
 * babeltrace2 prints them like any event, and usttrace -m 'myapp:request_*'
 * enables both. sink.ust.perfetto draws each pair on the thread's (or CPU's)
 * track as a slice named `provider:name`; pairs nest. The format and its
 * arguments are optional and follow trace_mark()'s rules.
 */
#ifndef UST_SPAN_H
#define UST_SPAN_H

#include <ust/marker.h>

/*
 * The provider and name are split off the argument list so that a span
 * without a format leaves no variadic argument empty (-pedantic before
 * C23 and C++20); the format gets a "" in front so that it may be left out.
 */
#define ust_span_begin(...)	__UST_SPAN(_begin, __VA_ARGS__)
#define ust_span_end(...)	__UST_SPAN(_end, __VA_ARGS__)
#define __UST_SPAN(suffix, ...) \
	__UST_SPAN_(suffix, __UST_ARG_FIRST(__VA_ARGS__), __UST_ARG_TAIL(__VA_ARGS__))
#define __UST_SPAN_(suffix, provider, ...) \
	__UST_SPAN_MARK(provider, __UST_ARG_FIRST(__VA_ARGS__), suffix, \
			"" __UST_ARG_TAIL(__VA_ARGS__))
#define __UST_SPAN_MARK(provider, name, suffix, ...) \
	__UST_SPAN_MARK_(provider, name, suffix, __VA_ARGS__)
#define __UST_SPAN_MARK_(provider, name, suffix, ...) \
	trace_mark(provider, name##suffix, __VA_ARGS__)

#endif
