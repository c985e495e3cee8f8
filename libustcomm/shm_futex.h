/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Futexes on words of a buffer's shared control block (shm_layout.h):
 * the writers that wait for a free sub-buffer sleep on release_seq, the
 * consumer wakes them. The mapping is shared between processes, so these
 * are shared futexes (no FUTEX_PRIVATE_FLAG): the kernel keys them by the
 * memfd and the offset, not by the address, and ustd's and the program's
 * mappings meet there.
 */
#ifndef USTCOMM_SHM_FUTEX_H
#define USTCOMM_SHM_FUTEX_H

#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Sleeps while *word == val, at most timeout (relative). 0 when woken,
 * or -1 with errno EAGAIN (*word changed), ETIMEDOUT or EINTR. */
static inline int ust_shm_futex_wait(uint32_t *word, uint32_t val, const struct timespec *timeout)
{
	return (int)syscall(SYS_futex, word, FUTEX_WAIT, val, timeout, NULL, 0);
}

/* Wakes every sleeper on word. */
static inline void ust_shm_futex_wake_all(uint32_t *word)
{
	(void)syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

#endif
