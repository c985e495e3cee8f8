/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Pointer-keyed hash map (open addressing, linear probing), for the
 * per-event lookups of the sinks: an event class or a track to its state.
 * Entries are never removed; the map holds as many as the trace has classes
 * or tracks, not events.
 */
#ifndef UST_BT2_PTRMAP_H
#define UST_BT2_PTRMAP_H

#include <stddef.h>
#include <stdint.h>

struct ust_ptrmap {
	struct ust_ptrmap_slot {
		uintptr_t key;		/* 0: empty */
		void *value;
	} *slots;
	size_t nr, cap;			/* cap: a power of two */
};

void *ust_ptrmap_get(const struct ust_ptrmap *m, uintptr_t key);
/* Returns 0 or -ENOMEM; key must not be 0 nor already present. */
int ust_ptrmap_put(struct ust_ptrmap *m, uintptr_t key, void *value);
/* Calls free_value on every value, then frees the table. */
void ust_ptrmap_fini(struct ust_ptrmap *m, void (*free_value)(void *));

#endif
