/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The events of libust-func (func.c), each in two forms. The long forms,
 * entry {tid, addr} and exit {tid}, say everything. The short forms,
 * entry_cont {addr_lo} and exit_cont {}, continue the writer's previous
 * event in the same stream (libust/event_chain.h): same thread, and for
 * entry_cont the same upper 32 bits of addr as the last entry in the
 * stream. A call then costs 12 bytes on disk: 4 + 4 for the entry, 4 for
 * the exit. The exit names no function: it ends the thread's innermost
 * open call, as a return does.
 */
#ifndef UST_FUNC_TP_H
#define UST_FUNC_TP_H

#include <stdint.h>
#include <ust/tracepoint_event.h>

TRACE_EVENT(ust_func, entry,
	TP_ARGS(uint32_t, tid, void *, func),
	TP_FIELDS(
		ctf_integer(uint32_t, tid, tid)
		ctf_integer_hex(uintptr_t, addr, (uintptr_t)func)))

/* An entry written late, when its call lasted long enough (usttrace
 * --func-time): start is when the call began, in the ticks of the events'
 * clock (libust/event_clock.h). */
TRACE_EVENT(ust_func, entry_at,
	TP_ARGS(uint32_t, tid, void *, func, uint64_t, start),
	TP_FIELDS(
		ctf_integer(uint32_t, tid, tid)
		ctf_integer_hex(uintptr_t, addr, (uintptr_t)func)
		ctf_integer(uint64_t, start, start)))

TRACE_EVENT(ust_func, exit,
	TP_ARGS(uint32_t, tid),
	TP_FIELDS(
		ctf_integer(uint32_t, tid, tid)))

TRACE_EVENT(ust_func, entry_cont,
	TP_ARGS(uint32_t, addr_lo),
	TP_FIELDS(
		ctf_integer_hex(uint32_t, addr_lo, addr_lo)))

TRACE_EVENT(ust_func, exit_cont,
	TP_ARGS(void),
	TP_FIELDS())

#endif
