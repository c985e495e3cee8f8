/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The events of library calls (plt_record.h), beside the function events
 * of func_tp.h that time them. bind names a library function by the
 * symbol the program called it by (the address alone may name an IFUNC's
 * variant, or a symbol the object's tables lack); args and ret give the
 * integer and pointer registers of the calls usttrace -A and -R chose:
 * args after the call's entry, ret before its exit, both in the thread
 * and with the address of that call, so that a reader needs neither the
 * chain nor the order to pair them.
 */
#ifndef UST_PLT_TP_H
#define UST_PLT_TP_H

#include <stdint.h>
#include <ust/tracepoint_event.h>

TRACE_EVENT(ust_plt, bind,
	TP_ARGS(void *, func, const char *, name),
	TP_FIELDS(
		ctf_integer_hex(uintptr_t, addr, (uintptr_t)func)
		ctf_string(name, name)))

TRACE_EVENT(ust_plt, args,
	TP_ARGS(uint32_t, tid, void *, func, const uint64_t *, args, uint32_t, nr),
	TP_FIELDS(
		ctf_integer(uint32_t, tid, tid)
		ctf_integer_hex(uintptr_t, addr, (uintptr_t)func)
		ctf_sequence(uint64_t, args, args, uint8_t, nr)))

TRACE_EVENT(ust_plt, ret,
	TP_ARGS(uint32_t, tid, void *, func, uint64_t, ret),
	TP_FIELDS(
		ctf_integer(uint32_t, tid, tid)
		ctf_integer_hex(uintptr_t, addr, (uintptr_t)func)
		ctf_integer(uint64_t, ret, ret)))

#endif
