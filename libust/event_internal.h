/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The write path's entry for callers inside libust that have run nothing
 * of the filters themselves (markers, marker.c). Lock-free,
 * async-signal-safe, allocates nothing.
 */
#ifndef UST_EVENT_INTERNAL_H
#define UST_EVENT_INTERNAL_H

#include <stddef.h>
#include <ust/core.h>
#include "libust/registry.h"

/* Reserves ev in every trace recording it whose filters pass args (NULL:
 * no filter runs): ust_event_reserve_filtered() for a known event. */
int ust_event_reserve_args(struct ust_event_ctx *ctx, const struct ust_event_state *ev,
			   size_t payload_len, const union ust_filter_arg *args, const void *ip);

#endif
