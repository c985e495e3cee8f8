/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Memory for the control path, which runs in a signal handler: malloc()
 * there could deadlock on the allocator lock of the code it interrupted.
 * These take memory from mmap() instead. Only under ust_lock(), which keeps
 * the control signal blocked in its holder, so they need no lock of their
 * own (see lock.c).
 */
#ifndef UST_SIGSAFE_ALLOC_H
#define UST_SIGSAFE_ALLOC_H

#include <stddef.h>

/* Zero-filled; NULL when out of memory. */
void *ust_zalloc(size_t size);
void ust_free(void *p);
char *ust_strdup(const char *s);

#endif
