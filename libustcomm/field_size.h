/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * How many bytes one payload field takes in a buffer (ctf_layout.h), for
 * whoever walks events it did not write field by field: ustd rescuing a
 * packet of a dead writer (ustd/layouts.c), libust counting the events a
 * program loses when its ustd is gone (libust/trace_orphan.c).
 */
#ifndef USTCOMM_FIELD_SIZE_H
#define USTCOMM_FIELD_SIZE_H

#include <stddef.h>
#include <stdint.h>
#include "libustcomm/common.h"
#include "libustcomm/protocol.h"

/* Bytes of the field laid out as f at p, with avail bytes readable; -1
 * when it does not fit (a string without its NUL, a sequence running past
 * the end) or its kind is unknown. Async-signal-safe. */
USTCOMM_API int64_t ustcomm_field_size(const struct ustcomm_field_layout *f, const char *p,
				       size_t avail);

#endif
