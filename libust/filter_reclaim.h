/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * When an event's filter set (filter.h) may be freed: a reclamation scheme
 * of the RCU kind, confined to the filtered path so that unfiltered events
 * pay nothing.
 *
 * A writer that runs an event's filters enters a read-side section first
 * and leaves it after the last program ran. Each thread has a reader slot
 * (claimed from a fixed pool on its first filtered event) holding one
 * word: the nesting count in its low bits and, while the count is not 0,
 * the grace-period counter it read on entering. A set replaced under
 * ust_lock is retired with the counter value after the replacement; it is
 * freed once every slot is outside a section or entered it with that value
 * or later (it then loaded the new set).
 *
 * Ordering: the reader stores its word, then loads ev->filters, with only
 * a compiler barrier between; the updater publishes the new set, advances
 * the counter, then calls membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED),
 * which makes that barrier a full fence in every running thread, before
 * it reads the slots. Without membarrier nothing is ever freed (as before
 * this scheme: a few hundred bytes per event and rule change).
 *
 * The read side is async-signal-safe and lock-free: a signal handler that
 * traces nests inside the section it interrupted (the word is written with
 * single stores, and a nested section leaves it as it found it). A thread
 * that finds the pool full counts itself in one shared atomic counter
 * instead, which holds back every retired set while it is not 0.
 */
#ifndef UST_FILTER_RECLAIM_H
#define UST_FILTER_RECLAIM_H

#include <stdint.h>
#include <ust/core.h>

#define UST_FILTER_READER_NEST_MASK	0xffffull
#define UST_FILTER_READER_GP_ONE	0x10000ull

struct ust_filter_reader {
	uint64_t ctr;
	int32_t tid;			/* owner; 0: free slot */
} __attribute__((aligned(64)));

extern __thread struct ust_filter_reader *ust_filter_reader_self
	__attribute__((tls_model("initial-exec"), visibility("hidden")));
/* The grace-period counter, low bits 1 (a reader's word with nesting 1). */
extern uint64_t ust_filter_gp __attribute__((visibility("hidden")));
extern uint64_t ust_filter_anon_readers __attribute__((visibility("hidden")));

/* The calling thread's slot, claimed now; NULL when the pool is full. */
struct ust_filter_reader *ust_filter_reader_register(void) __attribute__((visibility("hidden")));

static inline struct ust_filter_reader *ust_filter_read_lock(void)
{
	struct ust_filter_reader *r = ust_filter_reader_self;
	uint64_t c;

	if (ust_unlikely(!r)) {
		r = ust_filter_reader_register();
		if (!r) {
			/* Full fence: the count is visible before the set is loaded. */
			__atomic_add_fetch(&ust_filter_anon_readers, 1, __ATOMIC_SEQ_CST);
			return NULL;
		}
	}
	c = __atomic_load_n(&r->ctr, __ATOMIC_RELAXED);
	if (!(c & UST_FILTER_READER_NEST_MASK))
		/* Acquire: pairs with the release store in ust_filter_retire(). */
		c = __atomic_load_n(&ust_filter_gp, __ATOMIC_ACQUIRE);
	else
		c++;
	__atomic_store_n(&r->ctr, c, __ATOMIC_RELAXED);
	/* Made a full fence by the updater's membarrier (ust_filter_reclaim()). */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return r;
}

static inline void ust_filter_read_unlock(struct ust_filter_reader *r)
{
	if (ust_unlikely(!r)) {
		__atomic_sub_fetch(&ust_filter_anon_readers, 1, __ATOMIC_RELEASE);
		return;
	}
	/* Release: the set's last read happens before the updater sees us leave. */
	__atomic_store_n(&r->ctr, __atomic_load_n(&r->ctr, __ATOMIC_RELAXED) - 1,
			 __ATOMIC_RELEASE);
}

/*
 * Under ust_lock. Retire takes what a replaced set owns (block and the
 * blocks it points to, freed with free_fn) and frees it later; reclaim
 * frees what no reader can hold any more. Both async-signal-safe.
 */
void ust_filter_retire(void *set, void (*free_fn)(void *set));
void ust_filter_reclaim(void);
/* How many retired sets wait (for tests and messages). */
unsigned ust_filter_retired_count(void);
/* fork() child: its one thread keeps its slot, every other slot is free. */
void ust_filter_reclaim_after_fork_child(void);

#endif
