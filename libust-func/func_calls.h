/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The work of the hooks of func.c for callers inside libust-func that
 * see a call by other means (plt_record.h: library calls, from the
 * dynamic linker's audit interface): the same events, filters and chain,
 * so their calls nest among the -finstrument-functions ones. Each entry
 * must be followed by its exit on the same thread, as for the hooks.
 * Async-signal-safe, as the hooks.
 */
#ifndef UST_FUNC_CALLS_H
#define UST_FUNC_CALLS_H

#include <stdint.h>

#define UST_FUNC_HIDDEN	__attribute__((visibility("hidden"), no_instrument_function))

void ust_func_call_enter(void *func) UST_FUNC_HIDDEN;
void ust_func_call_exit(void) UST_FUNC_HIDDEN;
/* Puts the object holding func in the statedump, so that a reader names it. */
void ust_func_note_object(const void *func) UST_FUNC_HIDDEN;
/* The calling thread's id, cached. */
uint32_t ust_func_tid(void) UST_FUNC_HIDDEN;

#endif
