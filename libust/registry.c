/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The registry of events (registry.h): every event site is attached to
 * the ust_event_state of its full name and payload layout.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libust/filter.h"
#include "libust/registry.h"
#include "libustcomm/log.h"
#include "libustcomm/metadata.h"
#include "libustcomm/shm_layout.h"

static struct ust_event_state *events;

uint64_t ust_binding_gen = 1;

void ust_binding_changed(void)
{
	/* Release: pairs with the writer's acquire load in event_chain.c,
	 * so that one that sees this value sees the change too. */
	__atomic_store_n(&ust_binding_gen, ust_binding_gen + 1, __ATOMIC_RELEASE);
}

struct ust_event_state *ust_registry_first(void)
{
	return events;
}

/*
 * Stores flag in libust's half of a site's enabled word (UST_SITE_UST_MASK
 * in core.h), never in the other half: that is the semaphore of the
 * site's sys/sdt.h probes, which the kernel counts up and down on its own
 * (uprobe ref_ctr) while perf, bpftrace or gdb are attached, and which a
 * store of the whole word would overwrite. The halves are distinct bytes,
 * so neither store disturbs the other; the site reads the whole word.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SITE_UST_HALF	1
#else
#define SITE_UST_HALF	0
#endif
typedef uint16_t __attribute__((may_alias)) site_half_t;

static void site_store(struct ust_event_desc *desc, int32_t flag, int memorder)
{
	site_half_t *half = (site_half_t *)&desc->enabled + SITE_UST_HALF;

	__atomic_store_n(half, (uint16_t)flag, memorder);
}

/* The enabled flag of an active event's sites. */
static int32_t site_flag(const struct ust_event_state *ev)
{
	int32_t flag = UST_SITE_ENABLED;
	uint32_t slot;

	/* Filtered when some trace filters it: the others' sets are NULL,
	 * which the filtered path reads as "record". */
	for (slot = 0; slot < UST_TRACES_MAX; slot++) {
		const struct ust_event_filters *f = ev->filters[slot];

		if (f)
			flag |= UST_SITE_FILTERED | (f->nr_triggers ? UST_SITE_TRIGGER : 0);
	}
	return flag;
}

void ust_registry_set_active(struct ust_event_state *ev, int active)
{
	int32_t flag;
	uint32_t i;

	ev->active = active;
	flag = active ? site_flag(ev) : 0;
	/*
	 * Release: a site that sees its enabled flag set also sees
	 * desc->priv, ev->binding and ev->filters[], all stored before; pairs
	 * with the acquire loads in event.c.
	 */
	for (i = 0; i < ev->nr_sites; i++)
		site_store(ev->sites[i], flag, __ATOMIC_RELEASE);
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
static int state_new(struct ust_event_state **out, const struct ust_event_desc *desc,
		     uint32_t desc_version)
{
	struct ust_event_state *ev;
	const char *why = NULL;
	int ret = -ENOMEM;

	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	ev->loglevel = UST_LOGLEVEL_DEFAULT;
	ev->one_slot = UST_TRACES_MAX;
	if (desc_version >= 2 && desc->loglevel >= UST_LOGLEVEL_EMERG &&
	    desc->loglevel <= UST_LOGLEVEL_DEBUG)
		ev->loglevel = desc->loglevel;
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

static int state_add_site(struct ust_event_state *ev, struct ust_event_desc *desc,
			  uint32_t desc_version)
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
	if (desc_version < 2 && !desc->format)
		ev->nr_unfiltered_sites++;
	/* Release: pairs with the acquire load of priv in ust_event_reserve(). */
	__atomic_store_n(&desc->priv, ev, __ATOMIC_RELEASE);
	if (ev->active)
		site_store(desc, site_flag(ev), __ATOMIC_RELEASE);
	return 0;
}

/*
 * A descriptor may be listed more than once: a marker's section entry is
 * emitted with each copy of its code (inlined, cloned), and a C++ inline
 * function's static is one object for the whole program, listed by every
 * object that has a copy of the function. Each listing is one more entry
 * in the state's sites, each unlisting removes one, and the descriptor is
 * detached with its last (ust_registry_remove_site()).
 */
struct ust_event_state *ust_registry_add_site(struct ust_event_desc *desc,
					      uint32_t desc_version)
{
	struct ust_event_state *cand, *ev;

	if (state_new(&cand, desc, desc_version) < 0)
		return NULL;
	for (ev = events; ev; ev = ev->next) {
		if (state_same(ev, cand))
			break;
	}
	if (ev) {
		state_free(cand);
		state_add_site(ev, desc, desc_version);
		return NULL;
	}
	if (state_add_site(cand, desc, desc_version) < 0) {
		state_free(cand);
		return NULL;
	}
	cand->next = events;
	events = cand;
	return cand;
}

/*
 * After this, libust holds no pointer into desc's object: the state keeps
 * its own copies of the names, fields and format. desc->priv is cleared so
 * that the object, if it stays mapped and registers again, starts clean.
 * A thread of the object's own code may still be between its load of priv
 * and its commit: it uses the state, which is never freed, and the
 * binding, never freed either (trace_life.c); it reads desc again only when its
 * code runs again, which the application must not let happen once the
 * object is unmapped.
 */
void ust_registry_remove_site(struct ust_event_desc *desc, uint32_t desc_version)
{
	struct ust_event_state *ev = desc->priv;
	uint32_t i;

	if (ev) {
		for (i = 0; i < ev->nr_sites; i++) {
			if (ev->sites[i] == desc) {
				ev->sites[i] = ev->sites[--ev->nr_sites];
				if (desc_version < 2 && !desc->format)
					ev->nr_unfiltered_sites--;
				break;
			}
		}
		/* Listed again (ust_registry_add_site()): the site stays. */
		for (i = 0; i < ev->nr_sites; i++) {
			if (ev->sites[i] == desc)
				return;
		}
	}
	site_store(desc, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&desc->priv, NULL, __ATOMIC_RELAXED);
	/* Another object may be loaded where this descriptor was. */
	ust_binding_changed();
	/* The state stays: its id is in the trace's metadata for good. */
}
