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

/* Where an enabled event is recorded: published once, never changed. */
struct ust_event_binding {
	struct ust_channel *chan;
	uint32_t id;
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
	 * NULL until the event is enabled in a running trace. Stored with
	 * release semantics before any site's enabled flag is set (see
	 * ust_registry_set_active); loaded with acquire in the write path.
	 */
	struct ust_event_binding *binding;
	/*
	 * The filters the enable rules give the event, NULL for none: see
	 * filter.h for how it is published and read.
	 */
	struct ust_event_filters *filters;
	int32_t loglevel;		/* the first site's */
	/* Typed sites of objects built before filters (ust_register_object):
	 * their probes record without asking the filters. */
	uint32_t nr_unfiltered_sites;
	int enabled;			/* by the enable rules (trace.h) */
	int active;			/* its sites write: enabled and the trace runs */
	struct ust_event_desc **sites;
	uint32_t nr_sites, cap_sites;
};

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
