/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The events in the trace: an enabled event gets an id in its channel's
 * stream (and the channel its buffers) when the trace is allocated, and
 * its sites write while the trace runs. Async-signal-safe (see trace_life.c).
 */
#include <errno.h>
#include <string.h>

#include "libust/filter_reclaim.h"
#include "libust/report_once.h"
#include "libust/rules.h"
#include "libust/sigsafe_alloc.h"
#include "libust/trace_internal.h"
#include "libustcomm/format.h"
#include "libustcomm/log.h"

static int channel_get(struct ust_channel **out, const char *name)
{
	struct ust_channel *chan;
	struct ustcomm_ctx_set ctx;
	uint32_t size, num, i;
	int ret;

	for (i = 0; i < ust_t.nr_channels; i++) {
		if (!strcmp(ust_t.channels[i]->name, name)) {
			*out = ust_t.channels[i];
			return 0;
		}
	}
	if (ust_t.nr_channels == UST_TRACE_MAX_CHANNELS)
		return ust_trace_fail(-ENOSPC, "channel %s not created: a trace has at most %d channels",
			    name, UST_TRACE_MAX_CHANNELS);
	/* Before anything is allocated: the OOM killer must never decide. */
	ret = ust_trace_check_memory_channel(name);
	if (ret < 0)
		return ret;
	ust_trace_channel_geometry(name, &size, &num);
	ust_chan_conf_contexts(name, &ctx);
	if (ust_t.cfg.per_uid) {
		/* ustd's rings, described by ustd: nothing to send. */
		ret = ust_trace_uid_channel(&chan, name, size, num, &ctx);
		if (ret < 0)
			return ret;
		ust_channel_set_blocking(chan, ust_chan_conf_blocking(name),
					 ust_trace_consumer_alive_fn());
		goto added;
	}
	ret = ust_channel_create(&chan, name, ust_t.nr_channels, ust_t.cfg.nr_cpus,
				 ust_trace_thread_buffers(name), size, num, ust_t.cfg.overwrite,
				 ust_t.uuid, &ctx);
	if (ret < 0)
		return ust_trace_fail(ret, "cannot create the buffers of channel %s: %s", name,
			    ustcomm_strerror(-ret));
	ust_channel_set_blocking(chan, ust_chan_conf_blocking(name), ust_trace_consumer_alive_fn());
	ust_chan_conf_tracefile(name, &chan->tracefile_size, &chan->tracefile_count);
	ret = ust_trace_send_stream_block(chan);
	if (ret >= 0)
		ret = ust_trace_send_buffers(chan);
	if (ret < 0) {
		ust_channel_destroy(chan);
		return ret;
	}
added:
	ust_t.channels[ust_t.nr_channels++] = chan;
	*out = chan;
	return 0;
}

/* Gives the event an id in its channel's stream and describes it to ustd. */
static int event_bind(struct ust_event_state *ev)
{
	struct ust_event_binding *b;
	struct ust_channel *chan = NULL;
	int ret;

	if (ev->bound[ust_t.slot])
		return 0;
	ret = channel_get(&chan, ev->channel);
	if (ret < 0)
		return ret;
	b = ust_zalloc(sizeof(*b));
	if (!b)
		return ust_trace_fail(-ENOMEM, "out of memory enabling %s", ev->full_name);
	b->chan = chan;
	b->id = chan->next_event_id;
	b->slot = ust_t.slot;
	/* Shared rings: the id is the set's, and ustd describes the event. */
	ret = chan->shared ? ust_trace_uid_event(ev, chan->stream_id, &b->id) :
		ust_trace_send_event(ev, chan->stream_id, b->id);
	if (ret < 0)
		goto end;
	if (!chan->shared)
		chan->next_event_id++;
	ev->bound[ust_t.slot] = b;
	b = NULL;
end:
	ust_free(b);
	return ret;
}

/* Whether trace slot records ev now. */
static int records(const struct ust_event_state *ev, uint32_t slot)
{
	return ev->bound[slot] && ev->enabled[slot] && ust_traces[slot].state == UST_TRACE_STARTED;
}

/* Whether the published list holds exactly the bindings of the slots in want. */
static int same_list(const struct ust_event_binding *b, const struct ust_event_binding *const *want,
		     uint32_t nr)
{
	uint32_t i;

	for (i = 0; i < nr; i++, b = b->next) {
		if (!b || b->chan != want[i]->chan || b->id != want[i]->id || b->slot != want[i]->slot)
			return 0;
	}
	return b == NULL;
}

/*
 * Publishes the list of the bindings of the traces that record ev and
 * turns its sites on or off. One trace: its own binding, as with a single
 * trace. Several: copies linked in slot order, since each binding's next
 * is NULL for good. A list replaced is never freed (registry.h).
 */
static void event_publish(struct ust_event_state *ev)
{
	const struct ust_event_binding *want[UST_TRACES_MAX];
	const struct ust_event_binding *list = NULL;
	uint32_t nr = 0, i;

	for (i = 0; i < UST_TRACES_MAX; i++) {
		if (records(ev, i))
			want[nr++] = ev->bound[i];
	}
	if (same_list(ev->binding, want, nr))
		goto end;
	if (nr == 1)
		list = want[0];
	/* Before the bindings: a writer that reads it older finds a binding
	 * of another slot, and takes the general path (event.c). */
	__atomic_store_n(&ev->one_slot, nr == 1 ? want[0]->slot : UST_TRACES_MAX,
			 __ATOMIC_RELAXED);
	for (i = nr; nr > 1 && i--;) {
		struct ust_event_binding *copy = ust_zalloc(sizeof(*copy));

		if (!copy) {
			ustcomm_err("out of memory recording %s in several traces: it goes to fewer",
				    ev->full_name);
			break;
		}
		*copy = *want[i];
		copy->next = list;
		list = copy;
	}
	/* Release: pairs with the acquire load of the bindings in reserve_once() (event.c). */
	__atomic_store_n(&ev->binding, list, __ATOMIC_RELEASE);
	ust_binding_changed();
end:
	ust_registry_set_active(ev, ev->binding != NULL);
}

/* Makes the event's sites write exactly when it is enabled and a trace runs. */
static int event_apply(struct ust_event_state *ev)
{
	int ret = 0;

	if (ev->enabled[ust_t.slot] && ust_t.state >= UST_TRACE_ALLOCATED && ust_t.sock >= 0)
		ret = event_bind(ev);
	event_publish(ev);
	return ret;
}

int ust_trace_apply_all(void)
{
	struct ust_event_state *ev;
	int ret = 0, r;

	for (ev = ust_registry_first(); ev; ev = ev->next) {
		r = event_apply(ev);
		if (r < 0 && !ret)
			ret = r;
	}
	return ret;
}

static void (*on_event_added)(const struct ust_event_state *ev);

void ust_trace_on_event_added(void (*fn)(const struct ust_event_state *ev))
{
	on_event_added = fn;
}

void ust_trace_event_added(struct ust_event_state *ev)
{
	uint32_t was = ust_t.slot, i;

	/* First, so that a session it starts enables ev too. */
	if (on_event_added)
		on_event_added(ev);
	for (i = 0; i < UST_TRACES_MAX; i++) {
		ust_trace_select(i);
		ust_rules_apply(ev);
		/* No controller waits for this answer: a refusal of the channel's
		 * buffers (trace_memory.c) is said on stderr, once per channel. */
		if (event_apply(ev) == -ENOMEM && ust_report_once(ev->channel, &ust_t))
			ustcomm_err("trace '%s': %s", ust_t.name, ust_trace_error());
	}
	ust_trace_select(was);
}

/* Rule i of the nr given: specs[i], or with patterns, a plain rule of
 * patterns[i] (no level, no filter). */
static struct ust_rule_spec rule_at(const struct ust_rule_spec *specs,
				    const char *const *patterns, int enable, size_t i)
{
	if (specs)
		return specs[i];
	return (struct ust_rule_spec) { .pattern = patterns[i], .enable = enable };
}

static int add_rules(const char *name, const struct ust_rule_spec *specs,
		     const char *const *patterns, int enable, size_t nr)
{
	struct ust_rule_spec spec;
	struct ust_event_state *ev;
	int ret, count = 0;
	size_t i;

	ret = ust_trace_check_name(name);
	if (ret < 0)
		return ret;
	/* All or none: a command refused for its third rule (the table
	 * full) must not leave its first two behind. */
	ret = ust_rules_begin(ust_t.error, sizeof(ust_t.error));
	for (i = 0; ret >= 0 && i < nr; i++) {
		spec = rule_at(specs, patterns, enable, i);
		ret = ust_rules_stage(&spec, ust_t.error, sizeof(ust_t.error));
	}
	if (ret < 0) {
		ust_rules_abort();
		return ret;
	}
	ust_rules_commit();
	for (ev = ust_registry_first(); ev; ev = ev->next)
		for (i = 0; i < nr; i++) {
			spec = rule_at(specs, patterns, enable, i);
			count += ust_rules_spec_matches(&spec, ev) != 0;
		}
	ust_trace_apply_rules();
	return count;
}

int ust_trace_add_rule(const char *name, const struct ust_rule_spec *spec)
{
	return add_rules(name, spec, NULL, 0, 1);
}

int ust_trace_add_marker_rules(const char *name, const char *const *patterns, size_t nr,
			       int enable)
{
	return add_rules(name, NULL, patterns, enable, nr);
}

uint32_t ust_trace_marker_matches(const char *pattern, int enable)
{
	const struct ust_rule_spec spec = { .pattern = pattern, .enable = enable };
	struct ust_event_state *ev;
	uint32_t count = 0;

	for (ev = ust_registry_first(); ev; ev = ev->next)
		count += ust_rules_spec_matches(&spec, ev) != 0;
	return count;
}

void ust_trace_apply_rules(void)
{
	struct ust_event_state *ev;
	uint32_t was = ust_t.slot, i;

	/* A rule can change any event: its level narrows, its filter adds up.
	 * Every trace's, since the process's triggers are in every set. */
	for (i = 0; i < UST_TRACES_MAX; i++) {
		ust_trace_select(i);
		for (ev = ust_registry_first(); ev; ev = ev->next) {
			ust_rules_apply(ev);
			event_apply(ev);
		}
	}
	ust_trace_select(was);
	ust_filter_reclaim();
}

/* The bindings stay allocated: a preempted writer may still read one. */
void ust_trace_unbind_all(void)
{
	struct ust_event_state *ev;

	for (ev = ust_registry_first(); ev; ev = ev->next) {
		ev->bound[ust_t.slot] = NULL;
		event_publish(ev);
	}
}

void ust_trace_bind_all_to(const struct ust_event_binding *b)
{
	struct ust_event_state *ev;
	uint32_t i;

	for (ev = ust_registry_first(); ev; ev = ev->next) {
		for (i = 0; i < UST_TRACES_MAX; i++) {
			if (ust_traces[i].fork_pending && ev->enabled[i])
				break;
		}
		if (i == UST_TRACES_MAX)
			continue;
		/* The stand-in is no trace's: the general path (event.c). */
		__atomic_store_n(&ev->one_slot, UST_TRACES_MAX, __ATOMIC_RELAXED);
		/* Release: pairs with the acquire load of the bindings in reserve_once(). */
		__atomic_store_n(&ev->binding, b, __ATOMIC_RELEASE);
		ust_registry_set_active(ev, 1);
	}
	ust_binding_changed();
}
