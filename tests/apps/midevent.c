/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A writer held in the middle of an event, as one preempted between its
 * reservation and its commit: the state a rotation or a consumer must
 * cope with, made to last as long as a test wants. Numbered midevent:seq
 * events, driven by lines on stdin:
 *   tick N   N events, the next numbers; answers "ticked"
 *   hold     reserves the next one and stops there; answers "held"
 *   commit   writes the held event and commits it; answers "committed"
 *   handler N  raises SIGUSR1, whose handler emits N events on this
 *            thread, in the middle of the held one if one is held, as a
 *            signal handler that interrupts a write does; answers
 *            "handled" once it returned
 * At the end of stdin, prints "emitted N" (every number below N was
 * written or, for the handler's, counted discarded) and exits 0.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UST_CREATE_PROBES
#include "midevent_tp.h"

static unsigned next, in_handler;

static void on_usr1(int sig)
{
	unsigned i;

	(void)sig;
	for (i = 0; i < in_handler; i++)
		trace_midevent_seq(next++);
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct ust_event_ctx held;
	unsigned n, i, mine = 0;
	int holding = 0;
	char line[64];

	sigaction(SIGUSR1, &sa, NULL);
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "tick %u", &n) == 1) {
			for (i = 0; i < n; i++)
				trace_midevent_seq(next++);
			puts("ticked");
		} else if (sscanf(line, "handler %u", &n) == 1) {
			in_handler = n;
			raise(SIGUSR1);
			puts("handled");
		} else if (!strcmp(line, "hold\n") && !holding) {
			mine = next++;
			if (ust_event_reserve(&held, &__ust_event_midevent___seq, sizeof(mine)) < 0) {
				puts("not traced");
			} else {
				holding = 1;
				puts("held");
			}
		} else if (!strcmp(line, "commit\n") && holding) {
			memcpy(held.payload, &mine, sizeof(mine));
			ust_event_commit(&held);
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
