/* SPDX-License-Identifier: GPL-2.0-only */
/* The events UST is measured on; bench_lttng_tp.h declares the same ones. */
#ifndef BENCH_EVENTS_H
#define BENCH_EVENTS_H

#include <stdint.h>
#include <ust/tracepoint_event.h>

TRACE_EVENT(ustbench, ints,
	TP_ARGS(int, a, int, b),
	TP_FIELDS(
		ctf_integer(int, a, a)
		ctf_integer(int, b, b)))

TRACE_EVENT(ustbench, string,
	TP_ARGS(const char *, s),
	TP_FIELDS(
		ctf_string(s, s)))

#endif
