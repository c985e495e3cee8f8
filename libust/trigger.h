/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Triggers: rules that watch events instead of enabling them. A trigger is
 * a pattern, an optional filter (compiled by the filter compiler, like an
 * enable rule's), and what ustd does when it fires: a snapshot into DIR,
 * at most AT_MOST times a minute. It fires when an event it matches is
 * recorded (committed to the buffers) and its filter holds; ustd is told
 * by a non-blocking message (trigger_notify.h).
 *
 * Whether a trigger watches an event is decided when rules or triggers
 * change, as enable rules are: its program joins the event's filter set
 * (filter.h) and the sites get UST_SITE_TRIGGER. Events no trigger watches
 * run exactly the code they ran before triggers existed.
 *
 * The table is changed under ust_lock; async-signal-safe like rules.h.
 */
#ifndef UST_TRIGGER_H
#define UST_TRIGGER_H

#include <stddef.h>
#include <stdint.h>
#include "libust/filter.h"
#include "libust/registry.h"
#include "libustcomm/strbuf.h"

#define UST_TRIGGERS_MAX	32
/* --at-most N/MINUTE: what ustd keeps a window of times for. */
#define UST_TRIGGER_AT_MOST_MAX	600

struct ust_trigger_spec {
	const char *pattern;
	const char *filter;		/* the expression, "" for none */
	const void *prog;		/* its bytecode */
	size_t prog_len;
	const char *dir;		/* absolute, or "" for the trace's directory */
	uint32_t at_most;		/* snapshots a minute, 0: no limit but ustd's */
};

/* Adds a trigger; *id is its number (never reused in the process).
 * 0 or a negative errno with the reason in err. */
int ust_triggers_add(const struct ust_trigger_spec *spec, uint32_t *id, char *err,
		     size_t err_size);
/* Removes trigger id: 0 or -ENOENT. */
int ust_triggers_remove(uint32_t id, char *err, size_t err_size);
/* Per trigger, 10 strings: id, pattern, filter, dir, at_most, fired,
 * notified, limited, dropped, last error (ctl_protocol.h, LIST_TRIGGERS). */
int ust_triggers_describe(struct ustcomm_strbuf *sb, uint32_t *nr);

/* The ids of the triggers whose pattern matches ev, ascending (at most
 * UST_TRIGGERS_MAX); returns how many. */
unsigned ust_triggers_match(const struct ust_event_state *ev, uint32_t *ids);
struct ust_filter_field;
/* Trigger id's program linked against ev (never NULL). */
const struct ust_filter_prog *ust_triggers_link(uint32_t id, const struct ust_event_state *ev,
						const struct ust_filter_field *fields);

/* The writer's side, after the event is committed: runs the trigger
 * programs of f on args and notifies ustd of each that passes. Lock-free,
 * allocates nothing, async-signal-safe. */
void ust_triggers_fire(const struct ust_event_filters *f, const union ust_filter_arg *args,
		       const void *ip);

#endif
