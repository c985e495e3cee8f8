/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The trace clock. Read on every event by the writer, described once in the
 * metadata so readers map it to nanoseconds and to wall-clock time.
 */
#ifndef USTCOMM_CLOCK_H
#define USTCOMM_CLOCK_H

#include <stdint.h>
#include <time.h>
#include "libustcomm/common.h"

/* CLOCK_MONOTONIC in nanoseconds, through the vDSO. */
static inline uint64_t ust_clock_read(void)
{
	struct timespec ts;

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

/* Describes ust_clock_read(): samples the wall clock against it. */
USTCOMM_API int ustcomm_clock_describe(struct ustcomm_clock_desc *desc);

#endif
