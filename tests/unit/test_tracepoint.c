/* SPDX-License-Identifier: GPL-2.0-only */
/* Tracepoint probe registry: probes by name across objects, late objects, removal, concurrency. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <ust/tracepoint.h>
#include "libust/tracepoint_internal.h"
#include "tests/unit/tap.h"

/* Two fake "objects" with a site of the same name each, plus another name. */
static struct ust_tracepoint site_a1 = { .name = "tp_a" };
static struct ust_tracepoint site_b = { .name = "tp_b" };
static struct ust_tracepoint site_a2 = { .name = "tp_a" };
static struct ust_tracepoint *const obj1[] = { &site_a1, &site_b };
static struct ust_tracepoint *const obj2[] = { &site_a2 };

static int hits[4];
static void p0(void *data, int v) { (void)v; __atomic_fetch_add(&hits[(long)data], 1, __ATOMIC_RELAXED); }
static void p1(void *data, int v) { (void)v; hits[(long)data] += 10; }

static void fire(struct ust_tracepoint *tp, int v)
{
	const struct ust_tracepoint_probe *p;

	if (!__atomic_load_n(&tp->enabled, __ATOMIC_RELAXED))
		return;
	ust_rcu_read_lock();
	p = __atomic_load_n(&tp->probes, __ATOMIC_CONSUME);
	for (; p && p->func; p++)
		((void (*)(void *, int))p->func)(p->data, v);
	ust_rcu_read_unlock();
}

static int stop;
static long calls;
static void *reader(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		fire(&site_a1, 1);
		fire(&site_a2, 1);
		__atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}
static void pc(void *data, int v) { __atomic_fetch_add((int *)data, v, __ATOMIC_RELAXED); }

#define F(f) ((void (*)(void))(f))

int main(void)
{
	pthread_t th[3];
	int i, counter = 0;

	tap_ok(ust_tracepoint_probe_register("tp_a", F(p0), (void *)0) == 0, "probe registered before any site");
	tap_ok(ust_tracepoint_register_sites(obj1, obj1 + 2) == 0, "object 1 registers");
	tap_ok(site_a1.enabled == 1 && site_a1.probes && site_b.enabled == 0 && !site_b.probes, "pending probe connects to the matching site only");
	fire(&site_a1, 0);
	tap_ok(hits[0] == 1, "site calls the probe");
	tap_ok(ust_tracepoint_probe_register("tp_a", F(p0), (void *)0) == -EEXIST, "same probe+data twice: -EEXIST");
	tap_ok(ust_tracepoint_probe_register("tp_a", F(p0), (void *)1) == 0, "same func other data ok");
	tap_ok(ust_tracepoint_probe_register("tp_a", F(p1), (void *)2) == 0, "second func ok");
	tap_ok(ust_tracepoint_register_sites(obj2, obj2 + 1) == 0, "object 2 (late) registers");
	fire(&site_a2, 0);
	tap_ok(hits[0] == 2 && hits[1] == 1 && hits[2] == 10 && site_a2.probes == site_a1.probes, "late object gets all three probes, shared array");
	tap_ok(ust_tracepoint_probe_unregister("tp_a", F(p1), (void *)3) == -ENOENT, "unknown data: -ENOENT");
	tap_ok(ust_tracepoint_probe_unregister("tp_x", F(p1), (void *)2) == -ENOENT, "unknown name: -ENOENT");
	tap_ok(ust_tracepoint_probe_unregister("tp_a", F(p0), (void *)0) == 0, "unregister one");
	fire(&site_a1, 0);
	tap_ok(hits[0] == 2 && hits[1] == 2 && hits[2] == 20, "remaining probes still called, in order");
	ust_tracepoint_unregister_sites(obj2, obj2 + 1);
	tap_ok(site_a2.enabled == 0 && site_a2.probes == NULL && site_a1.enabled == 1, "unloaded object detached, other untouched");
	tap_ok(ust_tracepoint_probe_unregister("tp_a", F(p0), (void *)1) == 0 && ust_tracepoint_probe_unregister("tp_a", F(p1), (void *)2) == 0, "unregister the rest");
	tap_ok(site_a1.enabled == 0 && site_a1.probes == NULL, "no probes: disabled, NULL array");
	tap_ok(ust_tracepoint_probe_register(NULL, F(p0), NULL) == -EINVAL && ust_tracepoint_probe_register("x", NULL, NULL) == -EINVAL, "-EINVAL for NULL");

	/* Concurrency: readers fire while probes come and go (ASan/TSan would see use-after-free). */
	ust_tracepoint_register_sites(obj2, obj2 + 1);
	for (i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, reader, NULL);
	for (i = 0; i < 2000; i++) {
		ust_tracepoint_probe_register("tp_a", F(pc), &counter);
		ust_tracepoint_probe_register("tp_a", F(p0), (void *)3);
		ust_tracepoint_probe_unregister("tp_a", F(pc), &counter);
		ust_tracepoint_probe_unregister("tp_a", F(p0), (void *)3);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	tap_ok(site_a1.probes == NULL && site_a2.probes == NULL, "after churn: no probes left");
	tap_diag("reader loops %ld, probe hits %d", calls, counter);
	ust_tracepoint_unregister_sites(obj1, obj1 + 2);
	ust_tracepoint_unregister_sites(obj2, obj2 + 1);
	tap_plan(tap_count);
	return tap_done();
}
