/* SPDX-License-Identifier: GPL-2.0-only */
/* A tracepoint, declared in a header so any file can fire it. */
#ifndef HELLO_TP_H
#define HELLO_TP_H

#include <ust/tracepoint.h>

DECLARE_TRACE(hello_tptest, TP_PROTO(int anint), TP_ARGS(anint));

#endif
