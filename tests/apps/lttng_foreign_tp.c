/* SPDX-License-Identifier: GPL-2.0-only */
/* Instantiates the LTTng-UST probes of lttng_foreign_tp.h. */
#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "lttng_foreign_tp.h"
