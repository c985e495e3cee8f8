/* SPDX-License-Identifier: LGPL-2.1-only */
/* All of the instrumentation API: markers, tracepoints, typed events. */
#ifndef UST_UST_H
#define UST_UST_H

#include <ust/version.h>
#include <ust/marker.h>
#include <ust/span.h>
#include <ust/tracepoint.h>
#include <ust/tracepoint_event.h>

#endif
