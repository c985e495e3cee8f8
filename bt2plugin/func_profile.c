/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bt2plugin/func_profile.h"

/* Rows printed per table; the rest is counted. */
#define ROWS_BY_TOTAL	50
#define ROWS_BY_SELF	10

struct fp_func {
	const char *name;		/* interned by ust_func_names */
	uint64_t calls;
	int64_t total_ns, self_ns;
	uint64_t active;		/* frames open in any thread */
};

struct fp_frame {
	struct fp_func *func;
	int64_t start_ns, child_ns;
};

struct fp_thread {
	struct fp_frame *frames;
	size_t depth, cap;
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
	if (t->depth == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct fp_frame *frames = realloc(t->frames, cap * sizeof(*frames));

		if (!frames)
			return -ENOMEM;
		t->frames = frames;
		t->cap = cap;
	}
	t->frames[t->depth++] = (struct fp_frame) { .func = f, .start_ns = ns };
	f->active++;
	return 0;
}

static void leave(struct fp_thread *t, struct fp_func *f, int64_t ns)
{
	struct fp_frame *fr;
	int64_t dur;

	if (!t->depth || t->frames[t->depth - 1].func != f)
		return;
	fr = &t->frames[--t->depth];
	dur = ns - fr->start_ns;
	f->calls++;
	f->self_ns += dur - fr->child_ns;
	if (!--f->active)
		f->total_ns += dur;
	if (t->depth)
		t->frames[t->depth - 1].child_ns += dur;
}

int ust_func_profile_event(struct ust_func_profile *fp, enum ust_func_kind kind, int64_t pid,
			   int64_t tid, int64_t ns, const bt_field *payload)
{
	struct fp_thread *t;
	struct fp_func *f;
	const char *name;

	if (kind == UST_FUNC_BIN_INFO || kind == UST_FUNC_BUILD_ID)
		return ust_func_names_add(&fp->names, pid, kind, payload);
	if (kind != UST_FUNC_ENTRY && kind != UST_FUNC_EXIT)
		return 0;
	name = ust_func_names_get(&fp->names, pid, ust_func_addr(payload));
	t = thread_get(fp, pid, tid);
	f = name ? func_get(fp, name) : NULL;
	if (!t || !f)
		return -ENOMEM;
	if (kind == UST_FUNC_ENTRY)
		return enter(t, f, ns);
	leave(t, f, ns);
	return 0;
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
