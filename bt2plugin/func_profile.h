/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The function profile of the summary: per function (func_names.h), the
 * calls completed, the total time (inclusive, summed over threads, counted
 * once for recursive calls: only a thread's outermost frame of a function
 * adds) and the self time
 * (exclusive of its callees), from each thread's stack of entries and
 * exits. An exit closes the innermost open call of its function (and the
 * calls above it, left by longjmp()); one with no open call is not
 * counted. At a loss of events every open call is dropped; at the end, the
 * calls still open end at their thread's last event. The text says each.
 * The options (func_opts.h, set before the first event) filter the calls
 * counted, sort the table (func_report.h) and ask for a call graph
 * (func_graph.h). The arguments and return values of library calls are
 * counted apart (plt_values.h), named as the calls.
 */
#ifndef UST_BT2_FUNC_PROFILE_H
#define UST_BT2_FUNC_PROFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <babeltrace2/babeltrace.h>
#include "bt2plugin/func_graph.h"
#include "bt2plugin/func_names.h"
#include "bt2plugin/func_opts.h"
#include "bt2plugin/func_report.h"
#include "bt2plugin/func_stream.h"
#include "bt2plugin/plt_values.h"
#include "bt2plugin/ptrmap.h"

struct ust_func_profile {
	struct ust_func_opts opts;
	struct ust_func_names names;
	struct ust_ptrmap threads;	/* (pid, tid) key -> struct fp_thread */
	struct ust_ptrmap funcs;	/* interned name -> struct fp_func */
	size_t nr_funcs;
	struct ust_func_node graph;	/* its root: what the program called */
	struct ust_plt_values plt;	/* library calls' arguments and returns */
	/* What the text says under the tables. */
	uint64_t unmatched, unwound, unreturned, dropped, losses, lost;
};

/* An event of kind (ust_func_kind_of()) in process pid: a statedump
 * event's payload, or a function event decoded as call (func_stream.h,
 * which says when); 0 or -ENOMEM. */
int ust_func_profile_event(struct ust_func_profile *fp, enum ust_func_kind kind, int64_t pid,
			   const struct ust_func_call *call, const bt_field *payload);
/* events were discarded (0: an unknown number) before what comes next. */
void ust_func_profile_loss(struct ust_func_profile *fp, uint64_t events);
/* The function table(s) and the graph the options ask for, as text or as
 * the XML element <functions>; nothing when no function was traced. */
void ust_func_profile_print(struct ust_func_profile *fp, FILE *f, bool xml);
void ust_func_profile_fini(struct ust_func_profile *fp);

#endif
