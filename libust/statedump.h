/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The statedump: a table of the objects loaded in the process (base
 * address, size, path, build-id), kept up to date from normal contexts
 * (libust's constructor, each registering object's constructor, a
 * refresh asked for by ust_statedump_find()), and written as
 * ust_statedump:bin_info events when a trace starts and when an object
 * joins the table while a trace runs.
 *
 * The table is append-only: entries are published with a release store of
 * the count and never freed, an unloaded object's entry is marked gone, so
 * readers (trace start in signal context, ust_statedump_find() on the
 * function-tracing path) take no lock.
 */
#ifndef UST_STATEDUMP_H
#define UST_STATEDUMP_H

#include <stdint.h>

/*
 * Brings the table up to date with dl_iterate_phdr(); wait: whether to
 * wait for a refresh under way in another thread (not from a signal
 * handler). Returns 0, -EBUSY (another refresh runs), -ENOMEM.
 */
int ust_statedump_refresh(int wait);
/* Every loaded object as an event; from ust_trace_start(), under ust_lock. */
void ust_statedump_emit_all(void);

/* Where an object is loaded; gone once it is unloaded. Never freed. */
struct ust_statedump_range {
	uint64_t baddr, memsz;
	int gone;
};

/*
 * For libust-func: the range of the loaded object that holds addr,
 * refreshing the table once when no entry holds it (an object loaded
 * since, e.g. by dlopen(), which is written as an event then); NULL when
 * no object holds it. One pointer, so that a caller caches it in one
 * store, which a signal handler cannot tear. Async-signal-safe where
 * dl_iterate_phdr() is re-entrant (glibc: its lock is recursive); from a
 * signal handler that interrupted a refresh it gives up and the next call
 * retries.
 */
const struct ust_statedump_range *ust_statedump_find(const void *addr);

#endif
