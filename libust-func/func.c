/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * libust-func: the hooks that gcc and clang call at every function's entry
 * and exit in code built with -finstrument-functions, as the events
 * ust_func:entry and ust_func:exit (func_tp.h), enabled and filtered like
 * any other.
 *
 * Disabled, a hook costs a call, one load and one branch. Enabled, it also
 * makes sure that the object holding the function is in the statedump
 * (libust/statedump.h), so that a reader can name it: a per-thread cache
 * of that object's range keeps this at two compares per call.
 *
 * Async-signal-safe and thread-safe: the event write path is (DESIGN.md,
 * "Buffers"), the cache is one thread-local pointer stored in one
 * instruction, and ust_statedump_find() says when it is.
 */
#include <stdint.h>

#include "libust/statedump.h"

#define UST_CREATE_PROBES
#include "libust-func/func_tp.h"

#define UST_FUNC_HOOK	__attribute__((no_instrument_function, visibility("default")))

void __cyg_profile_func_enter(void *func, void *call_site) UST_FUNC_HOOK;
void __cyg_profile_func_exit(void *func, void *call_site) UST_FUNC_HOOK;

/* initial-exec: no allocation on first use, so usable in a signal handler. */
static __thread const struct ust_statedump_range *known
	__attribute__((tls_model("initial-exec")));

static inline __attribute__((no_instrument_function, always_inline))
void note_object(const void *func)
{
	const struct ust_statedump_range *r = known;

	if (ust_likely(r && (uintptr_t)func - r->baddr < r->memsz &&
		       !__atomic_load_n(&r->gone, __ATOMIC_RELAXED)))
		return;
	r = ust_statedump_find(func);
	if (r)
		known = r;
}

void __cyg_profile_func_enter(void *func, void *call_site)
{
	if (ust_unlikely(ust_site_enabled(__ust_event_ust_func___entry.enabled))) {
		note_object(func);
		__ust_probe_ust_func___entry(func, call_site);
	}
}

void __cyg_profile_func_exit(void *func, void *call_site)
{
	if (ust_unlikely(ust_site_enabled(__ust_event_ust_func___exit.enabled))) {
		note_object(func);
		__ust_probe_ust_func___exit(func, call_site);
	}
}
