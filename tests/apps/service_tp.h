/* SPDX-License-Identifier: GPL-2.0-only */
/* The typed events of tests/apps/service.c. */
#ifndef SERVICE_TP_H
#define SERVICE_TP_H
#include <ust/tracepoint_event.h>

TRACE_EVENT(app, request,
	TP_ARGS(unsigned int, seq),
	TP_FIELDS(ctf_integer(uint32_t, seq, seq)))

TRACE_EVENT_LEVEL(app, error, UST_LOGLEVEL_ERR,
	TP_ARGS(unsigned int, seq, int, code),
	TP_FIELDS(
		ctf_integer(uint32_t, seq, seq)
		ctf_integer(int32_t, code, code)))
#endif
