/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The events of libust-func (func.c): the fields of LTTng-UST's
 * lttng_ust_cyg_profile events, so that readers of either recognise them.
 */
#ifndef UST_FUNC_TP_H
#define UST_FUNC_TP_H

#include <ust/tracepoint_event.h>

TRACE_EVENT(ust_func, entry,
	TP_ARGS(void *, func, void *, call_site),
	TP_FIELDS(
		ctf_integer_hex(uintptr_t, addr, (uintptr_t)func)
		ctf_integer_hex(uintptr_t, call_site, (uintptr_t)call_site)))

TRACE_EVENT(ust_func, exit,
	TP_ARGS(void *, func, void *, call_site),
	TP_FIELDS(
		ctf_integer_hex(uintptr_t, addr, (uintptr_t)func)
		ctf_integer_hex(uintptr_t, call_site, (uintptr_t)call_site)))

#endif
