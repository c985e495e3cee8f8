/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by dlclose_main and libprobe: a tracepoint of each, a typed event of the library. */
#ifndef DLCLOSE_TP_H
#define DLCLOSE_TP_H

#include <ust/tracepoint.h>
#include <ust/tracepoint_event.h>

/* In dlclose_main; its probe is in libprobe. */
DECLARE_TRACE(dlclose_main_tp, TP_PROTO(unsigned thread, unsigned long seq), TP_ARGS(thread, seq));
/* In libprobe; its probe is in dlclose_main. */
DECLARE_TRACE(libprobe_tp, TP_PROTO(unsigned thread, unsigned long seq), TP_ARGS(thread, seq));

TRACE_EVENT(libprobe_ev, work,
	TP_ARGS(unsigned, thread, unsigned long, seq),
	TP_FIELDS(
		ctf_integer(unsigned, thread, thread)
		ctf_integer(unsigned long, seq, seq)))

#endif
