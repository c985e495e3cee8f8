/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bt2plugin/func_opts.h"

const char *const ust_func_opts_keys[] = {
	"func-sort", "func-rows", "func-graph", "func-filter", "func-notrace", "func-depth",
	"func-time", NULL,
};

static int parse_sort(struct ust_func_opts *o, const char *value)
{
	static const char *const keys[] = {
		[UST_FUNC_SORT_CALLS] = "calls", [UST_FUNC_SORT_TOTAL] = "total",
		[UST_FUNC_SORT_SELF] = "self", [UST_FUNC_SORT_AVG] = "avg",
		[UST_FUNC_SORT_MIN] = "min", [UST_FUNC_SORT_MAX] = "max",
		[UST_FUNC_SORT_NAME] = "name",
	};
	size_t i;

	for (i = UST_FUNC_SORT_CALLS; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!strcmp(value, keys[i])) {
			o->sort = (enum ust_func_sort)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* A positive decimal count, without sign or trailing text. */
static int parse_count(const char *value, uint64_t *n)
{
	char *end;

	if (*value < '1' || *value > '9')
		return -EINVAL;
	errno = 0;
	*n = strtoull(value, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

/* A duration as uftrace writes them: a number and a unit (ns, us, ms, s;
 * none: ns). */
static int parse_time(const char *value, int64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "", 1 }, { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	char *end;
	double v;
	size_t i;

	if ((*value < '0' || *value > '9') && *value != '.')
		return -EINVAL;
	v = strtod(value, &end);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].unit) && v * units[i].ns < 9e18) {
			*ns = (int64_t)(v * units[i].ns + 0.5);
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_names(struct ust_func_names_list *l, const char *value)
{
	const char *p = value, *end;

	if (!*value)
		return -EINVAL;
	for (; *p; p = *end ? end + 1 : end) {
		char **names;

		end = strchr(p, ';');
		end = end ? end : p + strlen(p);
		if (end == p)
			continue;
		names = realloc(l->names, (l->nr + 1) * sizeof(*names));
		if (!names)
			return -ENOMEM;
		l->names = names;
		l->names[l->nr] = strndup(p, (size_t)(end - p));
		if (!l->names[l->nr])
			return -ENOMEM;
		l->nr++;
	}
	return l->nr ? 0 : -EINVAL;
}

int ust_func_opts_set(struct ust_func_opts *o, const char *key, const char *value,
		      const char **why)
{
	uint64_t n;
	int ret = -EINVAL;

	if (!strcmp(key, "func-sort")) {
		*why = "takes calls, total, self, avg, min, max or name";
		ret = parse_sort(o, value);
	} else if (!strcmp(key, "func-rows")) {
		*why = "takes a number of rows, or \"all\"";
		if (!strcmp(value, "all")) {
			o->rows = SIZE_MAX;
			ret = 0;
		} else if (!parse_count(value, &n)) {
			o->rows = n < SIZE_MAX ? (size_t)n : SIZE_MAX;
			ret = 0;
		}
	} else if (!strcmp(key, "func-graph")) {
		*why = "takes a function's name, or \"*\" for the whole program";
		if (*value) {
			free(o->graph);
			o->graph = strdup(value);
			ret = o->graph ? 0 : -ENOMEM;
		}
	} else if (!strcmp(key, "func-filter") || !strcmp(key, "func-notrace")) {
		*why = "takes function names, separated by ';'";
		ret = parse_names(!strcmp(key, "func-filter") ? &o->only : &o->hide, value);
	} else if (!strcmp(key, "func-depth")) {
		*why = "takes a depth of 1 or more";
		ret = parse_count(value, &o->depth);
	} else if (!strcmp(key, "func-time")) {
		*why = "takes a duration: a number and a unit, ns (the default), us, ms or s";
		ret = parse_time(value, &o->min_ns);
	}
	return ret;
}

bool ust_func_names_list_has(const struct ust_func_names_list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		if (!strcmp(l->names[i], name))
			return true;
	}
	return false;
}

static void names_fini(struct ust_func_names_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		free(l->names[i]);
	free(l->names);
}

void ust_func_opts_fini(struct ust_func_opts *o)
{
	names_fini(&o->only);
	names_fini(&o->hide);
	free(o->graph);
}
