/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Registration of instrumented objects: each object's constructor hands its
 * section ranges to ust_register_object(); every event site found there is
 * attached to the ust_event_state of its full name and payload layout.
 */
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libust/registry.h"
#include "libust/session.h"
#include "libust/tracepoint_internal.h"
#include "libustcomm/common.h"
#include "libustcomm/log.h"
#include "libustcomm/metadata.h"
#include "libustcomm/shm_layout.h"

/* One registered object, known by its section ranges. */
struct ust_object {
	struct ust_object *next;
	struct ust_event_desc *const *ev_start, *const *ev_stop;
	struct ust_tracepoint *const *tp_start, *const *tp_stop;
	unsigned refcount;		/* one per translation unit's constructor */
};

static pthread_mutex_t ust_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct ust_object *objects;
static struct ust_event_state *events;

void ust_lock(void)
{
	pthread_mutex_lock(&ust_mutex);
}

void ust_unlock(void)
{
	pthread_mutex_unlock(&ust_mutex);
}

struct ust_event_state *ust_registry_first(void)
{
	return events;
}

int ust_pattern_match(const char *pattern, const char *full_name)
{
	char buf[256];
	char *slash;

	/* Accept the classic "channel/name" spelling. */
	slash = strchr(pattern, '/');
	if (slash && !strchr(pattern, ':') && strlen(pattern) < sizeof(buf)) {
		strcpy(buf, pattern);
		buf[slash - pattern] = ':';
		pattern = buf;
	}
	return fnmatch(pattern, full_name, 0) == 0;
}

void ust_registry_set_enabled(struct ust_event_state *ev, int enabled)
{
	uint32_t i;

	ev->enabled = enabled;
	/*
	 * Release: a site that sees enabled == 1 also sees desc->priv and
	 * ev->binding, both stored before; pairs with the acquire loads in
	 * ust_event_reserve().
	 */
	for (i = 0; i < ev->nr_sites; i++)
		__atomic_store_n(&ev->sites[i]->enabled, enabled, __ATOMIC_RELEASE);
}

void ust_registry_unbind_all(void)
{
	struct ust_event_state *ev;
	struct ust_event_binding *b;

	for (ev = events; ev; ev = ev->next) {
		ust_registry_set_enabled(ev, 0);
		b = ev->binding;
		__atomic_store_n(&ev->binding, NULL, __ATOMIC_RELEASE);
		free(b);
	}
}

static int fields_equal(const struct ust_field_desc *a, const struct ust_field_desc *b,
			uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(a[i].name, b[i].name) || a[i].kind != b[i].kind ||
		    a[i].size != b[i].size || a[i].is_signed != b[i].is_signed ||
		    a[i].base != b[i].base || a[i].len_size != b[i].len_size ||
		    a[i].length != b[i].length)
			return 0;
	}
	return 1;
}

static void free_fields(struct ust_field_desc *fields, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		free((char *)fields[i].name);
	free(fields);
}

static int copy_fields(struct ust_field_desc **out, const struct ust_field_desc *src, uint32_t n)
{
	struct ust_field_desc *f;
	uint32_t i;

	f = calloc(n ? n : 1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		f[i] = src[i];
		f[i].name = strdup(src[i].name);
		if (!f[i].name) {
			free_fields(f, i);
			return -ENOMEM;
		}
	}
	*out = f;
	return 0;
}

static void state_free(struct ust_event_state *ev)
{
	if (ev->format) {
		ust_marker_format_fini(&ev->marker);
		free(ev->format);
	} else if (ev->fields) {
		free_fields(ev->fields, ev->nr_fields);
	}
	free(ev->sites);
	free(ev->full_name);
	free(ev->channel);
	free(ev);
}

/* Builds the state a site would have, to compare with or to keep. */
static int state_new(struct ust_event_state **out, const struct ust_event_desc *desc)
{
	struct ust_event_state *ev;
	const char *why = NULL;
	int ret = -ENOMEM;

	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	ev->channel = strdup(desc->channel);
	if (!ev->channel || asprintf(&ev->full_name, "%s:%s", desc->channel, desc->name) < 0) {
		ev->full_name = NULL;
		goto end;
	}
	if (strlen(desc->channel) >= UST_SHM_CHANNEL_NAME_MAX ||
	    !ustcomm_metadata_valid_identifier(desc->channel)) {
		ret = -EINVAL;
		why = "the channel name is not an identifier of at most 63 characters";
		goto end;
	}
	if (desc->format) {
		ev->format = strdup(desc->format);
		if (!ev->format)
			goto end;
		ret = ust_marker_format_parse(desc->format, &ev->marker, &why);
		if (ret < 0) {
			free(ev->format);
			ev->format = NULL;
			goto end;
		}
		ev->fields = ev->marker.fields;
		ev->nr_fields = ev->marker.nr_fields;
	} else {
		ret = copy_fields(&ev->fields, desc->fields, desc->nr_fields);
		if (ret < 0)
			goto end;
		ev->nr_fields = desc->nr_fields;
	}
	*out = ev;
	return 0;
end:
	if (ret == -EINVAL)
		ustcomm_err("event %s:%s is left out: %s", desc->channel, desc->name,
			    why ? why : "invalid description");
	state_free(ev);
	return ret;
}

/*
 * Same name and same payload layout: one event. Markers must also read
 * their arguments alike ("%d" and "%hhd" both give an int, in different
 * layouts; "x %d" and "x  %d" are one event).
 */
static int state_same(const struct ust_event_state *a, const struct ust_event_state *b)
{
	if (strcmp(a->full_name, b->full_name) || !a->format != !b->format ||
	    a->nr_fields != b->nr_fields || !fields_equal(a->fields, b->fields, a->nr_fields))
		return 0;
	return !a->format || !memcmp(a->marker.args, b->marker.args, a->nr_fields);
}

static int state_add_site(struct ust_event_state *ev, struct ust_event_desc *desc)
{
	if (ev->nr_sites == ev->cap_sites) {
		uint32_t cap = ev->cap_sites ? 2 * ev->cap_sites : 2;
		struct ust_event_desc **s = realloc(ev->sites, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		ev->sites = s;
		ev->cap_sites = cap;
	}
	ev->sites[ev->nr_sites++] = desc;
	/* Release: pairs with the acquire load of priv in ust_event_reserve(). */
	__atomic_store_n(&desc->priv, ev, __ATOMIC_RELEASE);
	if (ev->enabled)
		__atomic_store_n(&desc->enabled, 1, __ATOMIC_RELEASE);
	return 0;
}

static void register_site(struct ust_event_desc *desc)
{
	struct ust_event_state *cand, *ev;

	if (state_new(&cand, desc) < 0)
		return;
	for (ev = events; ev; ev = ev->next) {
		if (state_same(ev, cand))
			break;
	}
	if (ev) {
		state_free(cand);
		state_add_site(ev, desc);
		return;
	}
	if (state_add_site(cand, desc) < 0) {
		state_free(cand);
		return;
	}
	cand->next = events;
	events = cand;
	ust_session_event_added(cand);
}

static void unregister_site(struct ust_event_desc *desc)
{
	struct ust_event_state *ev = desc->priv;
	uint32_t i;

	__atomic_store_n(&desc->enabled, 0, __ATOMIC_RELAXED);
	if (!ev)
		return;
	for (i = 0; i < ev->nr_sites; i++) {
		if (ev->sites[i] == desc) {
			ev->sites[i] = ev->sites[--ev->nr_sites];
			break;
		}
	}
	/* The state stays: its id is in the trace's metadata for good. */
}

static struct ust_object **find_object(struct ust_event_desc *const *ev_start,
				       struct ust_tracepoint *const *tp_start)
{
	struct ust_object **p;

	for (p = &objects; *p; p = &(*p)->next) {
		if ((*p)->ev_start == ev_start && (*p)->tp_start == tp_start)
			return p;
	}
	return p;
}

UST_API int ust_register_object(struct ust_event_desc *const *ev_start,
				struct ust_event_desc *const *ev_stop,
				struct ust_tracepoint *const *tp_start,
				struct ust_tracepoint *const *tp_stop)
{
	struct ust_event_desc *const *d;
	struct ust_object **p, *obj;
	int ret = 0;

	if (!ev_start && !tp_start)
		return 0;
	ust_lock();
	p = find_object(ev_start, tp_start);
	if (*p) {
		(*p)->refcount++;
		goto end;
	}
	obj = calloc(1, sizeof(*obj));
	if (!obj) {
		ret = -ENOMEM;
		goto end;
	}
	obj->ev_start = ev_start;
	obj->ev_stop = ev_stop;
	obj->tp_start = tp_start;
	obj->tp_stop = tp_stop;
	obj->refcount = 1;
	*p = obj;
	for (d = ev_start; d && d < ev_stop; d++) {
		if (*d)
			register_site(*d);
	}
	if (tp_start)
		ret = ust_tracepoint_register_sites(tp_start, tp_stop);
end:
	ust_unlock();
	return ret;
}

UST_API void ust_unregister_object(struct ust_event_desc *const *ev_start,
				   struct ust_event_desc *const *ev_stop,
				   struct ust_tracepoint *const *tp_start,
				   struct ust_tracepoint *const *tp_stop)
{
	struct ust_event_desc *const *d;
	struct ust_object **p, *obj;

	if (!ev_start && !tp_start)
		return;
	ust_lock();
	p = find_object(ev_start, tp_start);
	obj = *p;
	if (!obj || --obj->refcount)
		goto end;
	*p = obj->next;
	for (d = ev_start; d && d < ev_stop; d++) {
		if (*d)
			unregister_site(*d);
	}
	if (tp_start)
		ust_tracepoint_unregister_sites(tp_start, tp_stop);
	free(obj);
end:
	ust_unlock();
}
