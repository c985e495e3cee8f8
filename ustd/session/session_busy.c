/* SPDX-License-Identifier: GPL-2.0-only */
/* Programs start-session left alone (session_busy.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ustd/session/session_busy.h"

int ustd_busy_add(struct ustd_busy *b, pid_t pid)
{
	pid_t *grown;

	if (b->nr == b->cap) {
		grown = realloc(b->pids, (b->cap ? 2 * b->cap : 8) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		b->pids = grown;
		b->cap = b->cap ? 2 * b->cap : 8;
	}
	b->pids[b->nr++] = pid;
	return 0;
}

void ustd_busy_fini(struct ustd_busy *b)
{
	free(b->pids);
	memset(b, 0, sizeof(*b));
}

/* The session whose trace pid holds, as ustd filed it at its HELLO. */
static const char *busy_session(struct ustd_sessions *ss, pid_t pid)
{
	const struct ustd_app *app;

	for (app = *ss->apps; app; app = app->next) {
		if (app->pid == pid && !app->closed && app->session && !app->uid_sink)
			return app->session->name;
	}
	return "";
}

size_t ustd_busy_tally(struct ustd_sessions *ss, const struct ustd_busy *b, const char **args,
		       char (*nums)[16])
{
	unsigned *counts = calloc(b->nr + 1, sizeof(*counts));
	size_t i, k, pairs = 0;
	const char *name;

	if (!counts)
		return 0;
	for (i = 0; i < b->nr; i++) {
		name = busy_session(ss, b->pids[i]);
		for (k = 0; k < pairs && strcmp(args[2 * k], name); k++)
			;
		if (k == pairs)
			args[2 * pairs++] = name;
		counts[k]++;
	}
	for (k = 0; k < pairs; k++) {
		snprintf(nums[k], sizeof(nums[k]), "%u", counts[k]);
		args[2 * k + 1] = nums[k];
	}
	free(counts);
	return 2 * pairs;
}
