/* SPDX-License-Identifier: LGPL-2.1-only */
/* The enable rules and the filters they give events (rules.h). */
#include <errno.h>
#include <string.h>

#include "libust/filter.h"
#include "libust/filter_reclaim.h"
#include "libust/report_once.h"
#include "libust/rules.h"
#include "libust/rules_link.h"
#include "libust/sigsafe_alloc.h"
#include "libust/trigger.h"
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/filter_bytecode.h"
#include "libustcomm/format.h"
#include "libustcomm/log.h"
#include "libustcomm/loglevel.h"
#include "libustcomm/pattern.h"

#define MAX_RULES		USTCOMM_CTL_RULES_MAX

struct rule {
	char *pattern;
	int enable;
	int level_match;		/* enum ustcomm_level_match */
	int level;
	char *filter;			/* NULL: none */
	void *prog;
	uint32_t prog_len;
	uint32_t serial;
};

/* A trace's table (trace.h): its rules, and the copy being staged. */
struct rules_table {
	struct rule *rules;
	unsigned nr_rules;
	struct rule *staged;
	unsigned nr_staged;
	int staging;
	uint32_t first_staged_serial;	/* rules from here on are staged's alone */
};

static struct rules_table tables[UST_TRACES_MAX];
/* The table of the trace the caller selected (ust_rules_select()). */
static struct rules_table *t = &tables[0];
static uint32_t slot;
/* Unique in the process: a filter set names the rules it holds by serial. */
static uint32_t next_serial = 1;

/*
 * libust's own events (the statedump's) are recorded only when a pattern
 * names their provider: "*" keeps meaning the program's events, so that
 * enabling everything does not add a dump of every loaded object. A
 * pattern naming libust-func's provider without a filter selects them
 * too: a function's address cannot be named without the statedump, and
 * who asks for the functions asks for their names (a filter on the
 * functions' fields is not for the statedump's events).
 */
#define UST_OWN_PROVIDER	"ust_statedump:"

static int has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static int name_matches(const char *pattern, int filtered, const char *name)
{
	if (has_prefix(name, UST_OWN_PROVIDER) && !has_prefix(pattern, UST_OWN_PROVIDER))
		return has_prefix(pattern, USTCOMM_FUNC_PROVIDER) && !filtered;
	return ustcomm_pattern_match(pattern, name);
}

int ust_rules_spec_matches(const struct ust_rule_spec *spec, const struct ust_event_state *ev)
{
	return name_matches(spec->pattern, spec->filter && *spec->filter, ev->full_name) &&
	       ustcomm_level_matches(spec->level_match, spec->level, ev->loglevel);
}

static int rule_matches(const struct rule *r, const struct ust_event_state *ev)
{
	return name_matches(r->pattern, r->filter != NULL, ev->full_name) &&
	       ustcomm_level_matches(r->level_match, r->level, ev->loglevel);
}

static void rule_free(struct rule *r)
{
	ust_free(r->pattern);
	ust_free(r->filter);
	ust_free(r->prog);
}

/*
 * Changes are made to a copy, staged, which replaces the live table whole
 * on commit. Both share the rules they hold in common (the same serial),
 * so removing one of those from staged frees nothing, while a rule made
 * since ust_rules_begin() is freed when it goes; commit frees what only
 * the old table held and abort what only staged held. Both tables are in
 * serial order: a rule is appended with the next serial, and removals keep
 * the order.
 */

static void staged_remove(unsigned i)
{
	if (t->staged[i].serial >= t->first_staged_serial)
		rule_free(&t->staged[i]);
	memmove(&t->staged[i], &t->staged[i + 1], (t->nr_staged - i - 1) * sizeof(*t->staged));
	t->nr_staged--;
}

/* Frees the rules of a that b does not hold. */
static void free_missing(const struct rule *a, unsigned nr_a, const struct rule *b, unsigned nr_b)
{
	unsigned i, j = 0;

	for (i = 0; i < nr_a; i++) {
		while (j < nr_b && b[j].serial < a[i].serial)
			j++;
		if (j == nr_b || b[j].serial != a[i].serial)
			rule_free((struct rule *)&a[i]);
	}
}

/*
 * Rules the new one makes pointless: the same one; with a plain rule (no
 * level, no filter), every older rule whose pattern it covers, since it
 * decides every event such a rule matches and, enable or disable, hides
 * the filters before it.
 */
static void remove_superseded(const struct ust_rule_spec *spec, const char *filter)
{
	int plain = spec->level_match == USTCOMM_LEVEL_ANY && !filter;
	unsigned i = 0;

	while (i < t->nr_staged) {
		const struct rule *r = &t->staged[i];
		int same = !strcmp(r->pattern, spec->pattern) && r->level_match == spec->level_match &&
			r->level == spec->level && !r->filter == !filter &&
			(!filter || !strcmp(r->filter, filter));

		if (same || (plain && ustcomm_pattern_covers(spec->pattern, r->pattern)))
			staged_remove(i);
		else
			i++;
	}
}

/*
 * Disable rules older than every enable rule change nothing: the newest
 * matching rule of an event would then be a disable rule or none, both
 * meaning disabled, and no filter is older than them. Dropping them lets
 * disable rules empty the table.
 */
static void remove_leading_disables(void)
{
	while (t->nr_staged && !t->staged[0].enable)
		staged_remove(0);
}

void ust_rules_select(uint32_t trace_slot)
{
	slot = trace_slot;
	t = &tables[trace_slot];
}

void ust_rules_clear(void)
{
	unsigned i;

	for (i = 0; i < t->nr_rules; i++)
		rule_free(&t->rules[i]);
	t->nr_rules = 0;
}

int ust_rules_begin(char *err, size_t err_size)
{
	if (!t->rules)
		t->rules = ust_zalloc(MAX_RULES * sizeof(*t->rules));
	if (!t->staged)
		t->staged = ust_zalloc(MAX_RULES * sizeof(*t->staged));
	if (!t->rules || !t->staged) {
		ustcomm_format(err, err_size, "out of memory");
		return -ENOMEM;
	}
	memcpy(t->staged, t->rules, t->nr_rules * sizeof(*t->rules));
	t->nr_staged = t->nr_rules;
	t->first_staged_serial = next_serial;
	t->staging = 1;
	return 0;
}

void ust_rules_commit(void)
{
	struct rule *old = t->rules;
	unsigned nr_old = t->nr_rules;

	free_missing(old, nr_old, t->staged, t->nr_staged);
	t->rules = t->staged;
	t->nr_rules = t->nr_staged;
	t->staged = old;
	t->nr_staged = 0;
	t->staging = 0;
}

void ust_rules_abort(void)
{
	if (!t->staging)
		return;
	free_missing(t->staged, t->nr_staged, t->rules, t->nr_rules);
	t->nr_staged = 0;
	t->staging = 0;
}

int ust_rules_stage(const struct ust_rule_spec *spec, char *err, size_t err_size)
{
	const char *filter = spec->filter && *spec->filter ? spec->filter : NULL;
	struct ust_filter_error ferr;
	struct rule r = { .enable = spec->enable, .level_match = spec->level_match,
			  .level = spec->level };

	if (!ustcomm_pattern_valid(spec->pattern)) {
		ustcomm_format(err, err_size, "invalid pattern '%s': " USTCOMM_PATTERN_RULE,
			       spec->pattern);
		return -EINVAL;
	}
	if (filter && !spec->enable) {
		ustcomm_format(err, err_size, "a disable rule takes no filter");
		return -EINVAL;
	}
	if (filter && strlen(filter) > UST_FILTER_TEXT_MAX) {
		ustcomm_format(err, err_size, "the filter is longer than %u characters",
			       UST_FILTER_TEXT_MAX);
		return -EINVAL;
	}
	if (filter && ust_filter_check(spec->prog, spec->prog_len, &ferr) < 0) {
		ustcomm_format(err, err_size, "invalid filter bytecode (offset %u): %s",
			       ferr.offset, ferr.text);
		return -EINVAL;
	}
	remove_superseded(spec, filter);
	if (t->nr_staged == MAX_RULES) {
		ustcomm_format(err, err_size, "too many enable and disable rules (at most %d)",
			       MAX_RULES);
		return -ENOSPC;
	}
	r.pattern = ust_strdup(spec->pattern);
	if (!r.pattern)
		goto nomem;
	if (filter) {
		r.filter = ust_strdup(filter);
		r.prog = ust_zalloc(spec->prog_len);
		if (!r.filter || !r.prog)
			goto nomem;
		memcpy(r.prog, spec->prog, spec->prog_len);
		r.prog_len = (uint32_t)spec->prog_len;
	}
	r.serial = next_serial++;
	t->staged[t->nr_staged++] = r;
	remove_leading_disables();
	return 0;
nomem:
	rule_free(&r);
	ustcomm_format(err, err_size, "out of memory");
	return -ENOMEM;
}

int ust_rules_add(const struct ust_rule_spec *spec, char *err, size_t err_size)
{
	int ret = ust_rules_begin(err, err_size);

	if (ret < 0)
		return ret;
	ret = ust_rules_stage(spec, err, err_size);
	if (ret < 0)
		ust_rules_abort();
	else
		ust_rules_commit();
	return ret;
}

unsigned ust_rules_count(void)
{
	return t->nr_rules;
}

/* The filter's view of the event's fields: NULL when out of memory. */
static struct ust_filter_field *filter_fields(const struct ust_event_state *ev)
{
	struct ust_filter_field *f = ust_zalloc((ev->nr_fields + 1) * sizeof(*f));
	uint32_t i;

	if (!f)
		return NULL;
	for (i = 0; i < ev->nr_fields; i++) {
		f[i].name = ev->fields[i].name;
		switch (ev->fields[i].kind) {
		case UST_FIELD_INTEGER:
			f[i].type = UST_FTYPE_S64;
			break;
		case UST_FIELD_FLOAT:
			f[i].type = UST_FTYPE_DOUBLE;
			break;
		case UST_FIELD_STRING:
			f[i].type = UST_FTYPE_STRING;
			break;
		default:
			f[i].type = UST_FTYPE_NONE;
			break;
		}
	}
	return f;
}

static void set_free(void *set)
{
	struct ust_event_filters *f = set;
	uint32_t i;

	for (i = 0; i < f->nr + f->nr_triggers; i++)
		ust_rules_prog_free(f->progs[i]);
	ust_free(f);
}

/* Publishes f (NULL: none) and retires the set it replaces. */
static void set_filters(struct ust_event_state *ev, struct ust_event_filters *f)
{
	struct ust_event_filters *old = ev->filters[slot];

	if (old == f)
		return;
	/* Release: pairs with the acquire loads in ust_event_reserve_filtered() (event.c) and marker.c. */
	__atomic_store_n(&ev->filters[slot], f, __ATOMIC_RELEASE);
	ust_filter_retire(old, set_free);
}

/* Whether the published set is built from exactly these rules and
 * triggers, in order. */
static int same_set(const struct ust_event_filters *f, const unsigned *idx, unsigned n,
		    int all, const uint32_t *trig, unsigned nt)
{
	unsigned i;

	if (!f || f->nr != n || f->record_all != (uint32_t)all || f->nr_triggers != nt)
		return 0;
	for (i = 0; i < n; i++) {
		if (f->progs[i]->rule_serial != t->rules[idx[i]].serial)
			return 0;
	}
	for (i = 0; i < nt; i++) {
		if (f->progs[n + i]->rule_serial != trig[i])
			return 0;
	}
	return 1;
}

/*
 * The set of an enabled event: the filters of rules idx (or all: recorded
 * without filter) and the triggers watching it. An event recorded without
 * filter and watched by no trigger has none.
 */
static void publish(struct ust_event_state *ev, const unsigned *idx, unsigned n, int all)
{
	struct ust_filter_field *fields;
	struct ust_event_filters *f;
	uint32_t trig[UST_TRIGGERS_MAX];
	unsigned i, nt = ust_triggers_match(ev, trig);

	if (all && !nt) {
		set_filters(ev, NULL);
		return;
	}
	if (same_set(ev->filters[slot], idx, n, all, trig, nt))
		return;
	fields = filter_fields(ev);
	f = ust_zalloc(sizeof(*f) + (n + nt) * sizeof(f->progs[0]));
	if (!f || !fields) {
		ustcomm_err("out of memory setting the filters of %s: it is not recorded",
			    ev->full_name);
		ust_free(fields);
		ust_free(f);
		ev->enabled[slot] = 0;
		return;
	}
	for (i = 0; i < n; i++)
		f->progs[i] = ust_rules_link(t->rules[idx[i]].prog, t->rules[idx[i]].prog_len,
					     t->rules[idx[i]].filter, t->rules[idx[i]].serial, ev, fields);
	for (i = 0; i < nt; i++)
		f->progs[n + i] = ust_triggers_link(trig[i], ev, fields);
	f->nr = n;
	f->nr_triggers = nt;
	f->record_all = (uint32_t)all;
	ust_free(fields);
	if (ev->nr_unfiltered_sites && ust_report_once("sites older than filters", ev))
		ustcomm_err("event %s: %u of its sites were built with UST headers older than filters; they record without filtering",
			    ev->full_name, ev->nr_unfiltered_sites);
	set_filters(ev, f);
}

void ust_rules_apply(struct ust_event_state *ev)
{
	unsigned *idx = NULL, n = 0, i = t->nr_rules, first;
	int unfiltered = 0;

	while (i && !rule_matches(&t->rules[i - 1], ev))
		i--;
	ev->enabled[slot] = i && t->rules[i - 1].enable;
	if (!ev->enabled[slot]) {
		set_filters(ev, NULL);
		return;
	}
	/* Back to the newest matching disable rule. */
	while (i && (t->rules[i - 1].enable || !rule_matches(&t->rules[i - 1], ev)))
		i--;
	first = i;
	for (i = first; i < t->nr_rules; i++) {
		if (rule_matches(&t->rules[i], ev) && !t->rules[i].filter)
			unfiltered = 1;
	}
	if (unfiltered) {
		publish(ev, NULL, 0, 1);
		return;
	}
	idx = ust_zalloc(t->nr_rules * sizeof(*idx));
	if (!idx) {
		ustcomm_err("out of memory setting the filters of %s: it is not recorded",
			    ev->full_name);
		ev->enabled[slot] = 0;
		return;
	}
	for (i = first; i < t->nr_rules; i++) {
		if (rule_matches(&t->rules[i], ev))
			idx[n++] = i;
	}
	publish(ev, idx, n, 0);
	ust_free(idx);
}

int ust_rules_describe(struct ustcomm_strbuf *sb, uint32_t *nr)
{
	char num[16], level[USTCOMM_LEVEL_SPEC_MAX];
	unsigned i;

	ustcomm_format(num, sizeof(num), "%u", t->nr_rules);
	ustcomm_strbuf_append(sb, num, strlen(num) + 1);
	*nr += 1;
	for (i = 0; i < t->nr_rules; i++) {
		const struct rule *r = &t->rules[i];
		const char *kind = r->enable ? "enable" : "disable";
		const char *filter = r->filter ? r->filter : "";

		ustcomm_strbuf_append(sb, kind, strlen(kind) + 1);
		ustcomm_strbuf_append(sb, r->pattern, strlen(r->pattern) + 1);
		ustcomm_level_spec_format(level, r->level_match, r->level);
		ustcomm_strbuf_append(sb, level, strlen(level) + 1);
		ustcomm_strbuf_append(sb, filter, strlen(filter) + 1);
		*nr += 4;
	}
	return sb->err;
}
