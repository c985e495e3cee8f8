/* SPDX-License-Identifier: GPL-2.0-only */
/* Triggers of flight-recorder sessions (session_trigger.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/format.h"
#include "libustcomm/log.h"
#include "libustcomm/pattern.h"
#include "ustd/output/dir_publish.h"
#include "ustd/session/session_snapshot.h"
#include "ustd/session/session_trigger.h"
#include "ustd/conn/trigger.h"

/* What a program accepts (libust/trigger.h, UST_TRIGGER_AT_MOST_MAX). */
#define AT_MOST_MAX	600u

static void trigger_fini(struct ustd_session_trigger *t)
{
	free(t->pattern);
	free(t->filter);
	free(t->hex);
	free(t->dir);
	free(t->times);
}

int ustd_session_trigger_add(struct ustd_session *s, const char *const *a, uint32_t *id,
			     char *why, size_t why_size)
{
	struct ustd_session_trigger *grown, t = { 0 };
	char dir[USTCOMM_PATH_MAX];
	uint32_t at_most;
	int len, ret = -EINVAL;

	if (!s->overwrite) {
		snprintf(why, why_size, "session '%s' is not a flight recorder: a trigger takes snapshots, which need a session created with --overwrite",
			 s->name);
		return -EOPNOTSUPP;
	}
	if (s->nr_triggers >= USTD_SESSION_TRIGGERS_MAX) {
		snprintf(why, why_size, "session '%s' has %u triggers already, the most it takes",
			 s->name, USTD_SESSION_TRIGGERS_MAX);
		return -ENOSPC;
	}
	if (!ustcomm_pattern_valid(a[0])) {
		snprintf(why, why_size, "invalid pattern '%s': %s", a[0], USTCOMM_PATTERN_RULE);
		return -EINVAL;
	}
	if (!*a[1] != !*a[2] || (a[3][0] && a[3][0] != '/') ||
	    ustcomm_parse_u32(a[4], &at_most) < 0 || at_most > AT_MOST_MAX) {
		snprintf(why, why_size, "malformed trigger (a filter with its bytecode, an absolute directory, at most %u snapshots a minute)",
			 AT_MOST_MAX);
		return -EINVAL;
	}
	t.id = s->last_trigger_id + 1;
	/* One directory per trigger: a firing names it, so ustd knows whose. */
	len = a[3][0] ? snprintf(dir, sizeof(dir), "%s/%s-trigger-%u", a[3], s->name, t.id) :
			snprintf(dir, sizeof(dir), "%s/triggers/trigger-%u", s->dir, t.id);
	if (len < 0 || (size_t)len >= sizeof(dir)) {
		snprintf(why, why_size, "the trigger's directory under %s is too long",
			 a[3][0] ? a[3] : s->dir);
		return -ENAMETOOLONG;
	}
	t.at_most = at_most;
	t.pattern = strdup(a[0]);
	t.filter = strdup(a[1]);
	t.hex = strdup(a[2]);
	t.dir = strdup(dir);
	t.times = at_most ? calloc(at_most, sizeof(*t.times)) : NULL;
	grown = realloc(s->triggers, (s->nr_triggers + 1) * sizeof(*grown));
	if (grown)
		s->triggers = grown;
	if (!t.pattern || !t.filter || !t.hex || !t.dir || (at_most && !t.times) || !grown) {
		snprintf(why, why_size, "out of memory");
		ret = -ENOMEM;
		goto end;
	}
	s->triggers[s->nr_triggers++] = t;
	s->last_trigger_id = t.id;
	*id = t.id;
	return 0;
end:
	trigger_fini(&t);
	return ret;
}

size_t ustd_session_triggers_list(const struct ustd_session *s, const char **args,
				  char (*nums)[24])
{
	size_t i, n = 0;

	for (i = 0; i < s->nr_triggers; i++, nums += 6) {
		const struct ustd_session_trigger *t = &s->triggers[i];

		snprintf(nums[0], sizeof(nums[0]), "%u", t->id);
		snprintf(nums[1], sizeof(nums[1]), "%" PRIu64, t->firings);
		snprintf(nums[2], sizeof(nums[2]), "%" PRIu64, t->taken);
		snprintf(nums[3], sizeof(nums[3]), "%" PRIu64, t->suppressed);
		snprintf(nums[4], sizeof(nums[4]), "%" PRIu64, t->failed);
		snprintf(nums[5], sizeof(nums[5]), "%u", t->at_most);
		args[n++] = nums[0];
		args[n++] = t->pattern;
		args[n++] = t->filter;
		args[n++] = t->dir;
		args[n++] = nums[5];
		args[n++] = nums[1];
		args[n++] = nums[2];
		args[n++] = nums[3];
		args[n++] = nums[4];
	}
	return n;
}

static void say_totals(const struct ustd_session *s, const struct ustd_session_trigger *t)
{
	if (t->firings)
		ustd_trigger_say("session %s, trigger %u: fired %" PRIu64 " times, %" PRIu64 " snapshots taken, %" PRIu64 " firings over --at-most %u/minute not snapshotted, %" PRIu64 " snapshots failed; %" PRIu64 " of the snapshots lack processes whose own snapshot failed",
				 s->name, t->id, t->firings, t->taken, t->suppressed, t->at_most,
				 t->failed, t->incomplete);
}

int ustd_session_trigger_remove(struct ustd_session *s, uint32_t id, char **dir)
{
	size_t i;

	for (i = 0; i < s->nr_triggers; i++) {
		struct ustd_session_trigger *t = &s->triggers[i];

		if (t->id != id)
			continue;
		say_totals(s, t);
		*dir = t->dir;
		t->dir = NULL;
		trigger_fini(t);
		memmove(t, t + 1, (s->nr_triggers - i - 1) * sizeof(*t));
		s->nr_triggers--;
		return 0;
	}
	return -ENOENT;
}

void ustd_session_triggers_free(struct ustd_session *s)
{
	size_t i;

	for (i = 0; i < s->nr_triggers; i++) {
		say_totals(s, &s->triggers[i]);
		trigger_fini(&s->triggers[i]);
	}
	free(s->triggers);
	s->triggers = NULL;
	s->nr_triggers = 0;
}

int ustd_session_encode_trigger(const struct ustd_session *s, const struct ustd_session_trigger *t,
				char **msg, size_t *len)
{
	char at_most[16];
	const char *args[6] = { s->name, t->pattern, t->filter, t->hex, t->dir, at_most };

	snprintf(at_most, sizeof(at_most), "%u", t->at_most);
	return ustcomm_ctl_encode(USTCOMM_CTL_ADD_TRIGGER, 0, 0, args, 6, msg, len);
}

int ustd_session_trigger_fired(struct ustd_app *app, const char *dir)
{
	struct ustd_session *s = app->session;
	struct ustd_session_trigger *t = NULL;
	struct ustd_session_snap snap;
	unsigned n;
	size_t i;
	int ret;

	for (i = 0; s && i < s->nr_triggers && !t; i++) {
		if (!strcmp(s->triggers[i].dir, dir))
			t = &s->triggers[i];
	}
	if (!t)
		return 0;
	t->firings++;
	if (!ustd_trigger_admit(t->times, t->at_most, &t->n, &t->head)) {
		if (!t->suppressed++)
			ustd_trigger_say("session %s, trigger %u: --at-most %u/minute reached; further firings are counted, not snapshotted",
					 s->name, t->id, t->at_most);
		return 1;
	}
	/* One directory per firing, a sub-directory per process in it:
	 * babeltrace2 reads the whole service's last moments at once. A
	 * firing is one snapshot of the session, firing-K/, with each
	 * process that could be snapshotted; none could: no directory. */
	n = (unsigned)t->taken + 1;
	ret = ustd_session_snapshot_all(app->ctx->sessions, s, t->dir, "firing", &n, &snap);
	if (ret == 0 && snap.taken)
		t->taken++;
	else
		t->failed++;
	if (ret == 0 && snap.taken && snap.failed)
		t->incomplete++;
	if (ret < 0)
		ustcomm_err("session %s, trigger %u fired in %s: %s", s->name, t->id, app->label,
			    snap.path);
	else if (!snap.taken)
		ustcomm_err("session %s, trigger %u fired in %s: no process could be snapshotted (%u failed: see above); no firing directory",
			    s->name, t->id, app->label, snap.failed);
	else
		ustd_trigger_say("session %s, trigger %u fired in %s: %u processes snapshotted in %s%s",
				 s->name, t->id, app->label, snap.taken, snap.path,
				 snap.failed ? " (some failed: see above)" : "");
	return 1;
}
