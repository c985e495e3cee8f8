/* SPDX-License-Identifier: GPL-2.0-only */
/* Instantiates the LTTng-UST probes of bench_lttng_tp.h. */
#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "bench_lttng_tp.h"
