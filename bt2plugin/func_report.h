/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The function table of the profile, as uftrace report prints it: per
 * function its calls, total time (inclusive, a recursive function's
 * outermost calls only), self time (exclusive of callees), and the
 * average, shortest and longest of its calls' own durations; sorted by one
 * of them (func_opts.h), or by default by total time then by self time.
 */
#ifndef UST_BT2_FUNC_REPORT_H
#define UST_BT2_FUNC_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bt2plugin/func_opts.h"

struct ust_func_stat {
	const char *name;		/* interned by ust_func_names */
	uint64_t calls;
	int64_t total_ns, self_ns;
	int64_t sum_ns, min_ns, max_ns;	/* of every call's duration, inner recursive ones too */
};

/* Sorts the n functions and prints the table(s) the options ask for:
 * text, or the XML elements <function/> (every one unless rows is set). */
void ust_func_report_print(FILE *f, struct ust_func_stat **funcs, size_t n,
			   const struct ust_func_opts *o, bool xml);

#endif
