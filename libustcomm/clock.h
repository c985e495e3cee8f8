/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The trace clock. Read on every event by the writer, described once in the
 * metadata so readers map it to nanoseconds and to wall-clock time.
 *
 * Two clocks, chosen once per process by ustcomm_clock_describe() before
 * the first event, the same way in every process of one boot:
 *  - the TSC, when it is invariant (constant_tsc and nonstop_tsc), the
 *    kernel itself keeps time with it (clocksource tsc, or kvm-clock that
 *    the host marks stable: pvclock.h), its frequency is known and the per-boot calibration can be shared (clock.c);
 *  - CLOCK_MONOTONIC in nanoseconds through the vDSO otherwise, or when
 *    UST_CLOCK=monotonic.
 */
#ifndef USTCOMM_CLOCK_H
#define USTCOMM_CLOCK_H

#include <stdint.h>
#include <time.h>
#include "libustcomm/common.h"

/* Non-zero once ustcomm_clock_describe() chose the TSC; never changes after. */
USTCOMM_API extern int ustcomm_clock_use_tsc;

static inline uint64_t ust_clock_read(void)
{
	struct timespec ts;

#if defined(__x86_64__)
	if (__builtin_expect(ustcomm_clock_use_tsc, 1)) {
		/*
		 * Deliberately not ordered: rdtsc may execute before the
		 * loads that precede it or after later instructions. An
		 * lfence would order it, as the kernel's rdtsc_ordered()
		 * does, but doubles the cost (about 19 ns against 10 here).
		 * The ring buffer does not need the order: it clamps each
		 * time to the previous one of the stream (ring_buffer.c). A
		 * caller that compares these times with other events must
		 * fence around the call itself.
		 */
		return __builtin_ia32_rdtsc();
	}
#endif
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Whether ust_clock_read() is one instruction with no call: the TSC. The
 * writer's inline path (libust/ring_buffer.h) takes it only then, so that
 * it calls nothing and keeps no register across a call.
 */
static inline int ust_clock_is_tsc(void)
{
#if defined(__x86_64__)
	return __builtin_expect(ustcomm_clock_use_tsc, 1);
#else
	return 0;
#endif
}

/* A time of the clock another process of this boot reads: the TSC when
 * tsc, else CLOCK_MONOTONIC in nanoseconds (ustd, closing an application's
 * packet; every deadline and interval of ours). Async-signal-safe: rdtsc,
 * or clock_gettime(), which POSIX.1-2008 lists as such. */
static inline uint64_t ust_clock_read_kind(int tsc)
{
	struct timespec ts;

#if defined(__x86_64__)
	if (tsc)
		return __builtin_ia32_rdtsc();
#else
	(void)tsc;
#endif
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct ustcomm_clock_desc {
	const char *name;		/* CTF clock name, an identifier */
	const char *description;
	uint64_t freq;			/* ticks per second */
	int64_t offset_s;		/* Unix time of tick 0: seconds ... */
	uint64_t offset;		/* ... plus ticks */
	uint8_t uuid[16];		/* identifies the clock across traces */
};

/*
 * Chooses the clock (first call only) and describes ust_clock_read(): its
 * frequency and the Unix time of its tick 0.
 */
USTCOMM_API int ustcomm_clock_describe(struct ustcomm_clock_desc *desc);

#endif
