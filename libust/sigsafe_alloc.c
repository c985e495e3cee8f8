/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Power-of-two size classes carved from 64 KiB chunks, each with a free
 * list; larger blocks get a mapping of their own. Chunks are never given
 * back: the control path allocates little (channel and binding records,
 * rule patterns, connection buffers) and reuses what it frees.
 *
 * Async-signal-safe: mmap(), munmap() and plain memory accesses, under
 * ust_lock() only.
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "libust/lock.h"
#include "libust/sigsafe_alloc.h"

#define MIN_SHIFT	5		/* 32 bytes, header included */
#define MAX_SHIFT	12		/* 4 KiB: above, a mapping per block */
#define CHUNK_SIZE	(64u * 1024)
#define HDR_SIZE	16u		/* keeps blocks 16-byte aligned */

struct block_hdr {
	size_t size;			/* whole block, header included */
	size_t pad;
};

struct free_block {
	struct free_block *next;
};

static struct free_block *free_lists[MAX_SHIFT + 1];
static char *chunk_pos, *chunk_end;

static unsigned size_class(size_t need)
{
	unsigned shift = MIN_SHIFT;

	while (((size_t)1 << shift) < need)
		shift++;
	return shift;
}

static void *carve(size_t size)
{
	void *p;

	if (!chunk_pos || (size_t)(chunk_end - chunk_pos) < size) {
		/* The rest of the old chunk is too small for this class; it stays unused. */
		p = mmap(NULL, CHUNK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		chunk_pos = p;
		chunk_end = chunk_pos + CHUNK_SIZE;
	}
	p = chunk_pos;
	chunk_pos += size;
	return p;
}

void *ust_zalloc(size_t size)
{
	struct block_hdr *hdr;
	size_t need;
	unsigned shift;

	if (size > SIZE_MAX / 2)
		return NULL;
	need = size + HDR_SIZE;
	if (need > ((size_t)1 << MAX_SHIFT)) {
		need = (need + 4095) & ~(size_t)4095;
		hdr = mmap(NULL, need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (hdr == MAP_FAILED)
			return NULL;
		hdr->size = need;
		return (char *)hdr + HDR_SIZE;
	}
	shift = size_class(need);
	if (free_lists[shift]) {
		hdr = (struct block_hdr *)free_lists[shift];
		free_lists[shift] = free_lists[shift]->next;
		memset(hdr, 0, (size_t)1 << shift);
	} else {
		/* Fresh anonymous memory is zero-filled already. */
		hdr = carve((size_t)1 << shift);
		if (!hdr)
			return NULL;
	}
	hdr->size = (size_t)1 << shift;
	return (char *)hdr + HDR_SIZE;
}

void ust_free(void *p)
{
	struct block_hdr *hdr;
	struct free_block *fb;
	unsigned shift;

	if (!p)
		return;
	hdr = (struct block_hdr *)((char *)p - HDR_SIZE);
	if (hdr->size > ((size_t)1 << MAX_SHIFT)) {
		munmap(hdr, hdr->size);
		return;
	}
	shift = size_class(hdr->size);
	fb = (struct free_block *)hdr;
	fb->next = free_lists[shift];
	free_lists[shift] = fb;
}

char *ust_strdup(const char *s)
{
	size_t len = strlen(s) + 1;
	char *d = ust_zalloc(len);

	if (d)
		memcpy(d, s, len);
	return d;
}
