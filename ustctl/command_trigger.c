/* SPDX-License-Identifier: GPL-2.0-only */
/* add-trigger, list-triggers, remove-trigger. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ust/ustctl.h>
#include "ustctl/command.h"
#include "ustctl/output.h"

/* What libust accepts (libust/trigger.h, UST_TRIGGER_AT_MOST_MAX). */
#define AT_MOST_MAX	600u

/* "N/minute" (or "N/min", "N/m"), N from 1 to AT_MOST_MAX. */
static int parse_at_most(const struct ustctl_cmd *cmd, const char *text, unsigned *out)
{
	unsigned long v;
	char *end;

	v = strtoul(text, &end, 10);
	if (end == text || *text < '0' || *text > '9' || *end != '/' ||
	    (strcasecmp(end + 1, "minute") && strcasecmp(end + 1, "min") &&
	     strcasecmp(end + 1, "m")) || v == 0 || v > AT_MOST_MAX)
		return ustctl_usage_error(cmd, "--at-most '%s': give N/minute with N from 1 to %u",
					  text, AT_MOST_MAX);
	*out = (unsigned)v;
	return 0;
}

static void mi_trigger(unsigned id, const char *pattern, const char *filter, const char *dir,
		       unsigned at_most)
{
	ustctl_mi_open("trigger");
	ustctl_mi_attr("id", "%u", id);
	ustctl_mi_attr("on", "%s", pattern);
	if (filter && *filter)
		ustctl_mi_attr("filter", "%s", filter);
	if (dir && *dir)
		ustctl_mi_attr("dir", "%s", dir);
	if (at_most)
		ustctl_mi_attr("at-most", "%u", at_most);
}

/* A trigger as add-trigger takes it, then its counts: one line of
 * list-triggers, with its MI element, which the caller closes. */
static void trigger_line(unsigned id, const char *pattern, const char *filter, const char *dir,
			 unsigned at_most)
{
	mi_trigger(id, pattern, filter, dir, at_most);
	if (ustctl_out_mi())
		return;
	printf("%u: --on %s%s%s%s --snapshot -o %s", id, pattern, *filter ? " --filter '" : "",
	       filter, *filter ? "'" : "", *dir ? dir : "(ustd's output)");
	if (at_most)
		printf(" --at-most %u/minute", at_most);
}

/* The trigger of a session held by ustd (add-trigger -s NAME). */
static int add_session_trigger(const struct ustctl_args *args, unsigned at_most)
{
	unsigned id = 0;

	if (ustctl_session_add_trigger(args->session, args->on, args->rule.filter, args->dir,
				       at_most, &id) < 0)
		return ustctl_session_failed(args->cmd, args->session);
	ustctl_session_mi_ok(args->session);
	mi_trigger(id, args->on, args->rule.filter, args->dir, at_most);
	ustctl_mi_close();
	ustctl_mi_close();
	if (!ustctl_out_mi())
		printf("session %s: trigger %u added\n", args->session, id);
	return USTCTL_EXIT_OK;
}

int ustctl_cmd_add_trigger(const struct ustctl_args *args)
{
	const struct ustctl_cmd *cmd = args->cmd;
	unsigned at_most = 0, id = 0;
	pid_t pid = 0;
	int ret;

	if (args->session) {
		if (args->argc)
			return ustctl_usage_error(cmd, "-s names the session: no PID goes with it ('%s')",
						  args->argv[0]);
		if (ustctl_check_session_name_arg(cmd, args->session))
			return USTCTL_EXIT_USAGE;
	} else if (ustctl_parse_pid(cmd, args->argv[0], &pid) < 0) {
		return USTCTL_EXIT_USAGE;
	}
	if (!args->on || !*args->on)
		return ustctl_usage_error(cmd, "--on PATTERN is missing: which events fire the trigger");
	if (ustctl_check_pattern(cmd, args->on))
		return USTCTL_EXIT_USAGE;
	if (!args->snapshot)
		return ustctl_usage_error(cmd, "--snapshot is missing: it is the action a trigger takes");
	if (args->at_most && parse_at_most(cmd, args->at_most, &at_most))
		return USTCTL_EXIT_USAGE;
	if (args->session)
		return add_session_trigger(args, at_most);
	ret = ustctl_add_trigger(pid, args->trace, args->on, args->rule.filter, args->dir, at_most,
				 &id);
	ustctl_mi_open_process(pid, args->trace, ret >= 0);
	if (ret < 0) {
		ustctl_fail(pid, "add-trigger: %s", ustctl_last_error());
		ustctl_mi_close();
		return ustctl_call_status(cmd);
	}
	mi_trigger(id, args->on, args->rule.filter, args->dir, at_most);
	ustctl_mi_close();
	ustctl_mi_close();
	if (!ustctl_out_mi())
		printf("pid %d: trigger %u added\n", (int)pid, id);
	return USTCTL_EXIT_OK;
}

void ustctl_session_triggers_out(const struct ustctl_session_trigger *t, size_t nr,
				 const char *indent)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (!ustctl_out_mi())
			printf("%s", indent);
		trigger_line(t[i].id, t[i].pattern, t[i].filter, t[i].dir, t[i].at_most);
		ustctl_mi_attr("fired", "%" PRIu64, t[i].fired);
		ustctl_mi_attr("snapshots", "%" PRIu64, t[i].snapshots);
		ustctl_mi_attr("over-limit", "%" PRIu64, t[i].over_limit);
		ustctl_mi_attr("failed", "%" PRIu64, t[i].failed);
		ustctl_mi_close();
		if (ustctl_out_mi())
			continue;
		printf("; fired %" PRIu64 ", snapshots %" PRIu64 ", over the limit %" PRIu64
		       ", failed %" PRIu64 "\n", t[i].fired, t[i].snapshots, t[i].over_limit,
		       t[i].failed);
	}
}

/* list-triggers -s NAME */
static int list_session_triggers(const struct ustctl_args *args)
{
	struct ustctl_session_trigger *t = NULL;
	size_t nr = 0;

	if (args->argc)
		return ustctl_usage_error(args->cmd, "-s names the session: no PID goes with it ('%s')",
					  args->argv[0]);
	if (ustctl_check_session_name_arg(args->cmd, args->session))
		return USTCTL_EXIT_USAGE;
	if (ustctl_session_list_triggers(args->session, &t, &nr) < 0)
		return ustctl_session_failed(args->cmd, args->session);
	ustctl_session_mi_ok(args->session);
	ustctl_session_triggers_out(t, nr, "");
	ustctl_mi_close();
	ustctl_free_session_triggers(t, nr);
	return USTCTL_EXIT_OK;
}

int ustctl_cmd_list_triggers(const struct ustctl_args *args)
{
	struct ustctl_trigger *t = NULL;
	size_t nr = 0, i;
	pid_t pid;
	int ret;

	if (args->session)
		return list_session_triggers(args);
	if (ustctl_parse_pid(args->cmd, args->argv[0], &pid) < 0)
		return USTCTL_EXIT_USAGE;
	ret = ustctl_list_triggers(pid, args->trace, &t, &nr);
	ustctl_mi_open_process(pid, args->trace, ret >= 0);
	if (ret < 0) {
		ustctl_fail(pid, "list-triggers: %s", ustctl_last_error());
		ustctl_mi_close();
		return ustctl_call_status(args->cmd);
	}
	for (i = 0; i < nr; i++) {
		trigger_line(t[i].id, t[i].pattern, t[i].filter, t[i].dir, t[i].at_most);
		ustctl_mi_attr("fired", "%" PRIu64, t[i].fired);
		ustctl_mi_attr("notified", "%" PRIu64, t[i].notified);
		ustctl_mi_attr("limited", "%" PRIu64, t[i].limited);
		ustctl_mi_attr("dropped", "%" PRIu64, t[i].dropped);
		ustctl_mi_close();
		if (ustctl_out_mi())
			continue;
		printf("; fired %" PRIu64 ", told ustd %" PRIu64 ", held back %" PRIu64
		       ", not sent %" PRIu64 "%s%s%s\n", t[i].fired, t[i].notified, t[i].limited,
		       t[i].dropped, t[i].dropped ? " (" : "", t[i].dropped ? t[i].drop_reason : "",
		       t[i].dropped ? ")" : "");
	}
	ustctl_mi_close();
	ustctl_free_triggers(t, nr);
	return USTCTL_EXIT_OK;
}

int ustctl_cmd_remove_trigger(const struct ustctl_args *args)
{
	const char *id_arg = args->argv[args->session ? 0 : 1];
	unsigned long id;
	char *end;
	pid_t pid = 0;
	int ret;

	if (args->session) {
		if (args->argc != 1)
			return ustctl_usage_error(args->cmd, "-s NAME takes the trigger's number only");
		if (ustctl_check_session_name_arg(args->cmd, args->session))
			return USTCTL_EXIT_USAGE;
	} else if (ustctl_parse_pid(args->cmd, args->argv[0], &pid) < 0) {
		return USTCTL_EXIT_USAGE;
	}
	id = strtoul(id_arg, &end, 10);
	if (end == id_arg || *end || *id_arg < '0' || *id_arg > '9' || id == 0 || id > UINT32_MAX)
		return ustctl_usage_error(args->cmd, "'%s' is not a trigger number (list-triggers lists them)",
					  id_arg);
	if (args->session) {
		if (ustctl_session_remove_trigger(args->session, (unsigned)id) < 0)
			return ustctl_session_failed(args->cmd, args->session);
		ustctl_session_mi_ok(args->session);
		ustctl_mi_close();
		if (!ustctl_out_mi())
			printf("session %s: trigger %lu removed\n", args->session, id);
		return USTCTL_EXIT_OK;
	}
	ret = ustctl_remove_trigger(pid, args->trace, (unsigned)id);
	ustctl_mi_open_process(pid, args->trace, ret >= 0);
	if (ret < 0) {
		ustctl_fail(pid, "remove-trigger: %s", ustctl_last_error());
		ustctl_mi_close();
		return ustctl_call_status(args->cmd);
	}
	ustctl_mi_close();
	if (!ustctl_out_mi())
		printf("pid %d: trigger %lu removed\n", (int)pid, id);
	return USTCTL_EXIT_OK;
}
