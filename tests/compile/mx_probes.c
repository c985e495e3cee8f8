/* SPDX-License-Identifier: GPL-2.0-only */
/* The probes of mx_provider.h and its tracepoint, in C for C and C++ programs. */
#include <string.h>
#define UST_CREATE_PROBES
#include "mx_provider.h"

DEFINE_TRACE(mx_tp);

void mx_from_c(int n)
{
	trace_mx_request(n, "from_c", 0.75);
	trace_mark(mx, from_c, "n %d", n);
}
