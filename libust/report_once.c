/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The pairs already reported (report_once.h), as 64-bit hashes in an open
 * addressing table that doubles when half full: two different pairs share
 * a hash with a chance of about one in 2^64, which would cost one warning.
 */
#include <stdint.h>
#include <string.h>

#include "libust/report_once.h"
#include "libust/sigsafe_alloc.h"

#define REPORT_MIN	64
#define REPORT_MAX	(1u << 17)	/* slots: 65,536 pairs at half load */

static uint64_t *slots;			/* 0: free */
static uint32_t nr_slots, nr_used;

static uint64_t pair_hash(const char *text, const void *about)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */
	uintptr_t a = (uintptr_t)about;
	size_t i;

	for (; *text; text++)
		h = (h ^ (unsigned char)*text) * 0x100000001b3ULL;
	for (i = 0; i < sizeof(a); i++, a >>= 8)
		h = (h ^ (a & 0xff)) * 0x100000001b3ULL;
	return h ? h : 1;
}

/* Where h is, or the free slot where it would go. */
static uint32_t find(const uint64_t *table, uint32_t size, uint64_t h)
{
	uint32_t i = (uint32_t)h & (size - 1);

	while (table[i] && table[i] != h)
		i = (i + 1) & (size - 1);
	return i;
}

static int grow(void)
{
	uint32_t size = nr_slots ? nr_slots * 2 : REPORT_MIN, i;
	uint64_t *table;

	if (size > REPORT_MAX)
		return -1;
	table = ust_zalloc(size * sizeof(*table));
	if (!table)
		return -1;
	for (i = 0; i < nr_slots; i++) {
		if (slots[i])
			table[find(table, size, slots[i])] = slots[i];
	}
	ust_free(slots);
	slots = table;
	nr_slots = size;
	return 0;
}

int ust_report_once(const char *text, const void *about)
{
	uint64_t h = pair_hash(text, about);

	if (nr_slots && slots[find(slots, nr_slots, h)] == h)
		return 0;
	if (nr_used >= nr_slots / 2 && grow() < 0)
		return 1;
	slots[find(slots, nr_slots, h)] = h;
	nr_used++;
	return 1;
}
