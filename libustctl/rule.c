/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Enable rules with log levels and filters: the filter is compiled here,
 * checked against the fields of the events the rule matches in the
 * program, and sent as bytecode (ctl_protocol.h, enable-rule).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/filter_compile.h"
#include "libustcomm/hex.h"
#include "libustcomm/loglevel.h"
#include "libustcomm/pattern.h"
#include "libustctl/internal.h"

_Static_assert((int)USTCTL_LOGLEVEL_RANGE == (int)USTCOMM_LEVEL_RANGE &&
	       (int)USTCTL_LOGLEVEL_ONLY == (int)USTCOMM_LEVEL_ONLY,
	       "one numbering of level selections");

int ustctl_loglevel_parse(const char *name)
{
	return name ? ustcomm_loglevel_parse(name) : -EINVAL;
}

const char *ustctl_loglevel_name(int level)
{
	return ustcomm_loglevel_name(level);
}

/* The error of a compilation, with the expression and a caret under the column. */
static void filter_error(const char *filter, const struct ust_filter_error *err,
			 const char *event)
{
	int col = err->offset ? (int)err->offset : 1;

	ustctl_set_error("filter, column %d: %s%s%s\n  %s\n  %*s^", col, err->text,
			 event ? " in event " : "", event ? event : "", filter, col - 1, "");
}

/* A compilation that succeeded with a warning (ust_filter_compile() returned 1). */
static void filter_warning(const char *filter, const struct ust_filter_error *err,
			   const char *event)
{
	ustctl_add_warning("filter '%s'%s%s, column %u: %s", filter, event ? " on " : "",
			   event ? event : "", err->offset, err->text);
}

int ustctl_filter_check(const char *filter)
{
	struct ust_filter_error err;
	size_t len;
	void *prog = NULL;
	int ret;

	if (!filter || !*filter) {
		ustctl_set_error("the filter is empty");
		return -EINVAL;
	}
	ret = ust_filter_compile(filter, NULL, 0, &prog, &len, &err);
	if (ret < 0)
		filter_error(filter, &err, NULL);
	free(prog);
	return ret < 0 ? ret : 0;
}

/* "int32 value, uint64 hex addr, string path" -> fields; the name is the
 * last word of each item. */
static int parse_fields(const char *list, struct ust_filter_field **out, uint32_t *nr,
			char **storage)
{
	struct ust_filter_field *f = NULL;
	char *copy = strdup(list), *item, *save = NULL;
	uint32_t n = 0;

	*out = NULL;
	*nr = 0;
	*storage = copy;
	if (!copy)
		return -ENOMEM;
	f = calloc(strlen(list) / 2 + 1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *space;

		while (*item == ' ')
			item++;
		space = strrchr(item, ' ');
		if (!space)
			continue;
		*space = '\0';
		f[n].name = space + 1;
		f[n].type = (uint8_t)ust_filter_type_from_name(item);
		n++;
	}
	*out = f;
	*nr = n;
	return 0;
}

/*
 * The filter against every event the rule matches now: it must fit at
 * least one of them. Events it does not fit are not recorded by the rule;
 * a rule that matches no event yet (a library not loaded) is accepted.
 * A filter that fits none only because it names a field or a context they
 * lack is accepted with a warning, as LTTng accepts it (and records
 * nothing); *warned says whether that was said.
 */
static int check_against_markers(const struct ustctl_rule *rule, const struct ustctl_marker *markers,
				 size_t nr, int *warned)
{
	struct ust_filter_error err, first_err = { 0 }, first_warning = { 0 };
	const char *first_event = NULL, *warning_event = NULL;
	size_t i, matched = 0, fit = 0;
	int ret;

	*warned = 0;
	for (i = 0; i < nr; i++) {
		struct ust_filter_field *fields;
		char *storage;
		uint32_t nr_fields;
		void *prog = NULL;
		size_t len;

		if (!ustcomm_pattern_match(rule->pattern, markers[i].name) ||
		    !ustcomm_level_matches(rule->loglevel_match, rule->loglevel,
					   markers[i].loglevel))
			continue;
		matched++;
		ret = parse_fields(markers[i].fields, &fields, &nr_fields, &storage);
		if (!ret)
			ret = ust_filter_compile(rule->filter, fields, nr_fields, &prog, &len, &err);
		free(prog);
		free(fields);
		free(storage);
		if (ret == -ENOMEM) {
			ustctl_set_error("out of memory");
			return ret;
		}
		if (!ret) {
			fit++;
		} else if (ret > 0 && !warning_event) {
			first_warning = err;
			warning_event = markers[i].name;
		} else if (ret < 0 && !first_event) {
			first_err = err;
			first_event = markers[i].name;
		}
	}
	ret = 0;
	if (matched && !fit && warning_event) {
		filter_warning(rule->filter, &first_warning, warning_event);
		*warned = 1;
	} else if (matched && !fit) {
		filter_error(rule->filter, &first_err, first_event);
		ret = -EINVAL;
	}
	return ret;
}

static int check_rule(pid_t pid, const struct ustctl_rule *rule)
{
	if (!rule || !rule->pattern || !*rule->pattern) {
		ustctl_set_error("enable-marker for process %d: no pattern given", (int)pid);
		return -EINVAL;
	}
	if (rule->loglevel_match < USTCTL_LOGLEVEL_ANY ||
	    rule->loglevel_match > USTCTL_LOGLEVEL_ONLY ||
	    (rule->loglevel_match && !ustcomm_loglevel_name(rule->loglevel))) {
		ustctl_set_error("invalid log level %d: levels go from 0 (EMERG) to %d (DEBUG)",
				 rule->loglevel, USTCOMM_LOGLEVEL_MAX);
		return -EINVAL;
	}
	if (!rule->enable && (rule->loglevel_match || (rule->filter && *rule->filter))) {
		ustctl_set_error("a disable rule takes no log level and no filter");
		return -EINVAL;
	}
	if (rule->filter && strlen(rule->filter) > UST_FILTER_TEXT_MAX) {
		ustctl_set_error("the filter is longer than %u characters", UST_FILTER_TEXT_MAX);
		return -EINVAL;
	}
	return 0;
}

int ustctl_rule_prepare(pid_t pid, const struct ustctl_rule *rule,
			const struct ustctl_marker *markers, size_t nr_markers,
			char level[USTCOMM_LEVEL_SPEC_MAX], char **hex)
{
	struct ust_filter_error err;
	const char *filter;
	void *prog = NULL;
	size_t len = 0;
	int ret, warned = 0;

	*hex = NULL;
	ret = check_rule(pid, rule);
	if (ret)
		return ret;
	filter = rule->filter && *rule->filter ? rule->filter : NULL;
	if (filter) {
		ret = ust_filter_compile(filter, NULL, 0, &prog, &len, &err);
		if (ret < 0) {
			if (ret == -ENOMEM)
				ustctl_set_error("out of memory");
			else
				filter_error(filter, &err, NULL);
			goto end;
		}
		ret = check_against_markers(rule, markers, nr_markers, &warned);
		if (ret)
			goto end;
		/* Unknown contexts: said here when no event said it. */
		if (err.offset && !warned)
			filter_warning(filter, &err, NULL);
	}
	*hex = malloc(2 * len + 1);
	if (!*hex) {
		ret = -ENOMEM;
		ustctl_set_error("out of memory");
		goto end;
	}
	ustcomm_hex_encode(prog, len, *hex);
	ustcomm_level_spec_format(level, rule->enable ? rule->loglevel_match : USTCTL_LOGLEVEL_ANY,
				  rule->loglevel);
end:
	free(prog);
	return ret;
}

int ustctl_rule_check(pid_t pid, const struct ustctl_rule *rule)
{
	struct ustctl_marker *markers = NULL;
	char level[USTCOMM_LEVEL_SPEC_MAX], *hex = NULL;
	size_t nr = 0;
	int ret = 0;

	if (rule && rule->filter && *rule->filter)
		ret = ustctl_list_markers(pid, &markers, &nr);
	if (!ret)
		ret = ustctl_rule_prepare(pid, rule, markers, nr, level, &hex);
	free(hex);
	ustctl_free_markers(markers, nr);
	return ret;
}

int ustctl_enable_rule(pid_t pid, const char *trace, const struct ustctl_rule *rule)
{
	struct ustctl_reply reply = { 0 };
	struct ustctl_marker *markers = NULL;
	const char *args[5];
	char level[USTCOMM_LEVEL_SPEC_MAX], *hex = NULL;
	uint32_t matched;
	size_t nr = 0;
	int ret;

	ret = check_rule(pid, rule);
	if (ret)
		return ret;
	if (!rule->enable)
		return ustctl_disable_marker(pid, trace, (const char *const *)&rule->pattern, 1);
	if (!(rule->filter && *rule->filter) && !rule->loglevel_match)
		return ustctl_enable_marker(pid, trace, (const char *const *)&rule->pattern, 1);
	ret = ustctl_trace_arg(pid, trace, &args[0]);
	if (ret)
		return ret;
	if (rule->filter && *rule->filter) {
		ret = ustctl_list_markers(pid, &markers, &nr);
		if (ret)
			goto end;
	}
	ret = ustctl_rule_prepare(pid, rule, markers, nr, level, &hex);
	if (ret)
		goto end;
	args[1] = rule->pattern;
	args[2] = level;
	args[3] = rule->filter ? rule->filter : "";
	args[4] = hex;
	ret = ustctl_call_expect(pid, USTCOMM_CTL_ENABLE_RULE, args, 5, 0, 1, &reply);
	if (ret)
		goto end;
	ret = ustctl_parse_u32(pid, USTCOMM_CTL_ENABLE_RULE, reply.msg.payload, INT_MAX, &matched);
	if (!ret)
		ret = (int)matched;
end:
	ustctl_reply_release(&reply);
	ustctl_free_markers(markers, nr);
	free(hex);
	return ret;
}
