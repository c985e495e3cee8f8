/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Per-thread perf counters for the perf:thread:* contexts. Each thread
 * opens its own counter (perf_event_open on itself) the first time it
 * records an event that carries it, maps the counter's first page and from
 * then on reads it in user space: rdpmc where the page allows it
 * (cap_user_rdpmc and a hardware counter scheduled), a read() of the
 * counter otherwise (software counters, counters multiplexed out, other
 * architectures). The counter and its page are released when the thread
 * exits (a pthread key's destructor) and dropped in a fork child, where the
 * page is not mapped (the kernel maps it VM_DONTCOPY).
 */
#ifndef UST_PERF_COUNTER_H
#define UST_PERF_COUNTER_H

#include <stdint.h>

/* Start-up, normal context: the key whose destructor closes a thread's
 * counters. */
void ust_perf_init(void);
/*
 * The calling thread's count of counter id, opening it on first use; 0
 * when it cannot be opened. Async-signal-safe: a handler that interrupts
 * the opening records 0 instead of opening a second counter.
 */
uint64_t ust_perf_read(int id);
/* fork() child: forgets the parent thread's counters. */
void ust_perf_after_fork_child(void);

#endif
