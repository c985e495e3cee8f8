/* SPDX-License-Identifier: GPL-2.0-only */
/* The argument checks and reports every command shares (command.h). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ust/ustctl.h>
#include "libustcomm/common.h"
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/metadata.h"
#include "libustcomm/pattern.h"
#include "libustcomm/shm_layout.h"
#include "ustctl/command.h"
#include "ustctl/output.h"

/* The usage line is printed once, however many errors there are. */
static bool usage_shown;

void ustctl_print_usage(FILE *fp, const struct ustctl_cmd *cmd)
{
	if (cmd)
		fprintf(fp, "usage: ustctl [--mi xml] %s%s%s\n", cmd->name, cmd->args[0] ? " " : "",
			cmd->args);
	else
		fprintf(fp, "usage: ustctl [--mi xml] [--timeout MS] COMMAND [OPTION...] [ARG...]\n"
			"       (ustctl --help lists the commands)\n");
}

int ustctl_usage_error(const struct ustctl_cmd *cmd, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (cmd)
		ustctl_fail(0, "%s: %s", cmd->name, msg ? msg : fmt);
	else
		ustctl_fail(0, "%s", msg ? msg : fmt);
	free(msg);
	if (!usage_shown)
		ustctl_print_usage(stderr, cmd);
	usage_shown = true;
	return USTCTL_EXIT_USAGE;
}

int ustctl_parse_pid(const struct ustctl_cmd *cmd, const char *text, pid_t *pid)
{
	long v = 0;
	const char *p;

	for (p = text; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (*p - '0');
		if (v > INT_MAX)
			break;
	}
	if (p == text || *p || v <= 0) {
		ustctl_usage_error(cmd, "'%s' is not a process ID (a positive decimal integer)",
				   text);
		return -EINVAL;
	}
	*pid = (pid_t)v;
	return 0;
}

int ustctl_parse_channel_value(const struct ustctl_args *args, const char *example,
			       pid_t *pid, char **channel, const char **value)
{
	const char *arg = args->argv[1], *slash = strchr(arg, '/');

	if (ustctl_parse_pid(args->cmd, args->argv[0], pid) < 0)
		return USTCTL_EXIT_USAGE;
	if (!slash || slash == arg)
		return ustctl_usage_error(args->cmd, "'%s' is not %s", arg, example);
	*channel = strndup(arg, (size_t)(slash - arg));
	if (!*channel) {
		ustctl_fail(0, "%s", strerror(ENOMEM));
		return USTCTL_EXIT_FAILED;
	}
	*value = slash + 1;
	return 0;
}

int ustctl_parse_pid_channel(const struct ustctl_args *args, pid_t *pid)
{
	if (ustctl_parse_pid(args->cmd, args->argv[0], pid) < 0)
		return USTCTL_EXIT_USAGE;
	if (!args->argv[1][0])
		return ustctl_usage_error(args->cmd, "CHANNEL is empty");
	return 0;
}

int ustctl_parse_pids(const struct ustctl_args *args, int first, pid_t **pidsp)
{
	pid_t *pids = calloc((size_t)(args->argc - first), sizeof(*pids));
	int i, ret = 0;

	if (!pids) {
		ustctl_fail(0, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (i = first; i < args->argc; i++) {
		ret = ustctl_parse_pid(args->cmd, args->argv[i], &pids[i - first]);
		if (ret < 0)
			break;
	}
	if (ret < 0)
		free(pids);
	else
		*pidsp = pids;
	return ret;
}

void ustctl_fail_last(pid_t pid, const char *what)
{
	ustctl_fail(pid, "%s: %s", what, ustctl_last_error());
}


int ustctl_call_status(const struct ustctl_cmd *cmd)
{
	if (!ustctl_last_error_is_input())
		return USTCTL_EXIT_FAILED;
	if (!usage_shown)
		ustctl_print_usage(stderr, cmd);
	usage_shown = true;
	return USTCTL_EXIT_USAGE;
}

int ustctl_worse(int a, int b)
{
	return a > b ? a : b;
}

int ustctl_check_pattern(const struct ustctl_cmd *cmd, const char *pattern)
{
	if (!pattern[0])
		return ustctl_usage_error(cmd, "an empty pattern matches nothing; give a name or a glob such as 'ust:*'");
	if (!ustcomm_pattern_valid(pattern))
		return ustctl_usage_error(cmd, "invalid pattern '%s': " USTCOMM_PATTERN_RULE, pattern);
	return 0;
}

int ustctl_check_channel(const struct ustctl_cmd *cmd, const char *channel)
{
	if (!channel[0])
		return ustctl_usage_error(cmd, "CHANNEL is empty");
	if (strcmp(channel, "*") && (strlen(channel) >= UST_SHM_CHANNEL_NAME_MAX ||
				     !ustcomm_metadata_valid_identifier(channel)))
		return ustctl_usage_error(cmd, "invalid channel name '%s': an identifier of at most %d characters, or * for every channel",
					  channel, UST_SHM_CHANNEL_NAME_MAX - 1);
	return 0;
}

int ustctl_check_session_name_arg(const struct ustctl_cmd *cmd, const char *name)
{
	if (!ustcomm_session_name_valid(name))
		return ustctl_usage_error(cmd, "invalid session name '%s': 1 to %u letters, digits, '_', '.' or '-', not starting with '.' or '-', and not 'auto'",
					  name, USTCOMM_SESSION_NAME_MAX - 1);
	return 0;
}

int ustctl_session_failed(const struct ustctl_cmd *cmd, const char *name)
{
	ustctl_mi_open("ustd-session");
	ustctl_mi_attr("name", "%s", name);
	ustctl_mi_attr("success", "false");
	ustctl_fail(0, "%s %s: %s", cmd->name, name, ustctl_last_error());
	ustctl_mi_close();
	return ustctl_call_status(cmd);
}

void ustctl_session_mi_ok(const char *name)
{
	ustctl_mi_open("ustd-session");
	ustctl_mi_attr("name", "%s", name);
	ustctl_mi_attr("success", "true");
}
