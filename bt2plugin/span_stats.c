/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bt2plugin/func_names.h"
#include "bt2plugin/span_stats.h"

enum span_kind { SPAN_NONE, SPAN_BEGIN, SPAN_END };

struct span_class {
	enum span_kind kind;
	struct ust_span_stat *stat;
};

struct span_track {
	struct open_span {
		struct ust_span_stat *stat;
		int64_t ns;
	} *open;
	size_t depth, cap;
};

static uintptr_t name_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return (uintptr_t)(h | (UINT64_C(1) << 63));
}

static struct ust_span_stat *stat_get(struct ust_span_stats *ss, const char *name, size_t len)
{
	uintptr_t key = name_hash(name, len);
	struct ust_span_stat *head = ust_ptrmap_get(&ss->by_name, key), *s;

	for (s = head; s; s = s->next)
		if (!strncmp(s->name, name, len) && !s->name[len])
			return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->name = strndup(name, len);
	if (!s->name || (!head && ust_ptrmap_put(&ss->by_name, key, s) < 0)) {
		free(s->name);
		free(s);
		return NULL;
	}
	if (head) {
		s->next = head->next;
		head->next = s;
	}
	return s;
}

static bool has_suffix(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len > n && !memcmp(s + len - n, suffix, n);
}

static struct span_class *class_get(struct ust_span_stats *ss, const bt_event_class *ec)
{
	static const char *const begins[] = { "_begin", "_entry" };
	static const char *const ends[] = { "_end", "_exit" };
	struct span_class *c = ust_ptrmap_get(&ss->by_class, (uintptr_t)ec);
	const char *name;
	size_t len, i;

	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c || ust_ptrmap_put(&ss->by_class, (uintptr_t)ec, c) < 0) {
		free(c);
		return NULL;
	}
	name = bt_event_class_get_name(ec);
	if (!name || ust_func_kind_of(ec) != UST_FUNC_NONE)
		return c;
	len = strlen(name);
	for (i = 0; i < 2 && c->kind == SPAN_NONE; i++) {
		if (has_suffix(name, len, begins[i])) {
			c->kind = SPAN_BEGIN;
			len -= strlen(begins[i]);
		} else if (has_suffix(name, len, ends[i])) {
			c->kind = SPAN_END;
			len -= strlen(ends[i]);
		}
	}
	if (c->kind != SPAN_NONE) {
		c->stat = stat_get(ss, name, len);
		if (!c->stat) {
			c->kind = SPAN_NONE;
			return NULL;
		}
	}
	return c;
}

static int dur_add(struct ust_span_stat *s, int64_t d)
{
	if (s->nr == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		int64_t *p = realloc(s->dur, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->dur = p;
		s->cap = cap;
	}
	s->dur[s->nr++] = d;
	return 0;
}

int ust_span_stats_event(struct ust_span_stats *ss, const bt_event_class *ec, uintptr_t track,
			 int64_t ns)
{
	struct span_class *c = class_get(ss, ec);
	struct span_track *t;

	if (!c)
		return -ENOMEM;
	if (c->kind == SPAN_NONE)
		return 0;
	t = ust_ptrmap_get(&ss->tracks, track);
	if (!t) {
		if (c->kind == SPAN_END)
			return 0;
		t = calloc(1, sizeof(*t));
		if (!t || ust_ptrmap_put(&ss->tracks, track, t) < 0) {
			free(t);
			return -ENOMEM;
		}
	}
	if (c->kind == SPAN_BEGIN) {
		if (t->depth == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 8;
			struct open_span *p = realloc(t->open, cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			t->open = p;
			t->cap = cap;
		}
		t->open[t->depth++] = (struct open_span) { c->stat, ns };
		return 0;
	}
	if (!t->depth || t->open[t->depth - 1].stat != c->stat)
		return 0;
	t->depth--;
	return dur_add(c->stat, ns - t->open[t->depth].ns);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp((*(struct ust_span_stat *const *)a)->name,
		      (*(struct ust_span_stat *const *)b)->name);
}

struct ust_span_stat **ust_span_stats_rows(struct ust_span_stats *ss, size_t *nr)
{
	struct ust_span_stat **rows, *s;
	size_t i, j, n = 0;

	for (i = 0; i < ss->by_name.cap; i++)
		for (s = ss->by_name.slots[i].key ? ss->by_name.slots[i].value : NULL; s; s = s->next)
			s->unclosed = 0, n++;
	rows = calloc(n + 1, sizeof(*rows));
	if (!rows)
		return NULL;
	for (i = 0; i < ss->tracks.cap; i++) {
		struct span_track *t = ss->tracks.slots[i].key ? ss->tracks.slots[i].value : NULL;

		for (j = 0; t && j < t->depth; j++)
			t->open[j].stat->unclosed++;
	}
	/* A name seen only in ends that closed nothing is no span. */
	n = 0;
	for (i = 0; i < ss->by_name.cap; i++)
		for (s = ss->by_name.slots[i].key ? ss->by_name.slots[i].value : NULL; s; s = s->next) {
			qsort(s->dur, s->nr, sizeof(*s->dur), cmp_i64);
			if (s->nr || s->unclosed)
				rows[n++] = s;
		}
	qsort(rows, n, sizeof(*rows), cmp_name);
	*nr = n;
	return rows;
}

int64_t ust_span_percentile(const struct ust_span_stat *s, unsigned int p)
{
	size_t rank;

	if (!s->nr)
		return 0;
	rank = ((size_t)p * s->nr + 99) / 100;	/* ceil(p/100 * n), >= 1 */
	return s->dur[(rank ? rank : 1) - 1];
}

static void stat_free(void *p)
{
	struct ust_span_stat *s = p, *next;

	for (; s; s = next) {
		next = s->next;
		free(s->name);
		free(s->dur);
		free(s);
	}
}

static void track_free(void *p)
{
	struct span_track *t = p;

	free(t->open);
	free(t);
}

void ust_span_stats_fini(struct ust_span_stats *ss)
{
	ust_ptrmap_fini(&ss->by_class, free);
	ust_ptrmap_fini(&ss->by_name, stat_free);
	ust_ptrmap_fini(&ss->tracks, track_free);
}
