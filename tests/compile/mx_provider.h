/* SPDX-License-Identifier: GPL-2.0-only */
/* The compile matrix's provider: included by C and C++ files of one
 * program; mx_probes.c, a C file, creates the probes. */
#ifndef MX_PROVIDER_H
#define MX_PROVIDER_H

#include <stddef.h>
#include <stdint.h>
#include <ust/tracepoint.h>
#include <ust/tracepoint_event.h>

TRACE_EVENT(mx, request,
	TP_ARGS(int, id, const char *, path, double, ratio),
	TP_FIELDS(
		ctf_integer(int, id, id)
		ctf_integer_hex(uint16_t, id16, id)
		ctf_string(path, path)
		ctf_float(double, ratio, ratio)
		ctf_array(uint8_t, head, path, 2)
		ctf_sequence(char, chars, path, uint8_t, strlen(path))))

/* The filtered one: usttrace's session gives it a filter on v. */
TRACE_EVENT_LEVEL(mxf, value, UST_LOGLEVEL_INFO, TP_ARGS(int, v), TP_FIELDS(ctf_integer(int, v, v)))

TRACE_EVENT(mx, nothing, TP_ARGS(), TP_FIELDS())

DECLARE_TRACE(mx_tp, TP_PROTO(int n, const char *who), TP_ARGS(n, who));

#ifdef __cplusplus
extern "C" {
#endif
/* In mx_probes.c: traces from C. */
void mx_from_c(int n);
#ifdef __cplusplus
}
#endif

#endif
