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

struct ust_channel;

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
	 * ust_registry_set_enabled); loaded with acquire in the write path.
	 */
	struct ust_event_binding *binding;
	int enabled;
	struct ust_event_desc **sites;
	uint32_t nr_sites, cap_sites;
};

/* The one lock of libust's slow paths: registry, session, channels. */
void ust_lock(void);
void ust_unlock(void);

/* Under ust_lock: iterate every known event. */
struct ust_event_state *ust_registry_first(void);

/* Under ust_lock: sets or clears every site's enabled flag. */
void ust_registry_set_enabled(struct ust_event_state *ev, int enabled);

/* Frees every binding and disables every site: only where no thread can be
 * in the write path, as in the child of fork(). */
void ust_registry_unbind_all(void);

/* True when full_name matches a glob pattern; "chan/name" is "chan:name". */
int ust_pattern_match(const char *pattern, const char *full_name);

#endif
