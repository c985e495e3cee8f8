/* SPDX-License-Identifier: LGPL-2.1-only */
/* Freeing replaced filter sets once no writer can hold them (filter_reclaim.h). */
#include <errno.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libust/filter_reclaim.h"
#include "libust/sigsafe_alloc.h"
#include "libustcomm/log.h"

/* Threads that run filters at once; more share the anonymous counter. */
#define READERS_MAX	512

struct retired {
	struct retired *next;
	void *set;
	void (*free_fn)(void *set);
	uint64_t stamp;			/* the counter after the set was replaced */
};

__thread struct ust_filter_reader *ust_filter_reader_self;
uint64_t ust_filter_gp = UST_FILTER_READER_GP_ONE | 1;
uint64_t ust_filter_anon_readers;

static struct ust_filter_reader readers[READERS_MAX];
static struct retired *retired_list;
static unsigned nr_retired;
/* 0: not tried yet, 1: membarrier works, -1: it does not (never free). */
static int membarrier_state;

static int32_t gettid_sigsafe(void)
{
	return (int32_t)syscall(SYS_gettid);
}

/* Lock-free and async-signal-safe: the first filtered event of a thread,
 * possibly in a signal handler. */
struct ust_filter_reader *ust_filter_reader_register(void)
{
	int32_t tid = gettid_sigsafe(), free_tid;
	unsigned i;

	for (i = 0; i < READERS_MAX; i++) {
		free_tid = 0;
		if (__atomic_load_n(&readers[i].tid, __ATOMIC_RELAXED) == 0 &&
		    __atomic_compare_exchange_n(&readers[i].tid, &free_tid, tid, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			ust_filter_reader_self = &readers[i];
			return &readers[i];
		}
	}
	return NULL;
}

static int membarrier_ready(void)
{
	if (!membarrier_state)
		membarrier_state = syscall(SYS_membarrier,
					   MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) == 0 ? 1 : -1;
	return membarrier_state > 0;
}

void ust_filter_retire(void *set, void (*free_fn)(void *set))
{
	struct retired *r;
	uint64_t gp;

	if (!set)
		return;
	r = ust_zalloc(sizeof(*r));
	if (!r)
		return;		/* out of memory: the set stays allocated, as it must be safe */
	gp = __atomic_load_n(&ust_filter_gp, __ATOMIC_RELAXED) + UST_FILTER_READER_GP_ONE;
	/* Release: pairs with the acquire load in ust_filter_read_lock(); a
	 * reader that sees this value sees the set that replaced this one. */
	__atomic_store_n(&ust_filter_gp, gp, __ATOMIC_RELEASE);
	r->set = set;
	r->free_fn = free_fn;
	r->stamp = gp;
	r->next = retired_list;
	retired_list = r;
	nr_retired++;
}

/* The slot of a thread that exited is free again (its word is 0: a thread
 * does not exit inside a filter). */
static void sweep_dead_readers(void)
{
	pid_t pid = getpid();
	unsigned i;

	for (i = 0; i < READERS_MAX; i++) {
		int32_t tid = __atomic_load_n(&readers[i].tid, __ATOMIC_RELAXED);

		if (tid && syscall(SYS_tgkill, pid, tid, 0) < 0 && errno == ESRCH) {
			__atomic_store_n(&readers[i].ctr, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&readers[i].tid, 0, __ATOMIC_RELEASE);
		}
	}
}

/* The oldest counter value a reader inside a section read: sets retired
 * with a later stamp may still be held. UINT64_MAX: nobody is inside. */
static uint64_t oldest_reader(void)
{
	uint64_t oldest = UINT64_MAX;
	unsigned i;

	for (i = 0; i < READERS_MAX; i++) {
		/* Acquire: pairs with the release store in ust_filter_read_unlock(). */
		uint64_t c = __atomic_load_n(&readers[i].ctr, __ATOMIC_ACQUIRE);

		if ((c & UST_FILTER_READER_NEST_MASK) && c < oldest)
			oldest = c;
	}
	return oldest;
}

void ust_filter_reclaim(void)
{
	struct retired **p, *r;
	uint64_t oldest;
	int saved_errno = errno;

	if (!retired_list || !membarrier_ready())
		goto end;
	/* Pairs with the compiler barrier in ust_filter_read_lock(). */
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0) < 0)
		goto end;
	sweep_dead_readers();
	if (__atomic_load_n(&ust_filter_anon_readers, __ATOMIC_ACQUIRE))
		goto end;
	oldest = oldest_reader();
	/* A reader whose word is c entered with counter c & ~NEST: it may hold
	 * every set retired with a later stamp, and none retired before. */
	p = &retired_list;
	while ((r = *p) != NULL) {
		if (oldest == UINT64_MAX ||
		    (r->stamp | UST_FILTER_READER_NEST_MASK) <= (oldest | UST_FILTER_READER_NEST_MASK)) {
			*p = r->next;
			r->free_fn(r->set);
			ust_free(r);
			nr_retired--;
		} else {
			p = &r->next;
		}
	}
end:
	errno = saved_errno;
}

unsigned ust_filter_retired_count(void)
{
	return nr_retired;
}

void ust_filter_reclaim_after_fork_child(void)
{
	struct ust_filter_reader *self = ust_filter_reader_self;
	unsigned i;

	for (i = 0; i < READERS_MAX; i++) {
		if (&readers[i] == self) {
			readers[i].tid = gettid_sigsafe();
			continue;
		}
		readers[i].ctr = 0;
		readers[i].tid = 0;
	}
	/* membarrier registration is per process (mm): the child registers anew. */
	membarrier_state = 0;
}
