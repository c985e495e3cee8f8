/* SPDX-License-Identifier: LGPL-2.1-only */
/* Connecting the tracepoint sites of an object as it registers and unregisters (called by objects.c). */
#ifndef UST_TRACEPOINT_INTERNAL_H
#define UST_TRACEPOINT_INTERNAL_H

#include <ust/core.h>

/* Connects the sites in [start, stop) to the probes registered for their names. 0 or -ENOMEM. */
int ust_tracepoint_register_sites(struct ust_tracepoint *const *start,
				  struct ust_tracepoint *const *stop);
/* Detaches the sites of a range given to ust_tracepoint_register_sites(). */
void ust_tracepoint_unregister_sites(struct ust_tracepoint *const *start,
				     struct ust_tracepoint *const *stop);
/*
 * Disconnects every probe whose function is in the object loaded at owner
 * (dladdr()'s dli_fbase) and returns after a grace period, when no thread
 * runs one any more. Called without ust_lock held: the control signal
 * handler, which takes ust_lock, may interrupt a reader in its read-side
 * section, which would then never end.
 */
void ust_tracepoint_unregister_probes_of(const void *owner);

/* fork(): held across it, so that the child finds the probe lists whole
 * and the mutex free. Taken after ust_lock(), as registration does. */
void ust_tracepoint_fork_lock(void);
void ust_tracepoint_fork_unlock(void);

#endif
