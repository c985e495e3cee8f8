/* SPDX-License-Identifier: LGPL-2.1-only */
/* The holder's side of a thread buffer (shm_thread.h). */
#include <errno.h>
#include <sched.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>

#include "libustcomm/clock.h"
#include "libustcomm/shm_thread.h"

USTCOMM_API int ust_shm_thread_register(void)
{
	return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0) < 0 ?
		-errno : 0;
}

USTCOMM_API int ust_shm_thread_hold(struct ust_shm_ctl *ctl, uint64_t wait_ns)
{
	uint64_t deadline = ust_clock_read_kind(0) + wait_ns;
	uint32_t free_req;
	int ret;

	/* One holder at a time: ustd's flush and the application's may meet. */
	for (;;) {
		free_req = 0;
		if (__atomic_compare_exchange_n(&ctl->flush_req, &free_req, 1, 0,
						__ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			break;
		if (ust_clock_read_kind(0) >= deadline)
			return -EBUSY;
		sched_yield();
	}
	/*
	 * The writer stores thread_busy and then loads flush_req with no
	 * barrier between (libust/thread_buffer.h): this gives every thread
	 * of the writing process one, after our store of flush_req (the
	 * exchange above is a full barrier) and before our load of
	 * thread_busy (the system call is one). A writer interrupted by it
	 * before its store of thread_busy loads flush_req after it and sees
	 * 1; one interrupted after has its 1 visible to our load below.
	 */
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0) < 0) {
		ret = -errno;
		goto release;
	}
	/* Acquire: pairs with the writer's release store of 0, so every
	 * byte and count of its last write is visible to us. */
	while (__atomic_load_n(&ctl->thread_busy, __ATOMIC_ACQUIRE)) {
		if (ust_clock_read_kind(0) >= deadline) {
			ret = -EBUSY;
			goto release;
		}
		sched_yield();
	}
	return 0;
release:
	ust_shm_thread_release(ctl);
	return ret;
}

USTCOMM_API void ust_shm_thread_release(struct ust_shm_ctl *ctl)
{
	/* Release: what the holder wrote is visible to the writer that sees
	 * 0; pairs with its acquire load of flush_req. */
	__atomic_store_n(&ctl->flush_req, 0, __ATOMIC_RELEASE);
}
