/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Registration of instrumented objects: each object's constructor hands its
 * section ranges to ust_register_object(); every event site found there
 * joins the registry (registry.h), and an event new to the registry meets
 * the enable rules and the running trace (trace.h).
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libust/lock.h"
#include "libust/objects.h"
#include "libust/registry.h"
#include "libust/statedump.h"
#include "libust/trace.h"
#include "libust/tracepoint_internal.h"
#include "libustcomm/common.h"

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

static struct ust_object *objects;

int ust_objects_describe(const struct ust_event_state *ev, struct ustcomm_strbuf *sb)
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

static void (*on_registered)(void);

void ust_objects_on_registered(void (*fn)(void))
{
	on_registered = fn;
}

UST_API int ust_register_object2(struct ust_event_desc *const *ev_start,
				 struct ust_event_desc *const *ev_stop,
				 struct ust_tracepoint *const *tp_start,
				 struct ust_tracepoint *const *tp_stop, uint32_t desc_version)
{
	struct ust_event_desc *const *d;
	struct ust_event_state *ev;
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
		if (*d && (ev = ust_registry_add_site(*d, desc_version)))
			ust_trace_event_added(ev);
	}
	if (tp_start)
		ret = ust_tracepoint_register_sites(tp_start, tp_stop);
end:
	if (on_registered)
		on_registered();
	ust_unlock();
	free(path);
	/* A library being loaded (statedump.c says why not from dlopen()). */
	ust_statedump_refresh(1);
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
			ust_registry_remove_site(*d, obj->desc_version);
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
