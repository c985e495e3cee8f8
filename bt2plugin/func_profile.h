/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The function profile of the summary: per function (func_names.h), the
 * calls completed, the total time (inclusive, counted once for recursive
 * calls: only the outermost frame of a function adds) and the self time
 * (exclusive of its callees), from each thread's stack of entries and
 * exits. An exit that does not close the innermost open call (its entry
 * came before the trace) is not counted.
 */
#ifndef UST_BT2_FUNC_PROFILE_H
#define UST_BT2_FUNC_PROFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <babeltrace2/babeltrace.h>
#include "bt2plugin/func_names.h"
#include "bt2plugin/ptrmap.h"

struct ust_func_profile {
	struct ust_func_names names;
	struct ust_ptrmap threads;	/* (pid, tid) key -> struct fp_thread */
	struct ust_ptrmap funcs;	/* interned name -> struct fp_func */
	size_t nr_funcs;
};

/* An event of kind (ust_func_kind_of()) at ns in thread tid of pid;
 * 0 or -ENOMEM. */
int ust_func_profile_event(struct ust_func_profile *fp, enum ust_func_kind kind, int64_t pid,
			   int64_t tid, int64_t ns, const bt_field *payload);
/* The functions by total time, then the first ones by self time; nothing
 * when no function was traced. */
void ust_func_profile_print(struct ust_func_profile *fp, FILE *f);
void ust_func_profile_fini(struct ust_func_profile *fp);

#endif
