/* SPDX-License-Identifier: GPL-2.0-only */
/* The typed events of cxx_server; cxx_server.cpp creates the probes. */
#ifndef CXX_SERVER_TP_H
#define CXX_SERVER_TP_H

#include <stddef.h>
#include <stdint.h>
#include <ust/tracepoint_event.h>

TRACE_EVENT(srv, request_done,
	TP_ARGS(int, id, const char *, path, int, status, size_t, bytes),
	TP_FIELDS(
		ctf_integer(int, id, id)
		ctf_string(path, path)
		ctf_integer(int, status, status)
		ctf_integer(uint64_t, bytes, bytes)))

#endif
