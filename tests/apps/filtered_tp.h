/* SPDX-License-Identifier: GPL-2.0-only */
/* The typed events of tests/apps/filtered.c: every kind of field a filter reads. */
#ifndef FILTERED_TP_H
#define FILTERED_TP_H
#include <ust/tracepoint_event.h>

TRACE_EVENT(req, done,
	TP_ARGS(int, value, const char *, path, double, ratio, unsigned int, status),
	TP_FIELDS(
		ctf_integer(int, value, value)
		ctf_string(path, path)
		ctf_float(double, ratio, ratio)
		ctf_integer(uint16_t, status, status)
		ctf_array(uint8_t, tag, path, 2)))

TRACE_EVENT_LEVEL(req, failed, UST_LOGLEVEL_ERR,
	TP_ARGS(int, value),
	TP_FIELDS(ctf_integer(int, value, value)))

TRACE_EVENT_LEVEL(db, slow, UST_LOGLEVEL_WARNING,
	TP_ARGS(int, value),
	TP_FIELDS(ctf_integer(int, value, value)))

TRACE_EVENT_LEVEL(db, query, UST_LOGLEVEL_DEBUG,
	TP_ARGS(int, value),
	TP_FIELDS(ctf_integer(int, value, value)))
#endif
