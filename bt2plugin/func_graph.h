/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The call graph of the function profile, as uftrace graph draws it: a
 * tree of call paths, each node a function called from its parent's path
 * with the calls made along that path and their total and self time,
 * summed over threads. Children are in the order of their first call.
 * The tree is walked without recursion: a deep recursion makes a deep
 * tree.
 */
#ifndef UST_BT2_FUNC_GRAPH_H
#define UST_BT2_FUNC_GRAPH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ust_func_node {
	const char *name;		/* NULL for the root, which is no function */
	uint64_t calls;
	int64_t total_ns, self_ns;
	struct ust_func_node *parent, *first, *last, *next;
};

/* parent's child named name (interned by ust_func_names), made on first
 * use; NULL without memory. */
struct ust_func_node *ust_func_graph_child(struct ust_func_node *parent, const char *name);
/* Prints the nodes under root that have calls; of: what the graph is of
 * ("*": the whole program, else a function's name). */
void ust_func_graph_print(FILE *f, const struct ust_func_node *root, const char *of, bool xml);
/* Frees the nodes under root (not root itself). */
void ust_func_graph_fini(struct ust_func_node *root);

#endif
