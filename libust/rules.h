/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The enable and disable rules of each trace slot (trace.h), which
 * outlive the traces made in it, and what they make of each event: enabled
 * or not in that trace, and with which filters.
 *
 * A rule is a pattern, optionally narrowed by a log level (the event's
 * level is this one or more severe, or exactly this one) and, for enable
 * rules, a filter. A rule matches an event when its pattern and its level
 * do. The newest matching rule decides whether the event is enabled; when
 * it is, the event is recorded if any enable rule matching it since the
 * newest matching disable rule lets it through: one without a filter
 * lets everything through.
 *
 * Under ust_lock, async-signal-safe (ust_zalloc, ustcomm_format).
 */
#ifndef UST_RULES_H
#define UST_RULES_H

#include <stddef.h>
#include <stdint.h>
#include "libust/registry.h"
#include "libustcomm/strbuf.h"

struct ust_rule_spec {
	const char *pattern;
	int enable;
	int level_match;		/* enum ustcomm_level_match */
	int level;
	const char *filter;		/* the expression, NULL or "" for none */
	const void *prog;		/* its bytecode, as sent */
	size_t prog_len;
};

/*
 * Adds a rule, after checking its pattern and its bytecode; a rule with
 * the same pattern, level and filter is moved to the end instead, and a
 * rule without level or filter replaces every older rule whose pattern
 * its own covers ("*" replaces them all). Disable rules older than every
 * enable rule are dropped: they change nothing. Returns 0 or a negative
 * errno with the reason in err; the table is then as it was.
 */
/* The slot (0 to UST_TRACES_MAX - 1) whose table the functions below use
 * and whose ev->enabled[] and ev->filters[] they decide. */
void ust_rules_select(uint32_t trace_slot);
/* Forgets the selected table's rules (a slot given to another trace). */
void ust_rules_clear(void);

int ust_rules_add(const struct ust_rule_spec *spec, char *err, size_t err_size);

/*
 * The same for several rules at once, all or none: begin copies the table,
 * stage adds a rule to the copy as ust_rules_add() would (same checks,
 * same limit), commit makes the copy the table, abort forgets it. Nothing
 * an event sees changes before commit; ust_rules_apply() then applies.
 */
int ust_rules_begin(char *err, size_t err_size);
int ust_rules_stage(const struct ust_rule_spec *spec, char *err, size_t err_size);
void ust_rules_commit(void);
void ust_rules_abort(void);

/* How many rules the table holds. */
unsigned ust_rules_count(void);

/* Whether a rule's pattern and level match the event. */
int ust_rules_spec_matches(const struct ust_rule_spec *spec, const struct ust_event_state *ev);

/*
 * Decides ev->enabled[] and builds and publishes ev->filters[] when the set
 * changed. A filter that does not fit the event (a field it lacks) never
 * lets it through, and says so on stderr once per filter text and event
 * (report_once.h).
 */
void ust_rules_apply(struct ust_event_state *ev);

/* Appends the rules to a GET_SESSION reply (ctl_protocol.h). */
int ust_rules_describe(struct ustcomm_strbuf *sb, uint32_t *nr);

#endif
