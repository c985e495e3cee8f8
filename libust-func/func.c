/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * libust-func: the hooks that gcc and clang call at every function's entry
 * and exit in code built with -finstrument-functions, as the events of
 * func_tp.h: the short forms (entry_cont, exit_cont) when the thread's
 * chain in the stream allows (libust/event_chain.h), else the long ones;
 * enabled and filtered like any other, and chosen at record time by
 * func_record.h when usttrace asks.
 *
 * Disabled, a hook costs a call, one load and one branch. Enabled, it also
 * makes sure that the object holding the function is in the statedump
 * (libust/statedump.h), so that a reader can name it: a per-thread cache
 * of that object's range keeps this at two compares per call.
 *
 * Async-signal-safe and thread-safe: the event write path is (DESIGN.md,
 * "Buffers"), the cache is one thread-local pointer stored in one
 * instruction, and ust_statedump_find() says when it is; the chain is
 * (libust/rb_chain.h), and so is func_record.h.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libust-func/func_calls.h"
#include "libust-func/func_record.h"
#include "libust/event_chain.h"
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

/* This thread's chain of events (libust/rb_chain.h) and its id, cached. */
static __thread struct ust_rb_chain chain __attribute__((tls_model("initial-exec")));
static __thread uint32_t cached_tid __attribute__((tls_model("initial-exec")));

#define UST_FUNC_SLOW	(UST_SITE_FILTERED | UST_SITE_TRIGGER)
/* The long exit's key: never an address's upper half, so an entry after
 * it is long too and gives the reader the upper half. */
#define UST_FUNC_KEY_NONE	(UINT64_MAX - 1)

static __attribute__((no_instrument_function)) uint32_t func_tid(void)
{
	if (ust_unlikely(!cached_tid))
		cached_tid = (uint32_t)syscall(SYS_gettid);
	return cached_tid;
}

/* The child of fork() is another thread; its buffers are new, so is its chain. */
static __attribute__((no_instrument_function)) void forget_tid(void)
{
	cached_tid = 0;
}

static __attribute__((no_instrument_function, constructor)) void func_init(void)
{
	pthread_atfork(NULL, NULL, forget_tid);
	ust_func_record_init();
}

static inline __attribute__((no_instrument_function, always_inline))
char *put_u32(char *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
	return p + sizeof(v);
}

static __attribute__((no_instrument_function, noinline)) void write_entry(const void *func)
{
	uint64_t addr = (uintptr_t)func;
	const struct ust_chain_form brief = {
		&__ust_event_ust_func___entry_cont, sizeof(uint32_t), addr >> 32 };
	const struct ust_chain_form full = {
		&__ust_event_ust_func___entry, sizeof(uint32_t) + sizeof(addr), addr >> 32 };
	uint32_t lo = (uint32_t)addr;
	char whole[sizeof(uint32_t) + sizeof(addr)];

	/* Filters and triggers see the long form, which has every field. */
	if (ust_unlikely((ust_site_enabled(__ust_event_ust_func___entry.enabled) |
			  ust_site_enabled(__ust_event_ust_func___entry_cont.enabled)) &
			 UST_FUNC_SLOW)) {
		__ust_probe_ust_func___entry(func_tid(), (void *)func);
		return;
	}
	memcpy(put_u32(whole, func_tid()), &addr, sizeof(addr));
	ust_event_write_chained(&chain, &brief, &lo, &full, whole);
}

static __attribute__((no_instrument_function, noinline)) void write_exit(void)
{
	static const struct ust_chain_form brief = {
		&__ust_event_ust_func___exit_cont, 0, UST_RB_KEY_ANY };
	static const struct ust_chain_form full = {
		&__ust_event_ust_func___exit, sizeof(uint32_t), UST_FUNC_KEY_NONE };
	uint32_t tid;

	if (ust_unlikely((ust_site_enabled(__ust_event_ust_func___exit.enabled) |
			  ust_site_enabled(__ust_event_ust_func___exit_cont.enabled)) &
			 UST_FUNC_SLOW)) {
		__ust_probe_ust_func___exit(func_tid());
		return;
	}
	tid = func_tid();
	ust_event_write_chained(&chain, &brief, NULL, &full, &tid);
}

/* An entry written at its call's exit (func_record.h), with its time. */
static __attribute__((no_instrument_function)) void write_entry_at(uintptr_t func,
								    uint64_t start)
{
	note_object((const void *)func);
	__ust_probe_ust_func___entry_at(func_tid(), (void *)func, start);
}

/* The hooks' work, shared with the library calls of func_calls.h. */
static inline __attribute__((no_instrument_function, always_inline)) void enter(void *func)
{
	if (ust_unlikely(ust_site_enabled(__ust_event_ust_func___entry.enabled))) {
		/* One load and branch more, only when tracing functions. */
		if (ust_unlikely(ust_func_record_on) && !ust_func_record_entry((uintptr_t)func))
			return;
		note_object(func);
		write_entry(func);
	}
}

static inline __attribute__((no_instrument_function, always_inline)) void leave(void)
{
	if (ust_unlikely(ust_site_enabled(__ust_event_ust_func___exit.enabled))) {
		if (ust_unlikely(ust_func_record_on) && !ust_func_record_exit(write_entry_at))
			return;
		write_exit();
	}
}

void UST_FUNC_ENTER(void *func, void *call_site)
{
	(void)call_site;
	enter(func);
}

void UST_FUNC_EXIT(void *func, void *call_site)
{
	(void)func;
	(void)call_site;
	leave();
}

void ust_func_call_enter(void *func)
{
	enter(func);
}

void ust_func_call_exit(void)
{
	leave();
}

void ust_func_note_object(const void *func)
{
	note_object(func);
}

uint32_t ust_func_tid(void)
{
	return func_tid();
}
