/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Registration of instrumented objects: each object's constructor hands its
 * section ranges to ust_register_object(); every event site found there is
 * attached to the ust_event_state of its full name and payload layout.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libust/registry.h"
#include "libust/trace.h"
#include "libust/tracepoint_internal.h"
#include "libustcomm/common.h"
#include "libustcomm/log.h"
#include "libustcomm/metadata.h"
#include "libustcomm/pattern.h"
#include "libustcomm/shm_layout.h"

/* One registered object, known by its section ranges. */
struct ust_object {
	struct ust_object *next;
	uint32_t desc_version;		/* UST_DESC_VERSION it was built with */
	struct ust_event_desc *const *ev_start, *const *ev_stop;
	struct ust_tracepoint *const *tp_start, *const *tp_stop;
	unsigned refcount;		/* one per translation unit's constructor */
	char *path;			/* the executable's or the library's file */
	/* Where a library that can be unloaded is mapped (dli_fbase), to
	 * find the probes its code provides; NULL for the executable. */
	const void *base;
};

static pthread_mutex_t ust_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct ust_object *objects;
static struct ust_event_state *events;
static int lock_signal;
/* The holder's signal mask from before ust_lock(); protected by ust_mutex. */
static sigset_t lock_saved_mask;

void ust_lock_set_signal(int sig)
{
	lock_signal = sig;
}

/*
 * The holder blocks the control signal, so the control server, which takes
 * this lock from the signal handler, never interrupts the thread holding
 * it: when the handler waits here, it waits for another thread, which
 * finishes. Blocked before the mutex is taken, restored after it is given
 * back. pthread_sigmask() is async-signal-safe.
 */
void ust_lock(void)
{
	sigset_t set, old;
	int saved_errno = errno;

	sigemptyset(&set);
	if (lock_signal)
		sigaddset(&set, lock_signal);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	pthread_mutex_lock(&ust_mutex);
	lock_saved_mask = old;
	errno = saved_errno;
}

void ust_unlock(void)
{
	sigset_t old = lock_saved_mask;
	int saved_errno = errno;

	pthread_mutex_unlock(&ust_mutex);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved_errno;
}

struct ust_event_state *ust_registry_first(void)
{
	return events;
}

/* The enabled flag of an active event's sites. */
static int32_t site_flag(const struct ust_event_state *ev)
{
	return UST_SITE_ENABLED | (ev->filters ? UST_SITE_FILTERED : 0);
}

void ust_registry_set_active(struct ust_event_state *ev, int active)
{
	int32_t flag;
	uint32_t i;

	ev->active = active;
	flag = active ? site_flag(ev) : 0;
	/*
	 * Release: a site that sees its enabled flag set also sees
	 * desc->priv, ev->binding and ev->filters, all stored before; pairs
	 * with the acquire loads in event.c.
	 */
	for (i = 0; i < ev->nr_sites; i++)
		__atomic_store_n(&ev->sites[i]->enabled, flag, __ATOMIC_RELEASE);
}

int ust_registry_describe_objects(const struct ust_event_state *ev, struct ustcomm_strbuf *sb)
{
	const struct ust_object *obj;
	struct ust_event_desc *const *d;
	uint32_t i;
	int first = 1;

	for (obj = objects; obj; obj = obj->next) {
		int found = 0;

		for (d = obj->ev_start; d && d < obj->ev_stop && !found; d++) {
			for (i = 0; i < ev->nr_sites && !found; i++)
				found = *d == ev->sites[i];
		}
		if (!found)
			continue;
		if (!first)
			ustcomm_strbuf_append(sb, ", ", 2);
		ustcomm_strbuf_append(sb, obj->path, strlen(obj->path));
		first = 0;
	}
	return sb->err;
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
		__atomic_store_n(&desc->enabled, site_flag(ev), __ATOMIC_RELEASE);
	return 0;
}

static void register_site(struct ust_event_desc *desc, uint32_t desc_version)
{
	struct ust_event_state *cand, *ev;

	if (state_new(&cand, desc, desc_version) < 0)
		return;
	for (ev = events; ev; ev = ev->next) {
		if (state_same(ev, cand))
			break;
	}
	if (ev) {
		state_free(cand);
		state_add_site(ev, desc, desc_version);
		return;
	}
	if (state_add_site(cand, desc, desc_version) < 0) {
		state_free(cand);
		return;
	}
	cand->next = events;
	events = cand;
	ust_trace_event_added(cand);
}

/*
 * After this, libust holds no pointer into desc's object: the state keeps
 * its own copies of the names, fields and format. desc->priv is cleared so
 * that the object, if it stays mapped and registers again, starts clean.
 * A thread of the object's own code may still be between its load of priv
 * and its commit: it uses the state, which is never freed, and the
 * binding, never freed either (trace.c); it reads desc again only when its
 * code runs again, which the application must not let happen once the
 * object is unmapped.
 */
static void unregister_site(struct ust_event_desc *desc, uint32_t desc_version)
{
	struct ust_event_state *ev = desc->priv;
	uint32_t i;

	__atomic_store_n(&desc->enabled, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&desc->priv, NULL, __ATOMIC_RELAXED);
	if (!ev)
		return;
	for (i = 0; i < ev->nr_sites; i++) {
		if (ev->sites[i] == desc) {
			ev->sites[i] = ev->sites[--ev->nr_sites];
			if (desc_version < 2 && !desc->format)
				ev->nr_unfiltered_sites--;
			break;
		}
	}
	/* The state stays: its id is in the trace's metadata for good. */
}

/* dl_iterate_phdr() visits the executable first. */
static int in_executable(struct dl_phdr_info *info, size_t size, void *addr)
{
	uintptr_t a = (uintptr_t)addr;
	ElfW(Half) i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && a >= start && a - start < ph->p_memsz)
			return 1;
	}
	return -1;
}

/*
 * Runs in the object's constructor, a normal context, and before ust_lock:
 * dladdr() and dl_iterate_phdr() take the dynamic linker's lock, which a
 * thread in dlopen() holds while its constructors wait for ust_lock.
 */
static char *object_path(const void *addr, const void **base)
{
	char buf[PATH_MAX];
	Dl_info info;
	ssize_t n;

	*base = NULL;
	if (!dladdr(addr, &info))
		info.dli_fname = NULL;
	else if (dl_iterate_phdr(in_executable, (void *)addr) != 1)
		*base = info.dli_fbase;
	if (info.dli_fname && info.dli_fname[0] == '/')
		return strdup(info.dli_fname);
	/* The executable itself shows up under the name it was started by. */
	n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return strdup(info.dli_fname ? info.dli_fname : "?");
	buf[n] = '\0';
	return strdup(buf);
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

UST_API int ust_register_object2(struct ust_event_desc *const *ev_start,
				 struct ust_event_desc *const *ev_stop,
				 struct ust_tracepoint *const *tp_start,
				 struct ust_tracepoint *const *tp_stop, uint32_t desc_version)
{
	struct ust_event_desc *const *d;
	struct ust_object **p, *obj;
	const void *base;
	char *path;
	int ret = 0;

	if (!ev_start && !tp_start)
		return 0;
	path = object_path(ev_start ? (const void *)ev_start : (const void *)tp_start, &base);
	ust_lock();
	p = find_object(ev_start, tp_start);
	if (*p) {
		(*p)->refcount++;
		goto end;
	}
	obj = calloc(1, sizeof(*obj));
	if (!obj || !path) {
		free(obj);
		ret = -ENOMEM;
		goto end;
	}
	obj->ev_start = ev_start;
	obj->ev_stop = ev_stop;
	obj->tp_start = tp_start;
	obj->tp_stop = tp_stop;
	obj->refcount = 1;
	obj->desc_version = desc_version;
	obj->path = path;
	obj->base = base;
	path = NULL;
	*p = obj;
	for (d = ev_start; d && d < ev_stop; d++) {
		if (*d)
			register_site(*d, desc_version);
	}
	if (tp_start)
		ret = ust_tracepoint_register_sites(tp_start, tp_stop);
end:
	ust_unlock();
	free(path);
	return ret;
}

/* Objects built before UST_DESC_VERSION 2: descriptors without loglevel. */
UST_API int ust_register_object(struct ust_event_desc *const *ev_start,
				struct ust_event_desc *const *ev_stop,
				struct ust_tracepoint *const *tp_start,
				struct ust_tracepoint *const *tp_stop)
{
	return ust_register_object2(ev_start, ev_stop, tp_start, tp_stop, 1);
}

UST_API void ust_unregister_object(struct ust_event_desc *const *ev_start,
				   struct ust_event_desc *const *ev_stop,
				   struct ust_tracepoint *const *tp_start,
				   struct ust_tracepoint *const *tp_stop)
{
	struct ust_event_desc *const *d;
	struct ust_object **p, *obj;
	const void *base = NULL;

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
			unregister_site(*d, obj->desc_version);
	}
	if (tp_start)
		ust_tracepoint_unregister_sites(tp_start, tp_stop);
	base = obj->base;
	free(obj->path);
	free(obj);
end:
	ust_unlock();
	/* Outside ust_lock: it waits for a grace period (tracepoint_internal.h). */
	ust_tracepoint_unregister_probes_of(base);
}
