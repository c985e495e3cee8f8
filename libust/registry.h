/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The registry of every event site of every registered object. Sites with
 * the same full name ("channel:name") and the same payload layout share one
 * ust_event_state: one event description in the trace, all sites fire.
 */
#ifndef UST_REGISTRY_H
#define UST_REGISTRY_H

#include <stdint.h>
#include <ust/core.h>
#include "libust/marker_format.h"
#include "libustcomm/strbuf.h"

struct ust_channel;
struct ust_event_filters;

/*
 * The traces a process may hold at once (trace.h). Small and fixed: the
 * per-trace state of an event is an array of this size, a commit copies
 * an event into each trace but the first from a per-thread frame sized by
 * it (event.c), and four cover an always-on flight recorder plus a few
 * sessions started to debug.
 */
#define UST_TRACES_MAX		4

/*
 * Where an enabled event is recorded in one trace, its slot: immutable
 * once published. The event's published bindings form a list, one per
 * trace recording it, linked through next; a change of that set publishes
 * a new list (trace_events.c). With one trace, the list is the slot's own
 * binding and next is NULL.
 */
struct ust_event_binding {
	struct ust_channel *chan;
	uint32_t id;
	uint32_t slot;			/* the trace's: index of filters[]; a fork()
					 * child's stand-in: UST_TRACES_MAX, none */
	const struct ust_event_binding *next;
};

struct ust_event_state {
	struct ust_event_state *next;
	char *full_name;		/* "channel:name" */
	char *channel;
	/* Owned copies: a site's object may be unloaded, the state stays. */
	struct ust_field_desc *fields;
	uint32_t nr_fields;
	char *format;			/* markers: the format the fields came from */
	struct ust_marker_format marker;	/* markers: how to read the arguments */
	/*
	 * The bindings of the traces that record the event now, NULL for
	 * none. Stored with release semantics before any site's enabled flag
	 * is set (see ust_registry_set_active); loaded with acquire in the
	 * write path. Lists replaced stay allocated: a preempted writer may
	 * still read one.
	 */
	const struct ust_event_binding *binding;
	/*
	 * The slot of the one trace recording the event, UST_TRACES_MAX when
	 * none or several do: the filtered path runs that trace's filters
	 * before it loads the bindings, as it did with a single trace, and
	 * checks the binding it then finds is that trace's (event.c).
	 */
	uint32_t one_slot;
	/* Each trace's own binding (control side; NULL: not bound there). */
	struct ust_event_binding *bound[UST_TRACES_MAX];
	/*
	 * The filters each trace's enable rules give the event, NULL for
	 * none: see filter.h for how they are published and read.
	 */
	struct ust_event_filters *filters[UST_TRACES_MAX];
	int32_t loglevel;		/* the first site's */
	/* Typed sites of objects built before filters (ust_register_object):
	 * their probes record without asking the filters. */
	uint32_t nr_unfiltered_sites;
	int enabled[UST_TRACES_MAX];	/* by each trace's enable rules (trace.h) */
	int active;			/* its sites write: some trace records it */
	struct ust_event_desc **sites;
	uint32_t nr_sites, cap_sites;
};

/*
 * Changes (release) after anything a writer learns from a site's
 * descriptor and an event's bindings changes: what they say may be kept
 * by a thread for as long as it loads (acquire) the value it kept
 * alongside (thread_buffer.h, struct ust_thread_slot). Never 0.
 */
extern uint64_t ust_binding_gen __attribute__((visibility("hidden")));
/* Under ust_lock, after the change. */
void ust_binding_changed(void);

/* Under ust_lock: iterate every known event. */
struct ust_event_state *ust_registry_first(void);

/* Under ust_lock: sets or clears every site's enabled flag. */
void ust_registry_set_active(struct ust_event_state *ev, int active);

/*
 * Under ust_lock: attaches a site to the event of its name and layout.
 * Returns the event when the site created it (new to the registry), NULL
 * when it joined a known one or was left out (said why).
 */
struct ust_event_state *ust_registry_add_site(struct ust_event_desc *desc,
					      uint32_t desc_version);
/* Under ust_lock: detaches the site; its event stays (ids are for good). */
void ust_registry_remove_site(struct ust_event_desc *desc, uint32_t desc_version);

#endif
