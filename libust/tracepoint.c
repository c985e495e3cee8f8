/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Tracepoint probes: registered by name, connected to every site of that
 * name in every registered object, whenever the object arrives.
 *
 * Invariant (under tp_mutex): a site whose name has connected probes points
 * at its name's NULL-terminated probe array and has enabled = 1; every other
 * site has probes = NULL and enabled = 0. All sites of one name share one
 * array. An array is never modified once published: it is replaced, and the
 * old one is freed only after an RCU grace period, so that readers in
 * trace_NAME() (include/ust/tracepoint.h) never see it freed.
 *
 * A probe's code may live in a library that is unloaded later. When that
 * object unregisters (its destructor, before dlclose() unmaps it), every
 * probe whose function lies in it is disconnected and a grace period
 * waited for: a thread of another object that was calling it has returned
 * from it before the destructor does.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <urcu-bp.h>

#include "libust/tracepoint_internal.h"
#include "libustcomm/common.h"
#include "libustcomm/log.h"

/* The probes connected for one tracepoint name, sites or not. */
struct tp_name {
	struct tp_name *next;
	struct ust_tracepoint_probe *probes;	/* nr + 1 entries, the last NULL */
	/* nr entries: the load address of the object holding each probe's
	 * function (NULL if unknown). Read under tp_mutex only. */
	const void **owners;
	size_t nr;
	char name[];
};

/* The tracepoint section of one registered object. */
struct tp_range {
	struct tp_range *next;
	struct ust_tracepoint *const *start;
	struct ust_tracepoint *const *stop;
};

static pthread_mutex_t tp_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct tp_name *tp_names;
static struct tp_range *tp_ranges;

static struct tp_name **find_name(const char *name)
{
	struct tp_name **pos;

	for (pos = &tp_names; *pos; pos = &(*pos)->next)
		if (!strcmp((*pos)->name, name))
			break;
	return pos;
}

static ssize_t find_probe(const struct tp_name *n, void (*func)(void), void *data)
{
	size_t i;

	for (i = 0; i < n->nr; i++)
		if (n->probes[i].func == func && n->probes[i].data == data)
			return i;
	return -1;
}

static void publish(struct ust_tracepoint *tp, struct ust_tracepoint_probe *probes)
{
	/* Pairs with the consume load in __ust_tracepoint_call_NAME(). */
	rcu_assign_pointer(tp->probes, probes);
	/*
	 * enabled only saves disabled sites the read-side section; a reader
	 * that sees it out of order with probes finds NULL and calls nothing.
	 */
	__atomic_store_n(&tp->enabled, probes != NULL, __ATOMIC_RELAXED);
}

static void publish_range(const struct tp_range *r)
{
	struct ust_tracepoint *const *p;
	struct tp_name *n;

	for (p = r->start; p < r->stop; p++) {
		if (!*p)
			continue;
		n = *find_name((*p)->name);
		publish(*p, n ? n->probes : NULL);
	}
}

static void publish_name(const char *name, struct ust_tracepoint_probe *probes)
{
	struct ust_tracepoint *const *p;
	struct tp_range *r;

	for (r = tp_ranges; r; r = r->next)
		for (p = r->start; p < r->stop; p++)
			if (*p && !strcmp((*p)->name, name))
				publish(*p, probes);
}

/* The probes of n with (func, data) appended, or without entry skip (>= 0). */
static struct ust_tracepoint_probe *new_array(const struct tp_name *n, void (*func)(void),
					      void *data, ssize_t skip)
{
	size_t nr = skip < 0 ? n->nr + 1 : n->nr - 1, i, j = 0;
	struct ust_tracepoint_probe *probes;

	probes = malloc((nr + 1) * sizeof(*probes));
	if (!probes)
		return NULL;
	for (i = 0; i < n->nr; i++)
		if ((ssize_t)i != skip)
			probes[j++] = n->probes[i];
	if (skip < 0) {
		probes[j].func = func;
		probes[j++].data = data;
	}
	probes[j].func = NULL;
	probes[j].data = NULL;
	return probes;
}

/*
 * The object a probe's code belongs to. dladdr() takes the dynamic
 * linker's lock, so it is called before tp_mutex: a thread in dlopen()
 * holds that lock while its constructors register sites under tp_mutex.
 */
static const void *code_owner(void (*func)(void))
{
	Dl_info info;

	if (dladdr(*(void **)&func, &info) && info.dli_fbase)
		return info.dli_fbase;
	return NULL;
}

/* Removes entry i of n's probe list; the caller frees *old after a grace
 * period. 0 or -ENOMEM (nothing changed). Under tp_mutex. */
static int drop_probe(struct tp_name **pos, size_t i, struct ust_tracepoint_probe **old)
{
	struct ust_tracepoint_probe *probes = NULL;
	struct tp_name *n = *pos;

	if (n->nr > 1) {
		probes = new_array(n, NULL, NULL, (ssize_t)i);
		if (!probes)
			return -ENOMEM;
	}
	*old = n->probes;
	n->probes = probes;
	memmove(&n->owners[i], &n->owners[i + 1], (n->nr - i - 1) * sizeof(*n->owners));
	n->nr--;
	publish_name(n->name, probes);
	if (!n->nr) {
		*pos = n->next;
		free(n->owners);
		free(n);
	}
	return 0;
}

UST_API int ust_tracepoint_probe_register(const char *name, void (*func)(void), void *data)
{
	struct ust_tracepoint_probe *probes, *old = NULL;
	struct tp_name **pos, *n;
	const void **owners;
	const void *owner;
	int ret = 0;

	if (!name || !func)
		return -EINVAL;
	owner = code_owner(func);
	pthread_mutex_lock(&tp_mutex);
	pos = find_name(name);
	n = *pos;
	if (n && find_probe(n, func, data) >= 0) {
		ret = -EEXIST;
		goto unlock;
	}
	if (!n) {
		n = calloc(1, sizeof(*n) + strlen(name) + 1);
		if (!n) {
			ret = -ENOMEM;
			goto unlock;
		}
		strcpy(n->name, name);
	}
	owners = realloc(n->owners, (n->nr + 1) * sizeof(*owners));
	if (owners)
		n->owners = owners;
	probes = owners ? new_array(n, func, data, -1) : NULL;
	if (!probes) {
		if (!*pos) {
			free(n->owners);
			free(n);
		}
		ret = -ENOMEM;
		goto unlock;
	}
	*pos = n;
	old = n->probes;
	n->probes = probes;
	n->owners[n->nr] = owner;
	n->nr++;
	publish_name(name, probes);
unlock:
	pthread_mutex_unlock(&tp_mutex);
	if (old) {
		synchronize_rcu();
		free(old);
	}
	return ret;
}

UST_API int ust_tracepoint_probe_unregister(const char *name, void (*func)(void), void *data)
{
	struct ust_tracepoint_probe *old = NULL;
	struct tp_name **pos, *n;
	ssize_t i = -1;
	int ret = 0;

	if (!name || !func)
		return -EINVAL;
	pthread_mutex_lock(&tp_mutex);
	pos = find_name(name);
	n = *pos;
	if (n)
		i = find_probe(n, func, data);
	if (i < 0) {
		ret = -ENOENT;
		goto unlock;
	}
	ret = drop_probe(pos, (size_t)i, &old);
unlock:
	pthread_mutex_unlock(&tp_mutex);
	if (old) {
		synchronize_rcu();
		free(old);
	}
	return ret;
}

/*
 * Calls into liburcu-bp rather than its inline (_LGPL_SOURCE) fast path:
 * that one trips -fsanitize=alignment on liburcu's reader registry, and
 * the enabled path already pays for a call.
 */
UST_API void ust_rcu_read_lock(void)
{
	rcu_read_lock();
}

UST_API void ust_rcu_read_unlock(void)
{
	rcu_read_unlock();
}

int ust_tracepoint_register_sites(struct ust_tracepoint *const *start,
				  struct ust_tracepoint *const *stop)
{
	struct tp_range *r;

	if (!start || start >= stop)
		return 0;
	r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->start = start;
	r->stop = stop;
	pthread_mutex_lock(&tp_mutex);
	r->next = tp_ranges;
	tp_ranges = r;
	publish_range(r);
	pthread_mutex_unlock(&tp_mutex);
	return 0;
}

/*
 * No grace period: the arrays belong to the names, not to the sites, and
 * once its object is going away nothing runs its trace_NAME() any more.
 */
void ust_tracepoint_unregister_sites(struct ust_tracepoint *const *start,
				     struct ust_tracepoint *const *stop)
{
	struct ust_tracepoint *const *p;
	struct tp_range **pos, *r;

	pthread_mutex_lock(&tp_mutex);
	for (pos = &tp_ranges; *pos; pos = &(*pos)->next)
		if ((*pos)->start == start && (*pos)->stop == stop)
			break;
	r = *pos;
	if (r) {
		*pos = r->next;
		for (p = start; p < stop; p++)
			if (*p)
				publish(*p, NULL);
	}
	pthread_mutex_unlock(&tp_mutex);
	free(r);
}

/*
 * One probe at a time, each with its own grace period: an object brings
 * few probes, and it needs no memory but the smaller array. A thread
 * inside a read-side section (a probe that unloads a library, exit()
 * called from a probe) cannot wait for itself: the probes are still
 * disconnected, and the caller was warned (tracepoint.h) that this is not
 * allowed.
 */
/* The first probe whose code is in owner's object, or NULL. Under tp_mutex. */
static struct tp_name **find_owned(const void *owner, size_t *i)
{
	struct tp_name **pos;

	for (pos = &tp_names; *pos; pos = &(*pos)->next) {
		for (*i = 0; *i < (*pos)->nr; (*i)++) {
			if ((*pos)->owners[*i] == owner)
				return pos;
		}
	}
	return NULL;
}

void ust_tracepoint_unregister_probes_of(const void *owner)
{
	struct ust_tracepoint_probe *old;
	struct tp_name **pos;
	size_t i;
	int ret;

	if (!owner)
		return;
	do {
		old = NULL;
		ret = 0;
		pthread_mutex_lock(&tp_mutex);
		pos = find_owned(owner, &i);
		if (pos)
			ret = drop_probe(pos, i, &old);
		pthread_mutex_unlock(&tp_mutex);
		if (ret < 0) {
			ustcomm_err("out of memory disconnecting the probes of an unloaded library: a program that still calls them will crash");
			return;
		}
		if (old && rcu_read_ongoing()) {
			ustcomm_err("a library with tracepoint probes was unloaded from inside a probe: its probes are disconnected, but one may still be running");
		} else if (old) {
			synchronize_rcu();
			free(old);
		}
	} while (pos);
}

void ust_tracepoint_fork_lock(void)
{
	pthread_mutex_lock(&tp_mutex);
}

void ust_tracepoint_fork_unlock(void)
{
	pthread_mutex_unlock(&tp_mutex);
}
