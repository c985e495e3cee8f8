/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "libustcomm/format.h"
#include "libustcomm/tracker.h"

static const char *const kinds[] = { "pid", "procname", "uid" };
#define NR_KINDS	(sizeof(kinds) / sizeof(kinds[0]))

int ustcomm_track_kind(const char *kind)
{
	size_t i;

	for (i = 0; kind && i < NR_KINDS; i++) {
		if (!strcmp(kind, kinds[i]))
			return (int)i;
	}
	return -1;
}

const char *ustcomm_track_kind_name(int kind)
{
	return kinds[kind];
}

int ustcomm_track_value(int kind, const char *value, char *out, size_t size)
{
	uint32_t n;

	if (kind == 1) {
		if (!value[0] || strchr(value, '/'))
			return -EINVAL;
		snprintf(out, size < USTCOMM_TRACK_PROCNAME_MAX ? size : USTCOMM_TRACK_PROCNAME_MAX,
			 "%s", value);
		return 0;
	}
	/* pid 0 is no process; uid 0 is root's. */
	if (kind < 0 || (size_t)kind >= NR_KINDS || ustcomm_parse_u32(value, &n) < 0 ||
	    n > INT32_MAX || (kind == 0 && n == 0))
		return -EINVAL;
	snprintf(out, size, "%u", (unsigned)n);
	return 0;
}

/* Decimal without sign or leading zero, as ustcomm_track_value() spells
 * it; -1 for anything else. */
static long long decimal(const char *s)
{
	long long v = 0;

	if (!*s || (s[0] == '0' && s[1]))
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > INT32_MAX)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

/* Async-signal-safe (a fork child's first event tests it, libust's
 * trace_fork.c): comparisons only. */
bool ustcomm_track_pass(const char *const *pairs, size_t nr, pid_t pid, const char *comm,
			uid_t uid)
{
	bool present[NR_KINDS] = { false }, matched[NR_KINDS] = { false };
	size_t i;
	int k;

	for (i = 0; i + 1 < nr; i += 2) {
		k = ustcomm_track_kind(pairs[i]);
		if (k < 0)
			continue;
		present[k] = true;
		if ((k == 0 && decimal(pairs[i + 1]) == (long long)pid) ||
		    (k == 1 && pairs[i + 1][0] && !strncmp(pairs[i + 1], comm,
							   USTCOMM_TRACK_PROCNAME_MAX - 1)) ||
		    (k == 2 && decimal(pairs[i + 1]) == (long long)uid))
			matched[k] = true;
	}
	for (k = 0; k < (int)NR_KINDS; k++) {
		if (present[k] && !matched[k])
			return false;
	}
	return true;
}
