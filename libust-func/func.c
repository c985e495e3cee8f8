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
#include "config.h"

#include <stdint.h>

#include "libust/statedump.h"

#define UST_CREATE_PROBES
#include "libust-func/func_tp.h"

#define UST_FUNC_HOOK	__attribute__((no_instrument_function, visibility("default")))

#ifdef UST_LIBC_CYG_VERSION
/*
 * An object built with -finstrument-functions but linked without
 * libust-func (a plugin built with `gcc -shared -fPIC
 * -finstrument-functions`) was linked against the C library, whose empty
 * stubs define the hooks: its references carry the C library's version
 * (GLIBC_2.2.5 on x86-64). The dynamic linker matches a versioned
 * reference by the version's name, not by the object that gave it, so the
 * hooks are exported under that version too, and catch those references
 * wherever libust-func comes before the C library in the lookup order (the
 * program links it, or it is preloaded). Both versions name one function:
 * two .symver of one definition (a second definition aliased to the
 * first would be merged with it by the linker, leaving one version).
 */
#define UST_FUNC_ENTER	ust_func_enter
#define UST_FUNC_EXIT	ust_func_exit
__asm__(".symver ust_func_enter, __cyg_profile_func_enter@@LIBUST_FUNC_1");
__asm__(".symver ust_func_enter, __cyg_profile_func_enter@" UST_LIBC_CYG_VERSION);
__asm__(".symver ust_func_exit, __cyg_profile_func_exit@@LIBUST_FUNC_1");
__asm__(".symver ust_func_exit, __cyg_profile_func_exit@" UST_LIBC_CYG_VERSION);
#else
#define UST_FUNC_ENTER	__cyg_profile_func_enter
#define UST_FUNC_EXIT	__cyg_profile_func_exit
#endif

void UST_FUNC_ENTER(void *func, void *call_site) UST_FUNC_HOOK;
void UST_FUNC_EXIT(void *func, void *call_site) UST_FUNC_HOOK;

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

void UST_FUNC_ENTER(void *func, void *call_site)
{
	if (ust_unlikely(ust_site_enabled(__ust_event_ust_func___entry.enabled))) {
		note_object(func);
		__ust_probe_ust_func___entry(func, call_site);
	}
}

void UST_FUNC_EXIT(void *func, void *call_site)
{
	if (ust_unlikely(ust_site_enabled(__ust_event_ust_func___exit.enabled))) {
		note_object(func);
		__ust_probe_ust_func___exit(func, call_site);
	}
}

