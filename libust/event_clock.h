/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The clock of the events' timestamps, for writers that put a time of
 * their own in a payload (libust-func's ust_func:entry_at): the same
 * ticks, which a reader converts as it converts timestamps (the trace's
 * clock class). Async-signal-safe once ust_event_clock_ticks() was called
 * from a normal context.
 */
#ifndef UST_EVENT_CLOCK_H
#define UST_EVENT_CLOCK_H

#include <stdint.h>

/* The clock now, ordered after the instructions before it. */
uint64_t ust_event_clock_read(void);
/* ns in ticks of that clock; normal context (chooses the clock). */
uint64_t ust_event_clock_ticks(uint64_t ns);

#endif
