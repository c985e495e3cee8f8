/* SPDX-License-Identifier: LGPL-2.1-only */
/* The trigger table and what a firing does on the writer's side (trigger.h). */
#include <errno.h>
#include <string.h>

#include "libust/sigsafe_alloc.h"
#include "libust/rules_link.h"
#include "libust/trigger.h"
#include "libust/trigger_notify.h"
#include "libustcomm/clock.h"
#include "libustcomm/filter_bytecode.h"
#include "libustcomm/format.h"
#include "libustcomm/pattern.h"
#include "libustcomm/protocol.h"

/*
 * libust's own rate limit: one notification per trigger per millisecond,
 * whatever --at-most says, so that a storm of matching events costs ustd
 * at most a thousand messages a second per trigger. The firings it holds
 * back are counted and the count travels with the next notification.
 */
#define UST_TRIGGER_MIN_INTERVAL_NS	1000000ull

/*
 * A slot is written under ust_lock while no event set names its id (add:
 * before the sets are published; remove: the id is cleared first). A
 * writer finds its slot by the id its set carries and reads dir and
 * at_most, which stay as they are until the slot is taken again: slots
 * are reused round-robin, so a writer still holding a removed trigger's
 * set would have to be preempted through UST_TRIGGERS_MAX adds to read a
 * newer trigger's directory.
 */
struct trigger {
	uint32_t id;			/* 0: free */
	uint32_t at_most;
	char *pattern;
	char *filter;			/* NULL: none */
	void *prog;
	uint32_t prog_len;
	char dir[USTCOMM_PATH_MAX];
	/* Updated by writers with atomic operations. */
	uint64_t fired;			/* matching events committed */
	uint64_t notified;		/* notifications ustd accepted */
	uint64_t limited;		/* firings within the minimum interval */
	uint64_t dropped;		/* notifications that could not be sent */
	int last_errno;			/* why the last one could not */
	uint64_t last_ns;		/* the last notification, CLOCK_MONOTONIC */
};

static struct trigger triggers[UST_TRIGGERS_MAX];
static uint32_t next_id = 1;
static unsigned next_slot;

/* What a trigger without a filter runs: PUSH 1, RETURN. */
static const uint8_t accept_code[] = { UST_FOP_PUSH_S64, 1, 0, 0, 0, 0, 0, 0, 0, UST_FOP_RETURN };

static void trigger_free(struct trigger *t)
{
	ust_free(t->pattern);
	ust_free(t->filter);
	ust_free(t->prog);
	t->pattern = t->filter = NULL;
	t->prog = NULL;
}

static struct trigger *slot_of(uint32_t id)
{
	unsigned i;

	for (i = 0; i < UST_TRIGGERS_MAX; i++) {
		if (__atomic_load_n(&triggers[i].id, __ATOMIC_RELAXED) == id)
			return &triggers[i];
	}
	return NULL;
}

int ust_triggers_add(const struct ust_trigger_spec *spec, uint32_t *id, char *err,
		     size_t err_size)
{
	const char *filter = spec->filter && *spec->filter ? spec->filter : NULL;
	struct ust_filter_error ferr;
	struct trigger *t = NULL;
	unsigned i;

	if (!ustcomm_pattern_valid(spec->pattern)) {
		ustcomm_format(err, err_size, "invalid pattern '%s': " USTCOMM_PATTERN_RULE,
			       spec->pattern);
		return -EINVAL;
	}
	if (filter && (strlen(filter) > UST_FILTER_TEXT_MAX ||
		       ust_filter_check(spec->prog, spec->prog_len, &ferr) < 0)) {
		ustcomm_format(err, err_size, "invalid trigger filter '%s'", filter);
		return -EINVAL;
	}
	if (strlen(spec->dir) >= USTCOMM_PATH_MAX || (spec->dir[0] && spec->dir[0] != '/')) {
		ustcomm_format(err, err_size, "invalid snapshot directory '%s': give an absolute path",
			       spec->dir);
		return -EINVAL;
	}
	if (spec->at_most > UST_TRIGGER_AT_MOST_MAX) {
		ustcomm_format(err, err_size, "--at-most %u: at most %u snapshots a minute",
			       spec->at_most, UST_TRIGGER_AT_MOST_MAX);
		return -EINVAL;
	}
	/* The same trigger again is the one there (ustd installs a session's
	 * triggers in a program that may join the session twice). */
	for (i = 0; i < UST_TRIGGERS_MAX; i++) {
		struct trigger *c = &triggers[i];

		if (c->id && c->at_most == spec->at_most && !strcmp(c->pattern, spec->pattern) &&
		    !strcmp(c->dir, spec->dir) && !strcmp(c->filter ? c->filter : "",
							   filter ? filter : "")) {
			*id = c->id;
			return 0;
		}
	}
	for (i = 0; i < UST_TRIGGERS_MAX && !t; i++) {
		struct trigger *c = &triggers[(next_slot + i) % UST_TRIGGERS_MAX];

		if (!c->id)
			t = c;
	}
	if (!t) {
		ustcomm_format(err, err_size, "too many triggers (at most %d): remove one first",
			       UST_TRIGGERS_MAX);
		return -ENOSPC;
	}
	t->pattern = ust_strdup(spec->pattern);
	if (!t->pattern)
		goto nomem;
	if (filter) {
		t->filter = ust_strdup(filter);
		t->prog = ust_zalloc(spec->prog_len);
		if (!t->filter || !t->prog)
			goto nomem;
		memcpy(t->prog, spec->prog, spec->prog_len);
		t->prog_len = (uint32_t)spec->prog_len;
	}
	memset(t->dir, 0, sizeof(t->dir));
	memcpy(t->dir, spec->dir, strlen(spec->dir));
	t->at_most = spec->at_most;
	t->fired = t->notified = t->limited = t->dropped = t->last_ns = 0;
	t->last_errno = 0;
	next_slot = (unsigned)(t - triggers + 1) % UST_TRIGGERS_MAX;
	/* Release: the slot is complete before a writer can find its id; pairs
	 * with the acquire load of the event's set, published after this. */
	__atomic_store_n(&t->id, next_id, __ATOMIC_RELEASE);
	*id = next_id++;
	return 0;
nomem:
	trigger_free(t);
	ustcomm_format(err, err_size, "out of memory");
	return -ENOMEM;
}

int ust_triggers_remove(uint32_t id, char *err, size_t err_size)
{
	struct trigger *t = id ? slot_of(id) : NULL;

	if (!t) {
		ustcomm_format(err, err_size, "no trigger %u in this process (list-triggers lists them)",
			       id);
		return -ENOENT;
	}
	__atomic_store_n(&t->id, 0, __ATOMIC_RELAXED);
	trigger_free(t);
	return 0;
}

/* The triggers in use, in the order they were added (ascending ids). */
static unsigned triggers_in_order(struct trigger **out)
{
	unsigned i, j, n = 0;

	for (i = 0; i < UST_TRIGGERS_MAX; i++) {
		struct trigger *t = &triggers[i];

		if (!t->id)
			continue;
		for (j = n; j > 0 && out[j - 1]->id > t->id; j--)
			out[j] = out[j - 1];
		out[j] = t;
		n++;
	}
	return n;
}

static void add_str(struct ustcomm_strbuf *sb, uint32_t *nr, const char *s)
{
	ustcomm_strbuf_append(sb, s, strlen(s) + 1);
	(*nr)++;
}

static void add_u64(struct ustcomm_strbuf *sb, uint32_t *nr, uint64_t v)
{
	char num[24];

	ustcomm_format(num, sizeof(num), "%llu", (unsigned long long)v);
	add_str(sb, nr, num);
}

int ust_triggers_describe(struct ustcomm_strbuf *sb, uint32_t *nr)
{
	struct trigger *in_order[UST_TRIGGERS_MAX];
	unsigned i, n = triggers_in_order(in_order);

	for (i = 0; i < n; i++) {
		const struct trigger *t = in_order[i];

		add_u64(sb, nr, t->id);
		add_str(sb, nr, t->pattern);
		add_str(sb, nr, t->filter ? t->filter : "");
		add_str(sb, nr, t->dir);
		add_u64(sb, nr, t->at_most);
		add_u64(sb, nr, __atomic_load_n(&t->fired, __ATOMIC_RELAXED));
		add_u64(sb, nr, __atomic_load_n(&t->notified, __ATOMIC_RELAXED));
		add_u64(sb, nr, __atomic_load_n(&t->limited, __ATOMIC_RELAXED));
		add_u64(sb, nr, __atomic_load_n(&t->dropped, __ATOMIC_RELAXED));
		add_str(sb, nr, ustcomm_strerror(__atomic_load_n(&t->last_errno, __ATOMIC_RELAXED)));
	}
	return sb->err;
}

unsigned ust_triggers_match(const struct ust_event_state *ev, uint32_t *ids)
{
	struct trigger *in_order[UST_TRIGGERS_MAX];
	unsigned i, n = 0, nr = triggers_in_order(in_order);

	for (i = 0; i < nr; i++) {
		if (ustcomm_pattern_match(in_order[i]->pattern, ev->full_name))
			ids[n++] = in_order[i]->id;
	}
	return n;
}

const struct ust_filter_prog *ust_triggers_link(uint32_t id, const struct ust_event_state *ev,
						const struct ust_filter_field *fields)
{
	const struct trigger *t = slot_of(id);
	struct ust_filter_prog *p;

	if (t && t->filter)
		return ust_rules_link(t->prog, t->prog_len, t->filter, id, ev, fields);
	/* No filter: every event fires it. */
	p = ust_zalloc(sizeof(*p));
	if (!p)
		return ust_rules_reject(id);
	p->rule_serial = id;
	p->code_len = sizeof(accept_code);
	p->code = accept_code;
	p->data = "";
	return p;
}

/* One firing of t: notify ustd unless the last notification is younger
 * than the minimum interval. */
static void trigger_fired(struct trigger *t, uint32_t id)
{
	uint64_t now = ust_clock_read_kind(0), last = __atomic_load_n(&t->last_ns, __ATOMIC_RELAXED);
	uint64_t fired = __atomic_add_fetch(&t->fired, 1, __ATOMIC_RELAXED);
	int ret;

	/* One writer wins the interval; the others count themselves limited. */
	if ((last && now - last < UST_TRIGGER_MIN_INTERVAL_NS) ||
	    !__atomic_compare_exchange_n(&t->last_ns, &last, now, 0, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED)) {
		__atomic_add_fetch(&t->limited, 1, __ATOMIC_RELAXED);
		return;
	}
	ret = ust_trigger_notify(id, t->at_most, fired,
				 __atomic_load_n(&t->limited, __ATOMIC_RELAXED) +
				 __atomic_load_n(&t->dropped, __ATOMIC_RELAXED), t->dir);
	if (ret < 0) {
		__atomic_store_n(&t->last_errno, -ret, __ATOMIC_RELAXED);
		__atomic_add_fetch(&t->dropped, 1, __ATOMIC_RELAXED);
	} else {
		__atomic_add_fetch(&t->notified, 1, __ATOMIC_RELAXED);
	}
}

void ust_triggers_fire(const struct ust_event_filters *f, const union ust_filter_arg *args,
		       const void *ip)
{
	uint32_t i;

	for (i = f->nr; i < f->nr + f->nr_triggers; i++) {
		const struct ust_filter_prog *p = f->progs[i];
		struct trigger *t;

		if (!ust_filter_prog_pass(p, args, ip))
			continue;
		/* Serial 0 is the shared reject program, which never passes;
		 * a trigger removed since the set was built has no slot. */
		t = p->rule_serial ? slot_of(p->rule_serial) : NULL;
		if (t)
			trigger_fired(t, p->rule_serial);
	}
}
