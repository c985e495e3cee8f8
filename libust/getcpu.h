/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The CPU the calling thread runs on, to pick its per-CPU stream buffer.
 *
 * The answer may be stale as soon as it is read: the thread can migrate
 * right after. That is harmless: every buffer accepts writers from any CPU
 * (the reservation is a cmpxchg, not a per-CPU critical section), so a
 * migrated writer merely records its event into the buffer of the CPU it
 * left. The result can exceed the number of buffers a channel allocated
 * (CPU hotplug); callers bound it.
 *
 * Async-signal-safe: a load from the thread's rseq area, or the vDSO getcpu.
 */
#ifndef UST_GETCPU_H
#define UST_GETCPU_H

#include <sched.h>
#include <stdint.h>

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
#include <sys/rseq.h>
#define UST_HAVE_GLIBC_RSEQ 1
#endif

/*
 * The CPU from the thread's rseq area, or -1 when there is none: glibc
 * registered one for this thread and the kernel keeps cpu_id current on
 * every return to user space, so one load answers. __rseq_size is 0 when
 * the registration failed (old kernel, GLIBC_TUNABLES=glibc.pthread.rseq=0,
 * valgrind); cpu_id is negative until the kernel first fills it. The event
 * path takes ust_getcpu() when this fails: no call here keeps the path
 * free of saved registers.
 */
static inline int ust_getcpu_rseq(void)
{
#ifdef UST_HAVE_GLIBC_RSEQ
	if (__rseq_size > 0) {
		const struct rseq *rs = (const struct rseq *)
			((char *)__builtin_thread_pointer() + __rseq_offset);

		return (int32_t)__atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED);
	}
#endif
	return -1;
}

static inline int ust_getcpu(void)
{
	int cpu = ust_getcpu_rseq();

	if (cpu >= 0)
		return cpu;
	cpu = sched_getcpu();
	return cpu >= 0 ? cpu : 0;
}

#endif
