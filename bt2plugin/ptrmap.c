/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <stdlib.h>

#include "bt2plugin/ptrmap.h"

static size_t slot_of(uintptr_t key, size_t cap)
{
	/* Fibonacci hashing: pointers share their low bits (alignment). */
	return (size_t)(((uint64_t)key * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

void *ust_ptrmap_get(const struct ust_ptrmap *m, uintptr_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = slot_of(key, m->cap); m->slots[i].key; i = (i + 1) & (m->cap - 1))
		if (m->slots[i].key == key)
			return m->slots[i].value;
	return NULL;
}

static void place(struct ust_ptrmap_slot *slots, size_t cap, uintptr_t key, void *value)
{
	size_t i = slot_of(key, cap);

	while (slots[i].key)
		i = (i + 1) & (cap - 1);
	slots[i].key = key;
	slots[i].value = value;
}

int ust_ptrmap_put(struct ust_ptrmap *m, uintptr_t key, void *value)
{
	/* Kept at most half full so that probes stay short. */
	if (2 * (m->nr + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16, i;
		struct ust_ptrmap_slot *slots = calloc(cap, sizeof(*slots));

		if (!slots)
			return -ENOMEM;
		for (i = 0; i < m->cap; i++)
			if (m->slots[i].key)
				place(slots, cap, m->slots[i].key, m->slots[i].value);
		free(m->slots);
		m->slots = slots;
		m->cap = cap;
	}
	place(m->slots, m->cap, key, value);
	m->nr++;
	return 0;
}

void ust_ptrmap_fini(struct ust_ptrmap *m, void (*free_value)(void *))
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		if (m->slots[i].key && free_value)
			free_value(m->slots[i].value);
	free(m->slots);
	m->slots = NULL;
	m->nr = m->cap = 0;
}
