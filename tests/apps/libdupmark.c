/* SPDX-License-Identifier: GPL-2.0-only */
/* The library half of dlopen_main: a duplicate marker and a new one. */
#include <ust/marker.h>

void dupmark_fire(void);

void dupmark_fire(void)
{
	trace_mark(ust, dup, "from %s", "library");
	trace_mark(ust, late, "value %d", 7);
}
