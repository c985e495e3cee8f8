/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Holding a thread buffer (shm_layout.h, UST_SHM_FLAG_THREAD) against its
 * one writer, who writes it with plain stores: what a flush does first,
 * in the application (libust/ring_buffer.c) or in ustd (consumer.c). The
 * writer's side is libust/thread_buffer.h. Async-signal-safe: atomics and
 * system calls only.
 */
#ifndef USTCOMM_SHM_THREAD_H
#define USTCOMM_SHM_THREAD_H

#include <stdint.h>
#include "libustcomm/common.h"
#include "libustcomm/shm_layout.h"

/*
 * Makes the calling process one whose thread buffers can be held: its
 * threads then pass a full barrier whenever anyone holds one. Once per
 * process (and again in a fork child), before it makes thread buffers;
 * 0, or a negative errno (a kernel without membarrier's global expedited
 * command: no thread buffers).
 */
USTCOMM_API int ust_shm_thread_register(void);

/*
 * Holds the buffer: on 0, its writer is outside any write and stays out
 * (it writes elsewhere) until ust_shm_thread_release(), so the holder may
 * move the position as a writer would. -EBUSY when the writer stayed
 * inside a write (it waits for room, or is stopped) or another holder kept
 * it for wait_ns nanoseconds; another negative errno when membarrier
 * fails. Never call it from the writer's own thread while it writes.
 */
USTCOMM_API int ust_shm_thread_hold(struct ust_shm_ctl *ctl, uint64_t wait_ns);
USTCOMM_API void ust_shm_thread_release(struct ust_shm_ctl *ctl);

#endif
