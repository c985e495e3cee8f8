/* SPDX-License-Identifier: GPL-2.0-only */
/* A function defined in a header, with a marker and an event, called from
 * two translation units (mx_main and mx_other). In C++ it is one function
 * and its marker one site; in C each file has its own static copy. */
#ifndef MX_SHARED_H
#define MX_SHARED_H

#include <ust/marker.h>
#include "mx_provider.h"

#ifdef __cplusplus
inline
#else
static inline
#endif
void mx_shared(int from)
{
	trace_mark(mx, shared, "from %d", from);
	ust_event(mx, request, 100 + from, "shared", 0.5);
}

#ifdef __cplusplus
extern "C"
#endif
void mx_other(void);

#ifdef __cplusplus
/*
 * Called by the program and, twice, by its dlopen'ed library: always
 * inlined, so the library lists its copy's descriptor twice, and after
 * dlclose() libust must hold no site of it (else stopping the trace writes
 * into the unmapped library).
 */
inline __attribute__((always_inline)) void mx_everywhere(int from)
{
	trace_mark(mx, everywhere, "from %d", from);
}
#endif

#endif
