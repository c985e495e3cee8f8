/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/tracker.h"
#include "ustd/session/session_track.h"

_Static_assert(sizeof(((struct ustd_session_tracked *)0)->value) == USTCOMM_TRACK_PROCNAME_MAX,
	       "a tracked value holds a process name");

/* A kind that tracks a set of values, even none, holds an entry with the
 * value "": no process has it, and it says the kind no longer takes
 * every process (what a session starts with). */
#define RESTRICTED	""

static size_t count_kind(const struct ustd_session *s, int kind)
{
	size_t i, n = 0;

	for (i = 0; i < s->nr_tracked; i++)
		n += s->tracked[i].kind == kind && s->tracked[i].value[0];
	return n;
}

static struct ustd_session_tracked *find(const struct ustd_session *s, int kind,
					 const char *value)
{
	size_t i;

	for (i = 0; i < s->nr_tracked; i++) {
		if (s->tracked[i].kind == kind && !strcmp(s->tracked[i].value, value))
			return &s->tracked[i];
	}
	return NULL;
}

/* Every value of kind, RESTRICTED too when all is true. */
static void forget(struct ustd_session *s, int kind, const char *value, bool all)
{
	size_t i = 0;

	while (i < s->nr_tracked) {
		struct ustd_session_tracked *t = &s->tracked[i];

		if (t->kind == kind && (value ? !strcmp(t->value, value) : all || t->value[0]))
			*t = s->tracked[--s->nr_tracked];
		else
			i++;
	}
}

static int check_values(struct ustd_session *s, bool track, int kind, const char *const *a,
			size_t nr, size_t *adding, char *why, size_t why_size)
{
	char value[USTCOMM_TRACK_PROCNAME_MAX];
	size_t i;

	*adding = track && !find(s, kind, RESTRICTED);
	for (i = 2; i < nr; i++) {
		if (ustcomm_track_value(kind, a[i], value, sizeof(value)) < 0) {
			snprintf(why, why_size, "invalid %s '%s'%s", a[1], a[i],
				 !strcmp(a[i], "*") ? " ('*', every value, goes alone)" :
				 kind == 1 ? ": a process name has no '/'" :
				 " (a decimal number; a pid is not 0)");
			return -EINVAL;
		}
		if (track && !find(s, kind, value)) {
			(*adding)++;
		} else if (!track && !find(s, kind, value)) {
			snprintf(why, why_size, "session '%s' does not track %s %s (ustctl list-sessions %s shows its trackers)",
				 s->name, a[1], value, s->name);
			return -ENOENT;
		}
	}
	if (s->nr_tracked + *adding > USTD_SESSION_TRACKED_MAX) {
		snprintf(why, why_size, "session '%s' would track more than %u values", s->name,
			 USTD_SESSION_TRACKED_MAX - 3);
		return -ENOSPC;
	}
	return 0;
}

static void add(struct ustd_session *s, int kind, const char *value)
{
	if (find(s, kind, value))
		return;
	s->tracked[s->nr_tracked].kind = kind;
	snprintf(s->tracked[s->nr_tracked].value, sizeof(s->tracked[0].value), "%s", value);
	s->nr_tracked++;
}

int ustd_session_track(struct ustd_session *s, const char *const *a, size_t nr, size_t *now,
		       char *why, size_t why_size)
{
	bool track = !strcmp(a[0], "1"), all = nr == 3 && !strcmp(a[2], "*");
	int kind = ustcomm_track_kind(a[1]), ret;
	struct ustd_session_tracked *grown;
	char value[USTCOMM_TRACK_PROCNAME_MAX];
	size_t i, adding;

	if ((!track && strcmp(a[0], "0")) || kind < 0) {
		snprintf(why, why_size, "malformed track request (\"1\" or \"0\", then pid, procname or uid and values)");
		return -EINVAL;
	}
	/* track KIND '*': back to every process; untrack KIND '*': none. */
	if (all) {
		forget(s, kind, NULL, track);
		if (!track && !find(s, kind, RESTRICTED)) {
			/* Room for one more: the array holds nr_tracked at least. */
			grown = realloc(s->tracked, (s->nr_tracked + 1) * sizeof(*grown));
			if (!grown) {
				snprintf(why, why_size, "out of memory");
				return -ENOMEM;
			}
			s->tracked = grown;
			add(s, kind, RESTRICTED);
		}
		*now = 0;
		return 0;
	}
	/* All checked first: all or nothing. */
	ret = check_values(s, track, kind, a, nr, &adding, why, why_size);
	if (ret < 0)
		return ret;
	if (adding) {
		grown = realloc(s->tracked, (s->nr_tracked + adding) * sizeof(*grown));
		if (!grown) {
			snprintf(why, why_size, "out of memory");
			return -ENOMEM;
		}
		s->tracked = grown;
	}
	if (track)
		add(s, kind, RESTRICTED);
	for (i = 2; i < nr; i++) {
		ustcomm_track_value(kind, a[i], value, sizeof(value));
		if (track)
			add(s, kind, value);
		else
			forget(s, kind, value, false);
	}
	*now = count_kind(s, kind);
	return 0;
}

/* /proc/PID/comm without its newline, and the real uid of status. */
static int read_proc(pid_t pid, char *comm, size_t size, uid_t *uid)
{
	char path[64], line[256];
	unsigned long real = 0;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f || !fgets(comm, (int)size, f)) {
		if (f)
			fclose(f);
		return -ESRCH;
	}
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "Uid: %lu", &real) == 1;
	if (f)
		fclose(f);
	*uid = (uid_t)real;
	return found ? 0 : -ESRCH;
}

bool ustd_session_tracks_pid(const struct ustd_session *s, pid_t pid)
{
	const char *args[2 * USTD_SESSION_TRACKED_MAX];
	char comm[USTCOMM_TRACK_PROCNAME_MAX];
	uid_t uid;

	if (!s->nr_tracked)
		return true;
	if (read_proc(pid, comm, sizeof(comm), &uid) < 0)
		return false;
	return ustcomm_track_pass(args, ustd_session_trackers_args(s, args), pid, comm, uid);
}

void ustd_session_trackers_free(struct ustd_session *s)
{
	free(s->tracked);
	s->tracked = NULL;
	s->nr_tracked = 0;
}
