/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bt2plugin/event_ids.h"
#include "bt2plugin/func_profile.h"

/* Rows printed per table; the rest is counted. */
#define ROWS_BY_TOTAL	50
#define ROWS_BY_SELF	10

struct fp_func {
	const char *name;		/* interned by ust_func_names */
	uint64_t calls;
	int64_t total_ns, self_ns;
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
 */
struct fp_frame {
	struct fp_func *func;
	int64_t start_ns, child_ns;
	size_t outer;			/* index + 1 of the outer frame; 0: none */
	uint64_t inner_calls;
	int64_t inner_self_ns;
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
	f->name = name;
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

static int enter(struct fp_thread *t, struct fp_func *f, int64_t ns)
{
	size_t k = t->depth;

	if (t->depth == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct fp_frame *frames = realloc(t->frames, cap * sizeof(*frames));

		if (!frames)
			return -ENOMEM;
		t->frames = frames;
		t->cap = cap;
	}
	while (k && t->frames[k - 1].func != f)
		k--;
	t->frames[t->depth++] = (struct fp_frame) { .func = f, .start_ns = ns, .outer = k };
	return 0;
}

static void close_frame(struct fp_thread *t, int64_t ns)
{
	struct fp_frame *fr = &t->frames[--t->depth];
	struct fp_func *f = fr->func;
	int64_t dur = ns - fr->start_ns;
	uint64_t calls = fr->inner_calls + 1;
	int64_t self_ns = fr->inner_self_ns + dur - fr->child_ns;

	if (fr->outer) {
		t->frames[fr->outer - 1].inner_calls += calls;
		t->frames[fr->outer - 1].inner_self_ns += self_ns;
	} else {
		f->calls += calls;
		f->self_ns += self_ns;
		f->total_ns += dur;
	}
	if (t->depth)
		t->frames[t->depth - 1].child_ns += dur;
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
		close_frame(t, ns);
		fp->unwound++;
	}
	close_frame(t, ns);
}

int ust_func_profile_event(struct ust_func_profile *fp, enum ust_func_kind kind, int64_t pid,
			   const struct ust_func_call *call, const bt_field *payload)
{
	struct fp_thread *t;
	struct fp_func *f = NULL;
	const char *name;

	if (kind == UST_FUNC_BIN_INFO || kind == UST_FUNC_BUILD_ID)
		return ust_func_names_add(&fp->names, pid, kind, payload);
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
		return f ? enter(t, f, call->ns) : 0;
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
			close_frame(t, t->last_ns);
	}
}

static int by_total(const void *a, const void *b)
{
	const struct fp_func *x = *(struct fp_func *const *)a, *y = *(struct fp_func *const *)b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int by_self(const void *a, const void *b)
{
	const struct fp_func *x = *(struct fp_func *const *)a, *y = *(struct fp_func *const *)b;

	if (x->self_ns != y->self_ns)
		return x->self_ns < y->self_ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void table(FILE *f, const char *title, struct fp_func **funcs, size_t n, size_t max)
{
	size_t i;

	fprintf(f, "\n%-12s %14s %14s  %s\n", "calls", "total (s)", "self (s)", title);
	for (i = 0; i < n && i < max; i++)
		fprintf(f, "%-12" PRIu64 " %14.6f %14.6f  %s\n", funcs[i]->calls,
			funcs[i]->total_ns / 1e9, funcs[i]->self_ns / 1e9, funcs[i]->name);
	if (n > max)
		fprintf(f, "(%zu more functions)\n", n - max);
}

void ust_func_profile_print(struct ust_func_profile *fp, FILE *f)
{
	struct fp_func **funcs;
	size_t i, n = 0;

	if (!fp->nr_funcs)
		return;
	close_open_calls(fp);
	funcs = calloc(fp->nr_funcs, sizeof(*funcs));
	if (!funcs)
		return;
	for (i = 0; i < fp->funcs.cap; i++) {
		if (fp->funcs.slots[i].key)
			funcs[n++] = fp->funcs.slots[i].value;
	}
	qsort(funcs, n, sizeof(*funcs), by_total);
	table(f, "function, by total time", funcs, n, ROWS_BY_TOTAL);
	qsort(funcs, n, sizeof(*funcs), by_self);
	table(f, "function, by self time", funcs, n, ROWS_BY_SELF);
	free(funcs);
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
	ust_func_names_fini(&fp->names);
}
