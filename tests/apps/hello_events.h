/* SPDX-License-Identifier: GPL-2.0-only */
/* A typed-event provider: include it anywhere; exactly one .c file
 * includes it after #define UST_CREATE_PROBES. */
#ifndef HELLO_EVENTS_H
#define HELLO_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <ust/tracepoint_event.h>

TRACE_EVENT(myprovider, request_done,
	TP_ARGS(int, status, const char *, path, size_t, len),
	TP_FIELDS(
		ctf_integer(int, status, status)
		ctf_integer_hex(size_t, len, len)
		ctf_string(path, path)
		ctf_float(double, ratio, 0.5)
		ctf_array(char, tag, path, 4)
		ctf_sequence(uint8_t, bytes, path, size_t, len)))

#endif
