/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bt2plugin/plt_values.h"

/* Distinct values kept per function and kind; more are counted apart. */
#define PV_DISTINCT_MAX	1000
/* Listed per function and kind, the most frequent first. */
#define PV_SHOWN	10
/* Printed in decimal between -PV_DECIMAL and PV_DECIMAL, else in hex. */
#define PV_DECIMAL	1000000

struct pv_value {
	char *text;
	uint64_t count;
};

struct pv_set {
	struct pv_value *v;
	size_t nr, cap;
	uint64_t other;		/* past PV_DISTINCT_MAX */
};

struct pv_func {
	char *name;
	struct pv_set args, rets;
};

static struct pv_func *func_get(struct ust_plt_values *pv, const char *name)
{
	struct pv_func *fs;
	size_t i;

	for (i = 0; i < pv->nr; i++) {
		if (!strcmp(pv->funcs[i].name, name))
			return &pv->funcs[i];
	}
	if (pv->nr == pv->cap) {
		fs = realloc(pv->funcs, (pv->cap ? 2 * pv->cap : 8) * sizeof(*fs));
		if (!fs)
			return NULL;
		pv->funcs = fs;
		pv->cap = pv->cap ? 2 * pv->cap : 8;
	}
	memset(&pv->funcs[pv->nr], 0, sizeof(pv->funcs[pv->nr]));
	pv->funcs[pv->nr].name = strdup(name);
	if (!pv->funcs[pv->nr].name)
		return NULL;
	return &pv->funcs[pv->nr++];
}

static int set_count(struct pv_set *s, const char *text)
{
	struct pv_value *v;
	size_t i;

	for (i = 0; i < s->nr; i++) {
		if (!strcmp(s->v[i].text, text)) {
			s->v[i].count++;
			return 0;
		}
	}
	if (s->nr == PV_DISTINCT_MAX) {
		s->other++;
		return 0;
	}
	if (s->nr == s->cap) {
		v = realloc(s->v, (s->cap ? 2 * s->cap : 8) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = s->cap ? 2 * s->cap : 8;
	}
	s->v[s->nr].text = strdup(text);
	if (!s->v[s->nr].text)
		return -ENOMEM;
	s->v[s->nr++].count = 1;
	return 0;
}

static uint64_t field_u64(const bt_field *f)
{
	if (bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		return bt_field_integer_unsigned_get_value(f);
	if (bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return (uint64_t)bt_field_integer_signed_get_value(f);
	return 0;
}

static const bt_field *member(const bt_field *payload, const char *name)
{
	if (!payload || bt_field_get_class_type(payload) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return NULL;
	return bt_field_structure_borrow_member_field_by_name_const(payload, name);
}

uint64_t ust_plt_values_addr(const bt_field *payload)
{
	const bt_field *f = member(payload, "addr");

	return f ? field_u64(f) : 0;
}

/* v at p, as the text shows it; returns the characters written. */
static int put_value(char *p, size_t len, uint64_t v)
{
	int64_t s = (int64_t)v;

	if (s > -PV_DECIMAL && s < PV_DECIMAL)
		return snprintf(p, len, "%" PRId64, s);
	return snprintf(p, len, "0x%" PRIx64, v);
}

int ust_plt_values_event(struct ust_plt_values *pv, const char *func, bool ret,
			 const bt_field *payload)
{
	char text[6 * 24 + 8];
	const bt_field *f;
	struct pv_func *fn;
	size_t len = 0;
	uint64_t i, n;

	f = member(payload, ret ? "ret" : "args");
	if (!f)
		return 0;
	if (ret) {
		put_value(text, sizeof(text), field_u64(f));
	} else {
		if (!bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_ARRAY))
			return 0;
		n = bt_field_array_get_length(f);
		text[len++] = '(';
		for (i = 0; i < n && i < 6; i++) {
			if (i)
				len += (size_t)snprintf(text + len, sizeof(text) - len, ", ");
			len += (size_t)put_value(text + len, sizeof(text) - len,
				field_u64(bt_field_array_borrow_element_field_by_index_const(f, i)));
		}
		snprintf(text + len, sizeof(text) - len, ")");
	}
	fn = func_get(pv, func);
	if (!fn)
		return -ENOMEM;
	return set_count(ret ? &fn->rets : &fn->args, text);
}

static int by_count(const void *a, const void *b)
{
	const struct pv_value *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->text, y->text);
}

static void set_print(struct pv_set *s, const char *name, FILE *f)
{
	size_t i;

	qsort(s->v, s->nr, sizeof(*s->v), by_count);
	for (i = 0; i < s->nr && i < PV_SHOWN; i++)
		fprintf(f, "%-12" PRIu64 "  %-30s  %s\n", s->v[i].count, name, s->v[i].text);
	if (s->nr > PV_SHOWN || s->other)
		fprintf(f, "%-12s  %-30s  (%zu more distinct%s)\n", "", name, s->nr - (s->nr > PV_SHOWN ? PV_SHOWN : s->nr),
			s->other ? ", and more not kept" : "");
}

void ust_plt_values_print(const struct ust_plt_values *pv, FILE *f)
{
	bool any = false;
	size_t i;

	for (i = 0; i < pv->nr; i++) {
		if (!pv->funcs[i].args.nr)
			continue;
		if (!any)
			fprintf(f, "\n%-12s  %-30s  %s\n", "calls", "function", "arguments (ust_plt:args)");
		any = true;
		set_print(&pv->funcs[i].args, pv->funcs[i].name, f);
	}
	any = false;
	for (i = 0; i < pv->nr; i++) {
		if (!pv->funcs[i].rets.nr)
			continue;
		if (!any)
			fprintf(f, "\n%-12s  %-30s  %s\n", "calls", "function", "returned (ust_plt:ret)");
		any = true;
		set_print(&pv->funcs[i].rets, pv->funcs[i].name, f);
	}
}

static void set_free(struct pv_set *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		free(s->v[i].text);
	free(s->v);
}

void ust_plt_values_fini(struct ust_plt_values *pv)
{
	size_t i;

	for (i = 0; i < pv->nr; i++) {
		set_free(&pv->funcs[i].args);
		set_free(&pv->funcs[i].rets);
		free(pv->funcs[i].name);
	}
	free(pv->funcs);
}
