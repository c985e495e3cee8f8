/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A writer held in the middle of an event, as one preempted between its
 * reservation and its commit: the state a rotation or a consumer must
 * cope with, made to last as long as a test wants. Numbered midevent:seq
 * events, driven by lines on stdin:
 *   tick N   N events, the next numbers; answers "ticked"
 *   hold     reserves the next one and stops there; answers "held"
 *   commit   writes the held event and commits it; answers "committed"
 * At the end of stdin, prints "emitted N" (every number below N was
 * written) and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UST_CREATE_PROBES
#include "midevent_tp.h"

int main(void)
{
	struct ust_event_ctx held;
	unsigned next = 0, n, i;
	int holding = 0;
	char line[64];

	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "tick %u", &n) == 1) {
			for (i = 0; i < n; i++)
				trace_midevent_seq(next++);
			puts("ticked");
		} else if (!strcmp(line, "hold\n") && !holding) {
			if (ust_event_reserve(&held, &__ust_event_midevent___seq, sizeof(next)) < 0) {
				puts("not traced");
			} else {
				holding = 1;
				puts("held");
			}
		} else if (!strcmp(line, "commit\n") && holding) {
			memcpy(held.payload, &next, sizeof(next));
			ust_event_commit(&held);
			next++;
			holding = 0;
			puts("committed");
		} else {
			printf("bad line: %s", line);
		}
		fflush(stdout);
	}
	printf("emitted %u\n", next);
	return 0;
}
