/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The TSC's anchor: a TSC value and the Unix time at that moment, shared by
 * the processes of a user so that their traces map ticks to time with the
 * same numbers (clock_anchor.c).
 */
#ifndef USTCOMM_CLOCK_ANCHOR_H
#define USTCOMM_CLOCK_ANCHOR_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct ustcomm_clock_anchor {
	uint64_t khz;			/* TSC ticks per millisecond */
	uint64_t tsc_ref;		/* a TSC value ... */
	int64_t epoch_ref_ns;		/* ... the Unix time then ... */
	int64_t wall_to_mono_ns;	/* ... and CLOCK_REALTIME - CLOCK_MONOTONIC then */
};

static inline int64_t ustcomm_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The TSC, ordered after the loads before it (unlike ust_clock_read()). */
static inline uint64_t ustcomm_tsc_read_ordered(void)
{
#if defined(__x86_64__)
	__builtin_ia32_lfence();
	return __builtin_ia32_rdtsc();
#else
	return 0;
#endif
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC now, in ns: the Unix time of monotonic 0. */
int64_t ustcomm_clock_wall_offset(void);

/* Small: the clock may be chosen on a signal stack. */
#define USTCOMM_CLOCK_ANCHOR_PATH_MAX	256

/* The shared anchor's file for this user and the boot named by boot. */
int ustcomm_clock_anchor_path(char *buf, size_t len, const uint8_t boot[16]);

/*
 * Reads the shared anchor into a (whose khz the caller set and the file
 * must name). 0 when it still tells the wall-clock time, -ESTALE when it no
 * longer does (a untouched), another negative errno when there is none
 * usable.
 */
int ustcomm_clock_anchor_load(const char *path, struct ustcomm_clock_anchor *a);

/*
 * Samples a new anchor into a and puts it in the file, in place of a stale
 * or unusable one; adopts instead the one another process put there
 * meanwhile. a holds a current anchor on return even when the file could
 * not be written (the negative errno then says why).
 */
int ustcomm_clock_anchor_renew(const char *path, struct ustcomm_clock_anchor *a);

/* Whether a no longer tells the wall-clock time (clock_anchor.c). */
int ustcomm_clock_anchor_stale(const struct ustcomm_clock_anchor *a);

#endif
