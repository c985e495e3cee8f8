/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Triggers (ctl_protocol.h: ADD_TRIGGER, LIST_TRIGGERS, REMOVE_TRIGGER):
 * the filter is compiled and checked here as an enable rule's is.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/protocol.h"
#include "libustctl/internal.h"

#define TRIGGER_FIELDS	10

int ustctl_add_trigger(pid_t pid, const char *trace, const char *pattern, const char *filter,
		       const char *dir, unsigned at_most, unsigned *id)
{
	struct ustctl_rule rule = { .enable = 1, .pattern = (char *)pattern,
				    .filter = (char *)filter };
	struct ustctl_reply reply = { 0 };
	struct ustctl_marker *markers = NULL;
	char level[USTCOMM_LEVEL_SPEC_MAX], at_most_text[16], *hex = NULL, *abs_dir = NULL;
	const char *args[6];
	size_t nr = 0;
	uint32_t v;
	int ret;

	ret = ustctl_trace_arg(pid, trace, &args[0]);
	if (ret)
		return ret;
	abs_dir = malloc(USTCOMM_PATH_MAX);
	if (!abs_dir) {
		ustctl_set_error("out of memory");
		return -ENOMEM;
	}
	ret = ustctl_absolute_dir(pid, "add-trigger", dir, abs_dir, USTCOMM_PATH_MAX);
	if (ret)
		goto end;
	if (filter && *filter) {
		ret = ustctl_list_markers(pid, &markers, &nr);
		if (ret)
			goto end;
	}
	ret = ustctl_rule_prepare(pid, &rule, markers, nr, level, &hex);
	if (ret)
		goto end;
	snprintf(at_most_text, sizeof(at_most_text), "%u", at_most);
	args[1] = pattern;
	args[2] = filter ? filter : "";
	args[3] = hex;
	args[4] = abs_dir;
	args[5] = at_most_text;
	ret = ustctl_call_expect(pid, USTCOMM_CTL_ADD_TRIGGER, args, 6, 0, 1, &reply);
	if (ret)
		goto end;
	ret = ustctl_parse_u32(pid, USTCOMM_CTL_ADD_TRIGGER, reply.msg.payload, UINT32_MAX, &v);
	if (!ret)
		*id = v;
end:
	ustctl_reply_release(&reply);
	ustctl_free_markers(markers, nr);
	free(hex);
	free(abs_dir);
	return ret;
}

static int parse_u64(pid_t pid, const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || end == s || *end) {
		ustctl_set_error("process %d answered list-triggers with '%s' where a count goes",
				 (int)pid, s);
		return -EPROTO;
	}
	return 0;
}

static int parse_trigger(pid_t pid, const struct ustcomm_ctl_msg *msg, const char **pos,
			 struct ustctl_trigger *t)
{
	const char *f[TRIGGER_FIELDS];
	uint32_t v;
	int i, ret;

	for (i = 0; i < TRIGGER_FIELDS; i++)
		f[i] = ustcomm_ctl_next(msg, pos);
	ret = ustctl_parse_u32(pid, USTCOMM_CTL_LIST_TRIGGERS, f[0], UINT32_MAX, &v);
	if (ret)
		return ret;
	t->id = v;
	ret = ustctl_parse_u32(pid, USTCOMM_CTL_LIST_TRIGGERS, f[4], UINT32_MAX, &v);
	if (ret)
		return ret;
	t->at_most = v;
	ret = parse_u64(pid, f[5], &t->fired);
	if (!ret)
		ret = parse_u64(pid, f[6], &t->notified);
	if (!ret)
		ret = parse_u64(pid, f[7], &t->limited);
	if (!ret)
		ret = parse_u64(pid, f[8], &t->dropped);
	if (ret)
		return ret;
	t->pattern = strdup(f[1]);
	t->filter = strdup(f[2]);
	t->dir = strdup(f[3]);
	t->drop_reason = strdup(f[9]);
	if (!t->pattern || !t->filter || !t->dir || !t->drop_reason) {
		ustctl_set_error("out of memory");
		return -ENOMEM;
	}
	return 0;
}

int ustctl_list_triggers(pid_t pid, const char *trace, struct ustctl_trigger **triggers,
			 size_t *nr)
{
	struct ustctl_reply reply = { 0 };
	struct ustctl_trigger *list = NULL;
	const char *pos = NULL, *args[1];
	size_t i, count = 0;
	int ret;

	*triggers = NULL;
	*nr = 0;
	ret = ustctl_trace_arg(pid, trace, &args[0]);
	if (ret)
		return ret;
	ret = ustctl_call(pid, USTCOMM_CTL_LIST_TRIGGERS, args, 1, &reply);
	if (ret)
		goto end;
	if (reply.msg.nr_strings % TRIGGER_FIELDS) {
		ret = -EPROTO;
		ustctl_set_error("process %d answered list-triggers with %u strings, not %d per trigger",
				 (int)pid, reply.msg.nr_strings, TRIGGER_FIELDS);
		goto end;
	}
	count = reply.msg.nr_strings / TRIGGER_FIELDS;
	if (count) {
		list = calloc(count, sizeof(*list));
		if (!list) {
			ret = -ENOMEM;
			ustctl_set_error("out of memory");
			goto end;
		}
	}
	for (i = 0; i < count && !ret; i++)
		ret = parse_trigger(pid, &reply.msg, &pos, &list[i]);
	if (ret) {
		ustctl_free_triggers(list, count);
		goto end;
	}
	*triggers = list;
	*nr = count;
end:
	ustctl_reply_release(&reply);
	return ret;
}

void ustctl_free_triggers(struct ustctl_trigger *triggers, size_t nr)
{
	size_t i;

	for (i = 0; triggers && i < nr; i++) {
		free(triggers[i].pattern);
		free(triggers[i].filter);
		free(triggers[i].dir);
		free(triggers[i].drop_reason);
	}
	free(triggers);
}

int ustctl_remove_trigger(pid_t pid, const char *trace, unsigned id)
{
	struct ustctl_reply reply = { 0 };
	const char *args[2];
	char id_text[16];
	int ret;

	ret = ustctl_trace_arg(pid, trace, &args[0]);
	if (ret)
		return ret;
	snprintf(id_text, sizeof(id_text), "%u", id);
	args[1] = id_text;
	ret = ustctl_call_expect(pid, USTCOMM_CTL_REMOVE_TRIGGER, args, 2, 0, 0, &reply);
	ustctl_reply_release(&reply);
	return ret;
}
