/* SPDX-License-Identifier: GPL-2.0-only */
/* The numbered event of tests/apps/midevent. */
#ifndef MIDEVENT_TP_H
#define MIDEVENT_TP_H

#include <ust/tracepoint_event.h>

TRACE_EVENT(midevent, seq,
	TP_ARGS(unsigned, n),
	TP_FIELDS(ctf_integer(unsigned, n, n)))

#endif
