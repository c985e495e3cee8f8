/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The filters of an event: programs linked against its fields (see
 * libustcomm/filter_bytecode.h), run on its arguments before anything is
 * reserved. An event is recorded when any of its programs passes.
 *
 * A set is built under ust_lock, published into ust_event_state.filters
 * with a release store and read by writers with an acquire load; it is
 * immutable once published. A set replaced is freed once no writer can
 * hold it any more (filter_reclaim.h).
 */
#ifndef UST_FILTER_H
#define UST_FILTER_H

#include <stdint.h>
#include <ust/core.h>
#include "libust/marker_format.h"

struct ust_filter_prog {
	uint32_t rule_serial;		/* which rule's program this is */
	uint32_t code_len;
	const uint8_t *code;
	const char *data;
	/* The linked program (header, code, data) follows. */
};

/*
 * progs[0..nr) decide whether the event is recorded (record_all: every
 * event is, nr is 0); progs[nr..nr + nr_triggers) are the programs of the
 * triggers watching it (trigger.h), their rule_serial the trigger's id.
 */
struct ust_event_filters {
	uint32_t nr;
	uint32_t nr_triggers;
	uint32_t record_all;
	const struct ust_filter_prog *progs[];
};

/* 1 when the event is recorded: record_all or any of the first nr programs
 * passes; ip is the event's ip context. Lock-free, async-signal-safe. */
int ust_filters_pass(const struct ust_event_filters *f, const union ust_filter_arg *args,
		     const void *ip);

/* 1 when the program passes. Lock-free, async-signal-safe. */
int ust_filter_prog_pass(const struct ust_filter_prog *p, const union ust_filter_arg *args,
			 const void *ip);

/*
 * Markers: the arguments in ap as the filter sees them (args has room for
 * UST_MARKER_MAX_FIELDS). ap is read through a copy.
 */
void ust_filter_marker_args(const struct ust_marker_format *f, va_list ap,
			    union ust_filter_arg *args);

#endif
