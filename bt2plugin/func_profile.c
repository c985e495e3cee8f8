/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bt2plugin/event_ids.h"
#include "bt2plugin/func_profile.h"
#include "bt2plugin/xml_text.h"

struct fp_func {
	struct ust_func_stat stat;
	bool only, hide, graph;		/* named by -F, -N, the graph */
};

/*
 * A call open in a thread. A recursive call (one of a function already
 * open below it in the thread) hands its calls and self time to the
 * nearest such frame, its outer one, rather than to the function: they
 * are counted when the thread's outermost call of the function closes,
 * which adds its duration to the total. So self time never exceeds total
 * time, even when a loss left a stale frame in the stack that a later
 * call of the same function takes for its outer one; and calls nested in
 * a frame dropped at a loss go with it.
 *
 * The filters (func_opts.h) choose at the entry the calls that may count
 * (shown): those under no -N function, under a -F function when there are
 * some, no deeper than -D from it (else from the thread's outermost call);
 * and at the exit those that lasted long enough. A shown call's callees are
 * shown or not by the same rules, its ancestors may not be; a call too short
 * has callees shorter still, so what counts is always whole subtrees under
 * the -F calls. The outer frame of a recursive call is its nearest shown one:
 * a call that counts has an outer one at least as long, which counts too.
 * Self time stays exclusive of every callee, counted or not.
 */
struct fp_frame {
	struct fp_func *func;
	int64_t start_ns, child_ns;
	size_t outer;			/* index + 1 of the outer frame; 0: none */
	uint64_t inner_calls;
	int64_t inner_self_ns, inner_sum_ns, inner_min_ns, inner_max_ns;
	uint64_t depth;			/* under the -F function; 0: not under one */
	bool shown, hidden;		/* hidden: under a -N function */
	struct ust_func_node *node;	/* in the graph; NULL: not in it */
};

struct fp_thread {
	struct fp_frame *frames;
	size_t depth, cap;
	int64_t last_ns;		/* of its last entry or exit */
};

static struct fp_func *func_get(struct ust_func_profile *fp, const char *name)
{
	struct fp_func *f = ust_ptrmap_get(&fp->funcs, (uintptr_t)name);

	if (f)
		return f;
	f = calloc(1, sizeof(*f));
	if (!f || ust_ptrmap_put(&fp->funcs, (uintptr_t)name, f) < 0) {
		free(f);
		return NULL;
	}
	f->stat.name = name;
	f->only = ust_func_names_list_has(&fp->opts.only, name);
	f->hide = ust_func_names_list_has(&fp->opts.hide, name);
	f->graph = fp->opts.graph && !strcmp(fp->opts.graph, name);
	fp->nr_funcs++;
	return f;
}

static struct fp_thread *thread_get(struct ust_func_profile *fp, int64_t pid, int64_t tid)
{
	uintptr_t key = ((uintptr_t)1 << 63) | ((uintptr_t)(pid & 0x7fffffff) << 32) |
			(uint32_t)tid;
	struct fp_thread *t = ust_ptrmap_get(&fp->threads, key);

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t || ust_ptrmap_put(&fp->threads, key, t) < 0) {
		free(t);
		return NULL;
	}
	return t;
}

static int enter(struct ust_func_profile *fp, struct fp_thread *t, struct fp_func *f,
		 int64_t ns)
{
	const struct fp_frame *up = t->depth ? &t->frames[t->depth - 1] : NULL;
	struct fp_frame fr = { .func = f, .start_ns = ns };
	struct ust_func_node *parent = NULL;
	size_t k = t->depth;

	if (t->depth == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct fp_frame *frames = realloc(t->frames, cap * sizeof(*frames));

		if (!frames)
			return -ENOMEM;
		t->frames = frames;
		t->cap = cap;
		up = t->depth ? &t->frames[t->depth - 1] : NULL;
	}
	fr.hidden = (up && up->hidden) || f->hide;
	if (up && up->depth)
		fr.depth = up->depth + 1;
	else if (!fp->opts.only.nr || f->only)
		fr.depth = 1;
	fr.shown = !fr.hidden && fr.depth && (!fp->opts.depth || fr.depth <= fp->opts.depth);
	while (fr.shown && k && !(t->frames[k - 1].func == f && t->frames[k - 1].shown))
		k--;
	fr.outer = fr.shown ? k : 0;
	if (fr.shown && up && up->node)
		parent = up->node;
	else if (fr.shown && fp->opts.graph && (f->graph || !strcmp(fp->opts.graph, "*")))
		parent = &fp->graph;
	if (parent) {
		fr.node = ust_func_graph_child(parent, f->stat.name);
		if (!fr.node)
			return -ENOMEM;
	}
	t->frames[t->depth++] = fr;
	return 0;
}

static int64_t min_of(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int64_t max_of(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static void close_frame(struct ust_func_profile *fp, struct fp_thread *t, int64_t ns)
{
	struct fp_frame *fr = &t->frames[--t->depth];
	struct ust_func_stat *st = &fr->func->stat;
	int64_t dur = ns - fr->start_ns;
	uint64_t calls = fr->inner_calls + 1;
	int64_t self_ns = fr->inner_self_ns + dur - fr->child_ns;
	int64_t sum_ns = fr->inner_sum_ns + dur;
	int64_t min_ns = fr->inner_calls ? min_of(fr->inner_min_ns, dur) : dur;
	int64_t max_ns = max_of(fr->inner_max_ns, dur);

	if (t->depth)
		t->frames[t->depth - 1].child_ns += dur;
	if (!fr->shown || dur < fp->opts.min_ns)
		return;
	if (fr->node) {
		fr->node->calls++;
		fr->node->total_ns += dur;
		fr->node->self_ns += dur - fr->child_ns;
	}
	if (fr->outer) {
		struct fp_frame *out = &t->frames[fr->outer - 1];

		out->inner_min_ns = out->inner_calls ? min_of(out->inner_min_ns, min_ns) : min_ns;
		out->inner_max_ns = max_of(out->inner_max_ns, max_ns);
		out->inner_calls += calls;
		out->inner_self_ns += self_ns;
		out->inner_sum_ns += sum_ns;
		return;
	}
	st->min_ns = st->calls ? min_of(st->min_ns, min_ns) : min_ns;
	st->max_ns = max_of(st->max_ns, max_ns);
	st->calls += calls;
	st->self_ns += self_ns;
	st->sum_ns += sum_ns;
	st->total_ns += dur;
}

/*
 * Closes f's innermost open call, or the innermost open call when f is
 * NULL (an exit that names no function: libust-func's, func_stream.h).
 * Calls above f's whose exits never came (a longjmp() out of them) end
 * here too; an exit with no open call (entered before the trace started,
 * or its entry lost, or dropped at a loss) is counted apart.
 */
static void leave(struct ust_func_profile *fp, struct fp_thread *t, struct fp_func *f,
		  int64_t ns)
{
	size_t k = t->depth;

	while (f && k && t->frames[k - 1].func != f)
		k--;
	if (!k) {
		fp->unmatched++;
		return;
	}
	while (t->depth > k) {
		close_frame(fp, t, ns);
		fp->unwound++;
	}
	close_frame(fp, t, ns);
}

int ust_func_profile_event(struct ust_func_profile *fp, enum ust_func_kind kind, int64_t pid,
			   const struct ust_func_call *call, const bt_field *payload)
{
	struct fp_thread *t;
	struct fp_func *f = NULL;
	const char *name;

	if (kind == UST_FUNC_BIN_INFO || kind == UST_FUNC_BUILD_ID || kind == UST_FUNC_PLT_BIND)
		return ust_func_names_add(&fp->names, pid, kind, payload);
	if (kind == UST_FUNC_PLT_ARGS || kind == UST_FUNC_PLT_RET) {
		name = ust_func_names_get(&fp->names, pid, ust_plt_values_addr(payload));
		return name ? ust_plt_values_event(&fp->plt, name, kind == UST_FUNC_PLT_RET, payload)
			    : -ENOMEM;
	}
	if (kind != UST_FUNC_ENTRY && kind != UST_FUNC_EXIT)
		return 0;
	t = thread_get(fp, pid, call->tid == UST_ID_UNKNOWN ? 0 : call->tid);
	if (!t)
		return -ENOMEM;
	if (call->has_addr) {
		name = ust_func_names_get(&fp->names, pid, call->addr);
		f = name ? func_get(fp, name) : NULL;
		if (!f)
			return -ENOMEM;
	}
	/* An entry written late (func_stream.h) is earlier than the last event. */
	if (call->ns > t->last_ns)
		t->last_ns = call->ns;
	if (kind == UST_FUNC_ENTRY)
		return f ? enter(fp, t, f, call->ns) : 0;
	leave(fp, t, f, call->ns);
	return 0;
}

/*
 * Events were lost: the open calls of every thread may have lost their
 * exits, or their callees' entries and exits, and the stream that lost
 * them does not say which threads wrote there. They are dropped, not
 * counted, so that no call is timed across a hole; calls that start after
 * the loss are counted as before.
 */
void ust_func_profile_loss(struct ust_func_profile *fp, uint64_t events)
{
	size_t i;

	fp->lost += events;
	fp->losses++;
	for (i = 0; i < fp->threads.cap; i++) {
		struct fp_thread *t = fp->threads.slots[i].value;

		if (!fp->threads.slots[i].key)
			continue;
		fp->dropped += t->depth;
		t->depth = 0;
	}
}

/* Calls open at the end of the trace (the function called exit(), or was
 * running when tracing stopped) end at their thread's last event. */
static void close_open_calls(struct ust_func_profile *fp)
{
	size_t i;

	for (i = 0; i < fp->threads.cap; i++) {
		struct fp_thread *t = fp->threads.slots[i].value;

		if (!fp->threads.slots[i].key)
			continue;
		fp->unreturned += t->depth;
		while (t->depth)
			close_frame(fp, t, t->last_ns);
	}
}

/* What the filters chose, said above the tables they chose for. */
static void filters_text(const struct ust_func_opts *o, FILE *f)
{
	const char *sep;
	size_t i;

	if (!o->only.nr && !o->hide.nr && !o->depth && !o->min_ns)
		return;
	fputs("\nfunction calls counted:", f);
	for (i = 0; i < o->only.nr; i++)
		fprintf(f, "%s%s", i ? ", " : " under ", o->only.names[i]);
	for (i = 0; i < o->hide.nr; i++)
		fprintf(f, "%s%s", i ? ", " : o->only.nr ? "; not under " : " not under ",
			o->hide.names[i]);
	sep = o->only.nr || o->hide.nr ? ";" : "";
	if (o->depth)
		fprintf(f, "%s at most %" PRIu64 " deep", sep, o->depth);
	sep = o->only.nr || o->hide.nr || o->depth ? ";" : "";
	if (o->min_ns)
		fprintf(f, "%s lasting at least %" PRId64 " ns", sep, o->min_ns);
	fputc('\n', f);
}

static void notes_text(const struct ust_func_profile *fp, FILE *f)
{
	if (fp->unreturned)
		fprintf(f, "%" PRIu64 " calls had not returned when the trace ended (exit(), or "
			"still running): they end at their thread's last function event\n",
			fp->unreturned);
	if (fp->unwound)
		fprintf(f, "%" PRIu64 " calls ended without their exit, with a caller's "
			"(longjmp(), or lost)\n", fp->unwound);
	if (fp->unmatched)
		fprintf(f, "%" PRIu64 " exits had no entry (entered before the trace started, "
			"or lost): not counted\n", fp->unmatched);
	if (fp->losses)
		fprintf(f, "warning: the function figures are partial: events were discarded "
			"%" PRIu64 " times (%" PRIu64 " events counted); the %" PRIu64 " calls open "
			"at a loss are not counted, calls after it are\n",
			fp->losses, fp->lost, fp->dropped);
}

static void open_xml(const struct ust_func_profile *fp, FILE *f)
{
	const struct ust_func_opts *o = &fp->opts;
	size_t i;

	fprintf(f, "  <functions unreturned=\"%" PRIu64 "\" unwound=\"%" PRIu64 "\" unmatched=\"%"
		PRIu64 "\" losses=\"%" PRIu64 "\" events_lost=\"%" PRIu64 "\" dropped=\"%" PRIu64
		"\"", fp->unreturned, fp->unwound, fp->unmatched, fp->losses, fp->lost, fp->dropped);
	if (o->depth)
		fprintf(f, " depth=\"%" PRIu64 "\"", o->depth);
	if (o->min_ns)
		fprintf(f, " min_call_ns=\"%" PRId64 "\"", o->min_ns);
	fputs(">\n", f);
	for (i = 0; i < o->only.nr + o->hide.nr; i++) {
		fputs(i < o->only.nr ? "    <filter name=\"" : "    <notrace name=\"", f);
		ust_xml_escaped(f, i < o->only.nr ? o->only.names[i] : o->hide.names[i - o->only.nr]);
		fputs("\"/>\n", f);
	}
}

void ust_func_profile_print(struct ust_func_profile *fp, FILE *f, bool xml)
{
	struct ust_func_stat **funcs;
	size_t i, n = 0;

	if (!fp->nr_funcs)
		return;
	close_open_calls(fp);
	funcs = calloc(fp->nr_funcs, sizeof(*funcs));
	if (!funcs)
		return;
	for (i = 0; i < fp->funcs.cap; i++) {
		const struct fp_func *fn = fp->funcs.slots[i].value;

		if (fp->funcs.slots[i].key && fn->stat.calls)
			funcs[n++] = (struct ust_func_stat *)&fn->stat;
	}
	if (xml)
		open_xml(fp, f);
	else
		filters_text(&fp->opts, f);
	ust_func_report_print(f, funcs, n, &fp->opts, xml);
	free(funcs);
	if (fp->opts.graph)
		ust_func_graph_print(f, &fp->graph, fp->opts.graph, xml);
	if (xml) {
		fputs("  </functions>\n", f);
	} else {
		notes_text(fp, f);
		ust_plt_values_print(&fp->plt, f);
	}
}

static void thread_free(void *p)
{
	struct fp_thread *t = p;

	free(t->frames);
	free(t);
}

void ust_func_profile_fini(struct ust_func_profile *fp)
{
	ust_ptrmap_fini(&fp->threads, thread_free);
	ust_ptrmap_fini(&fp->funcs, free);
	ust_plt_values_fini(&fp->plt);
	ust_func_names_fini(&fp->names);
	ust_func_graph_fini(&fp->graph);
	ust_func_opts_fini(&fp->opts);
}
