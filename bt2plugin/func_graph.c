/* SPDX-License-Identifier: LGPL-2.1-only */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bt2plugin/func_graph.h"
#include "bt2plugin/xml_text.h"

struct ust_func_node *ust_func_graph_child(struct ust_func_node *parent, const char *name)
{
	struct ust_func_node *n;

	/* Names are interned per process: the same function of two
	 * processes has two pointers, and one node. */
	for (n = parent->first; n; n = n->next) {
		if (n->name == name || !strcmp(n->name, name))
			return n;
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->name = name;
	n->parent = parent;
	if (parent->last)
		parent->last->next = n;
	else
		parent->first = n;
	parent->last = n;
	return n;
}

static void xml_close(FILE *f, size_t depth)
{
	fprintf(f, "%*s</node>\n", (int)(2 * depth + 6), "");
}

/* The node after n in depth-first order under root, going into n's
 * children when shown; *depth follows (the root's children are at 0), and
 * the XML elements of the nodes left are closed. */
static const struct ust_func_node *next_node(FILE *f, bool xml, const struct ust_func_node *root,
					     const struct ust_func_node *n, bool shown,
					     size_t *depth)
{
	if (shown && n->first) {
		++*depth;
		return n->first;
	}
	if (xml && shown)
		xml_close(f, *depth);
	for (; !n->next; --*depth) {
		n = n->parent;
		if (n == root)
			return NULL;
		if (xml)
			xml_close(f, *depth - 1);
	}
	return n->next;
}

void ust_func_graph_print(FILE *f, const struct ust_func_node *root, const char *of, bool xml)
{
	const struct ust_func_node *n = root->first;
	bool all = !strcmp(of, "*");
	size_t depth = 0;

	if (xml) {
		fputs("    <graph of=\"", f);
		ust_xml_escaped(f, of);
		fputs("\">\n", f);
	} else {
		fprintf(f, "\n%-12s %14s %14s  function call graph of %s%s\n", "calls", "total (s)",
			"self (s)", all ? "the program" : of,
			all ? "" : ", from its outermost calls");
	}
	while (n) {
		/* A node without calls was entered only by calls the filters
		 * left out: neither it nor its children are shown. */
		bool shown = n->calls != 0;

		if (shown && xml) {
			fprintf(f, "%*s<node name=\"", (int)(2 * depth + 6), "");
			ust_xml_escaped(f, n->name);
			fprintf(f, "\" calls=\"%" PRIu64 "\" total_ns=\"%" PRId64 "\" self_ns=\"%"
				PRId64 "\">\n", n->calls, n->total_ns, n->self_ns);
		} else if (shown) {
			fprintf(f, "%-12" PRIu64 " %14.6f %14.6f  %*s%s\n", n->calls, n->total_ns / 1e9,
				n->self_ns / 1e9, (int)(2 * depth), "", n->name);
		}
		n = next_node(f, xml, root, n, shown, &depth);
	}
	if (xml)
		fputs("    </graph>\n", f);
}

void ust_func_graph_fini(struct ust_func_node *root)
{
	struct ust_func_node *n = root->first, *done;

	while (n && n != root) {
		if (n->first) {
			n = n->first;
			continue;
		}
		done = n;
		n = n->next ? n->next : n->parent;
		if (done->parent->first == done)
			done->parent->first = done->next;
		free(done);
	}
	root->first = root->last = NULL;
}
