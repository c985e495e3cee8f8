/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The options of the function profile, as uftrace's report and graph take
 * them: the sort key and the rows of the function table, the call graph
 * (of the program, or of the calls of one function), and the filters that
 * choose the calls both count: only the subtrees of some functions (-F),
 * none of the subtrees of others (-N), down to a depth (-D), only calls
 * that lasted at least some time (-t).
 */
#ifndef UST_BT2_FUNC_OPTS_H
#define UST_BT2_FUNC_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ust_func_sort {
	UST_FUNC_SORT_DEFAULT,		/* by total time, then the first ones by self time */
	UST_FUNC_SORT_CALLS,
	UST_FUNC_SORT_TOTAL,
	UST_FUNC_SORT_SELF,
	UST_FUNC_SORT_AVG,
	UST_FUNC_SORT_MIN,
	UST_FUNC_SORT_MAX,
	UST_FUNC_SORT_NAME,
};

/* A list of function names, given separated by ';' (which no C or
 * demangled C++ function name holds). */
struct ust_func_names_list {
	char **names;
	size_t nr;
};

struct ust_func_opts {
	enum ust_func_sort sort;
	size_t rows;			/* 0: the default; SIZE_MAX: every function */
	char *graph;			/* NULL: no graph; "*": of the whole program */
	struct ust_func_names_list only, hide;
	uint64_t depth;			/* 0: no limit */
	int64_t min_ns;			/* calls shorter are left out */
};

/* The parameter names ust_func_opts_set() takes, NULL-terminated. */
extern const char *const ust_func_opts_keys[];

/* Sets the option of parameter key (one of ust_func_opts_keys) from value:
 * 0, -EINVAL with *why saying what it takes, or -ENOMEM. */
int ust_func_opts_set(struct ust_func_opts *o, const char *key, const char *value,
		      const char **why);
bool ust_func_names_list_has(const struct ust_func_names_list *l, const char *name);
void ust_func_opts_fini(struct ust_func_opts *o);

#endif
