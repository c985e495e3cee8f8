/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * What libust-func records, as uftrace record's filters: only the calls
 * of some functions and their subtrees (-F), none of some others' (-N),
 * to a depth (-D), only those lasting a time (-t). Read once at start
 * from UST_FUNC_RECORD, one setting a line: "F NAME", "N NAME", "D DEPTH",
 * "T NANOSECONDS" (usttrace --func-filter, --func-exclude, --func-depth,
 * --func-time). Names are resolved to addresses when
 * the program starts (func_symbols.h): functions of objects loaded later
 * are not found.
 */
#ifndef UST_FUNC_RECORD_H
#define UST_FUNC_RECORD_H

#include <stdint.h>

/* Nonzero when a filter is set: the hooks then ask the two below. */
extern int ust_func_record_on __attribute__((visibility("hidden")));

/*
 * Whether to write the entry of func now, and the exit that follows the
 * entry; each call of the thread must go through both, in order. With a
 * time, entries are kept, and the exit of a call that lasted long enough
 * first hands the entries not written yet, its callers' and its own, to
 * write_at, outermost first: a caller lasts longer than its callee.
 * Async-signal-safe: per-thread state in initial-exec TLS, read-only
 * tables.
 */
typedef void (*ust_func_write_at)(uintptr_t func, uint64_t start);
int ust_func_record_entry(uintptr_t func) __attribute__((visibility("hidden")));
int ust_func_record_exit(ust_func_write_at write_at) __attribute__((visibility("hidden")));

/* Reads UST_FUNC_RECORD; normal context, once. */
void ust_func_record_init(void) __attribute__((visibility("hidden")));

#endif
