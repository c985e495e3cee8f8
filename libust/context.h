/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * What an event knows about the thread that fires it: the values filters
 * read as $ctx.NAME, and the contexts channels record with each event. Each is a load of a cached value; the thread id is
 * cached per thread on its first use, the process id once per process.
 * Async-signal-safe: a signal handler that fills the cache stores the
 * same value the interrupted code would have.
 */
#ifndef UST_CONTEXT_H
#define UST_CONTEXT_H

#include <stdint.h>
#include "libustcomm/event_context.h"

int32_t ust_ctx_vtid(void);
int32_t ust_ctx_vpid(void);
/* The process name, 16 bytes at most, NUL-terminated. */
const char *ust_ctx_procname(void);

/*
 * Writes the values of the contexts of set at p (ustcomm_ctx_set_size()
 * bytes), ip being the instrumented call's address. Async-signal-safe:
 * loads of cached values, pthread_self(), and the perf counters'
 * reads (perf_counter.h).
 */
void ust_ctx_record(const struct ustcomm_ctx_set *set, char *p, const void *ip);

/* Start-up: the name the trace uses (ust_trace_config.procname). */
void ust_ctx_init(const char *procname);
/* fork() child: its pid and its one thread's id are new. */
void ust_ctx_after_fork_child(void);

#endif
