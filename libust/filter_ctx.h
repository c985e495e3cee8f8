/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The integer contexts a filter reads ($ctx.NAME), beneath the
 * interpreter (filter.h) that asks for them.
 */
#ifndef UST_FILTER_CTX_H
#define UST_FILTER_CTX_H

#include <stdint.h>

/* An integer context's value now (enum ust_filter_ctx, not procname).
 * Async-signal-safe. */
int64_t ust_filter_ctx_int(unsigned ctx, const void *ip);

#endif
