/* SPDX-License-Identifier: LGPL-2.1-only */
/* Triggers of sessions held by ustd (SESSION_TRIGGER, SESSION_LIST_TRIGGERS,
 * SESSION_REMOVE_TRIGGER): the calls of ustctl.h. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/protocol.h"
#include "libustctl/internal.h"

/* Strings a trigger in the answer to SESSION_LIST_TRIGGERS. */
#define LIST_FIELDS	9

int ustctl_session_add_trigger(const char *name, const char *pattern, const char *filter,
			       const char *dir, unsigned at_most, unsigned *id)
{
	struct ustctl_rule rule = { .enable = 1, .pattern = (char *)pattern,
				    .filter = (char *)filter };
	char level[USTCOMM_LEVEL_SPEC_MAX], at_most_text[16], *hex = NULL, *abs_dir = NULL;
	const char *args[6];
	uint32_t v = 0;
	int ret = ustctl_check_session_name(name);

	if (ret)
		return ret;
	abs_dir = calloc(1, USTCOMM_PATH_MAX);
	if (!abs_dir) {
		ustctl_set_error("out of memory");
		return -ENOMEM;
	}
	ret = ustctl_absolute_dir(0, "add-trigger", dir, abs_dir, USTCOMM_PATH_MAX);
	/* No program to check the filter's fields against: its syntax. */
	if (!ret)
		ret = ustctl_rule_prepare(0, &rule, NULL, 0, level, &hex);
	if (ret)
		goto end;
	snprintf(at_most_text, sizeof(at_most_text), "%u", at_most);
	args[0] = name;
	args[1] = pattern;
	args[2] = filter ? filter : "";
	args[3] = hex ? hex : "";
	args[4] = abs_dir;
	args[5] = at_most_text;
	ret = ustctl_call_ustd_u32(USTCOMM_CTL_SESSION_TRIGGER, args, 6, 0, &v);
	if (!ret)
		*id = v;
end:
	free(hex);
	free(abs_dir);
	return ret;
}

static int parse_trigger(const char *const *f, struct ustctl_session_trigger *t)
{
	const uint16_t cmd = USTCOMM_CTL_SESSION_LIST_TRIGGERS;
	uint32_t v = 0, at_most = 0;
	int ret;

	ret = ustctl_parse_u32(0, cmd, f[0], UINT32_MAX, &v);
	if (!ret)
		ret = ustctl_parse_u32(0, cmd, f[4], UINT32_MAX, &at_most);
	if (!ret)
		ret = ustctl_parse_u64(0, cmd, f[5], UINT64_MAX, &t->fired);
	if (!ret)
		ret = ustctl_parse_u64(0, cmd, f[6], UINT64_MAX, &t->snapshots);
	if (!ret)
		ret = ustctl_parse_u64(0, cmd, f[7], UINT64_MAX, &t->over_limit);
	if (!ret)
		ret = ustctl_parse_u64(0, cmd, f[8], UINT64_MAX, &t->failed);
	if (ret)
		return ret;
	t->id = v;
	t->at_most = at_most;
	t->pattern = strdup(f[1]);
	t->filter = strdup(f[2]);
	t->dir = strdup(f[3]);
	if (!t->pattern || !t->filter || !t->dir) {
		ustctl_set_error("out of memory");
		return -ENOMEM;
	}
	return 0;
}

int ustctl_session_list_triggers(const char *name, struct ustctl_session_trigger **triggers,
				 size_t *nr)
{
	struct ustctl_session_trigger *list = NULL;
	const char *args[1] = { name }, *pos = NULL, *f[LIST_FIELDS];
	struct ustctl_reply reply = { 0 };
	size_t i, count = 0;
	int ret = ustctl_check_session_name(name), k;

	*triggers = NULL;
	*nr = 0;
	if (ret)
		return ret;
	ret = ustctl_call_ustd(USTCOMM_CTL_SESSION_LIST_TRIGGERS, args, 1, 0, &reply);
	if (ret)
		goto end;
	if (reply.msg.nr_strings % LIST_FIELDS) {
		ret = -EPROTO;
		ustctl_set_error("ustd answered list-triggers -s with a malformed list");
		goto end;
	}
	count = reply.msg.nr_strings / LIST_FIELDS;
	list = calloc(count + 1, sizeof(*list));
	if (!list) {
		ret = -ENOMEM;
		ustctl_set_error("out of memory");
		goto end;
	}
	for (i = 0; !ret && i < count; i++) {
		for (k = 0; k < LIST_FIELDS; k++)
			f[k] = ustcomm_ctl_next(&reply.msg, &pos);
		ret = parse_trigger(f, &list[i]);
	}
end:
	ustctl_reply_release(&reply);
	if (ret) {
		ustctl_free_session_triggers(list, count);
	} else {
		*triggers = list;
		*nr = count;
	}
	return ret;
}

void ustctl_free_session_triggers(struct ustctl_session_trigger *triggers, size_t nr)
{
	size_t i;

	for (i = 0; triggers && i < nr; i++) {
		free(triggers[i].pattern);
		free(triggers[i].filter);
		free(triggers[i].dir);
	}
	free(triggers);
}

int ustctl_session_remove_trigger(const char *name, unsigned id)
{
	char id_text[16];
	const char *args[2] = { name, id_text };
	int ret = ustctl_check_session_name(name);

	if (ret)
		return ret;
	snprintf(id_text, sizeof(id_text), "%u", id);
	return ustctl_call_ustd_u32(USTCOMM_CTL_SESSION_REMOVE_TRIGGER, args, 2, 0, NULL);
}
