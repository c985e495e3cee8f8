/* SPDX-License-Identifier: LGPL-2.1-only */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bt2plugin/func_report.h"
#include "bt2plugin/xml_text.h"

/* Rows of the default tables; the rest is counted. */
#define ROWS_BY_TOTAL	50
#define ROWS_BY_SELF	10

static int64_t avg_ns(const struct ust_func_stat *s)
{
	return s->calls ? s->sum_ns / (int64_t)s->calls : 0;
}

static int64_t key_of(const struct ust_func_stat *s, enum ust_func_sort key)
{
	switch (key) {
	case UST_FUNC_SORT_CALLS:
		return s->calls > INT64_MAX ? INT64_MAX : (int64_t)s->calls;
	case UST_FUNC_SORT_SELF:
		return s->self_ns;
	case UST_FUNC_SORT_AVG:
		return avg_ns(s);
	case UST_FUNC_SORT_MIN:
		return s->min_ns;
	case UST_FUNC_SORT_MAX:
		return s->max_ns;
	default:
		return s->total_ns;
	}
}

/* qsort() has no user data: the key goes through a static, which is safe
 * because babeltrace2 runs a graph's components on one thread. */
static enum ust_func_sort sort_key;

/* Largest first, then by name; by name alone for UST_FUNC_SORT_NAME. */
static int compare(const void *a, const void *b)
{
	const struct ust_func_stat *x = *(struct ust_func_stat *const *)a;
	const struct ust_func_stat *y = *(struct ust_func_stat *const *)b;
	int64_t kx, ky;

	if (sort_key != UST_FUNC_SORT_NAME) {
		kx = key_of(x, sort_key);
		ky = key_of(y, sort_key);
		if (kx != ky)
			return kx < ky ? 1 : -1;
	}
	return strcmp(x->name, y->name);
}

static void sort(struct ust_func_stat **funcs, size_t n, enum ust_func_sort key)
{
	sort_key = key;
	qsort(funcs, n, sizeof(*funcs), compare);
}

static void table(FILE *f, const char *title, struct ust_func_stat **funcs, size_t n, size_t max)
{
	size_t i;

	fprintf(f, "\n%-12s %14s %14s %12s %12s %12s  %s\n", "calls", "total (s)", "self (s)",
		"avg (us)", "min (us)", "max (us)", title);
	for (i = 0; i < n && i < max; i++)
		fprintf(f, "%-12" PRIu64 " %14.6f %14.6f %12.3f %12.3f %12.3f  %s\n",
			funcs[i]->calls, funcs[i]->total_ns / 1e9, funcs[i]->self_ns / 1e9,
			avg_ns(funcs[i]) / 1e3, funcs[i]->min_ns / 1e3, funcs[i]->max_ns / 1e3,
			funcs[i]->name);
	if (n > max)
		fprintf(f, "(%zu more functions)\n", n - max);
}

static void xml_rows(FILE *f, struct ust_func_stat **funcs, size_t n, size_t max)
{
	size_t i;

	for (i = 0; i < n && i < max; i++) {
		fputs("    <function name=\"", f);
		ust_xml_escaped(f, funcs[i]->name);
		fprintf(f, "\" calls=\"%" PRIu64 "\" total_ns=\"%" PRId64 "\" self_ns=\"%" PRId64
			"\" avg_ns=\"%" PRId64 "\" min_ns=\"%" PRId64 "\" max_ns=\"%" PRId64 "\"/>\n",
			funcs[i]->calls, funcs[i]->total_ns, funcs[i]->self_ns, avg_ns(funcs[i]),
			funcs[i]->min_ns, funcs[i]->max_ns);
	}
}

void ust_func_report_print(FILE *f, struct ust_func_stat **funcs, size_t n,
			   const struct ust_func_opts *o, bool xml)
{
	static const char *const titles[] = {
		[UST_FUNC_SORT_CALLS] = "function, by calls",
		[UST_FUNC_SORT_TOTAL] = "function, by total time",
		[UST_FUNC_SORT_SELF] = "function, by self time",
		[UST_FUNC_SORT_AVG] = "function, by average time",
		[UST_FUNC_SORT_MIN] = "function, by shortest call",
		[UST_FUNC_SORT_MAX] = "function, by longest call",
		[UST_FUNC_SORT_NAME] = "function, by name",
	};

	sort(funcs, n, o->sort == UST_FUNC_SORT_DEFAULT ? UST_FUNC_SORT_TOTAL : o->sort);
	if (xml) {
		xml_rows(f, funcs, n, o->rows ? o->rows : SIZE_MAX);
		return;
	}
	if (o->sort != UST_FUNC_SORT_DEFAULT) {
		table(f, titles[o->sort], funcs, n, o->rows ? o->rows : ROWS_BY_TOTAL);
		return;
	}
	table(f, titles[UST_FUNC_SORT_TOTAL], funcs, n, o->rows ? o->rows : ROWS_BY_TOTAL);
	sort(funcs, n, UST_FUNC_SORT_SELF);
	table(f, titles[UST_FUNC_SORT_SELF], funcs, n, o->rows ? o->rows : ROWS_BY_SELF);
}
