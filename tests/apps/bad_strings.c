/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * UST events whose string field is not UTF-8 and whose payload has a
 * member named ctx (what the timeline sink's contexts object was called).
 */
#include <ust/marker.h>

#include "bad_strings.h"

int main(void)
{
	unsigned i;

	for (i = 0; i < BAD_STRINGS_NR; i++)
		trace_mark(bad, text, "ctx %u s %s", i, bad_strings[i]);
	return 0;
}
