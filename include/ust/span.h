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

#define ust_span_begin(provider, name, ...) \
	trace_mark(provider, name##_begin, "" __VA_ARGS__)
#define ust_span_end(provider, name, ...) \
	trace_mark(provider, name##_end, "" __VA_ARGS__)

#endif
