/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * A filter program of a rule (rules.h) or a trigger (trigger.h) linked
 * against the fields of one event (libustcomm/filter_bytecode.h), ready
 * for the interpreter (filter.h). Under ust_lock, async-signal-safe.
 */
#ifndef UST_RULES_LINK_H
#define UST_RULES_LINK_H

#include <stdint.h>
#include "libust/filter.h"
#include "libust/registry.h"
#include "libustcomm/filter_bytecode.h"

/*
 * A rule's or trigger's program linked against ev's fields, its serial
 * set; one that does not fit the event rejects everything (said once).
 * Never NULL.
 */
const struct ust_filter_prog *ust_rules_link(const void *prog, uint32_t prog_len,
					    const char *filter, uint32_t serial,
					    const struct ust_event_state *ev,
					    const struct ust_filter_field *fields);

/* The program that rejects everything, with serial set (out of memory:
 * shared, serial 0). Never NULL. */
const struct ust_filter_prog *ust_rules_reject(uint32_t serial);

/* Frees a program the two above returned (the shared one stays). */
void ust_rules_prog_free(const struct ust_filter_prog *p);

#endif
