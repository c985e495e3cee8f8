/* SPDX-License-Identifier: GPL-2.0-only */
/* set-blocking-timeout and get-blocking-timeout. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ust/ustctl.h>
#include "ustctl/command.h"
#include "ustctl/output.h"

/* As --mi xml and the text say it: "inf" or microseconds. */
static void blocking_text(char *buf, size_t len, uint32_t us)
{
	if (us == USTCTL_BLOCKING_INF)
		snprintf(buf, len, "inf");
	else
		snprintf(buf, len, "%u", (unsigned)us);
}

static void blocking_mi(const char *channel, uint32_t us)
{
	char text[16];

	blocking_text(text, sizeof(text), us);
	ustctl_mi_open("channel");
	ustctl_mi_attr("name", "%s", channel);
	ustctl_mi_attr("blocking-timeout", "%s", text);
	ustctl_mi_close();
}

/* CHANNEL/TIMEOUT; the channel name may not hold a slash, the timeout does not. */
int ustctl_cmd_set_blocking(const struct ustctl_args *args)
{
	const char *arg = args->argv[1], *slash = strrchr(arg, '/');
	char *channel = NULL, text[16];
	uint32_t us;
	pid_t pid;
	int ret;

	if (ustctl_parse_pid(args->cmd, args->argv[0], &pid) < 0)
		return USTCTL_EXIT_USAGE;
	if (!slash || slash == arg)
		return ustctl_usage_error(args->cmd, "'%s' is not CHANNEL/TIMEOUT (e.g. ust/500ms)",
					  arg);
	if (ustctl_blocking_timeout_parse(slash + 1, &us) < 0)
		return ustctl_usage_error(args->cmd, "%s", ustctl_last_error());
	channel = strndup(arg, (size_t)(slash - arg));
	if (!channel) {
		ustctl_fail(0, "%s", strerror(ENOMEM));
		return USTCTL_EXIT_FAILED;
	}
	ret = ustctl_set_blocking_timeout(pid, args->trace, channel, us);
	ustctl_mi_open_process(pid, args->trace, ret >= 0);
	if (ret < 0) {
		ustctl_fail(pid, "%s %s: %s", args->cmd->name, channel, ustctl_last_error());
	} else {
		blocking_mi(channel, us);
		blocking_text(text, sizeof(text), us);
		if (!ustctl_out_mi())
			printf("pid %d: channel %s: blocking timeout %s%s\n", (int)pid, channel,
			       text, us == USTCTL_BLOCKING_INF ? "" : " us");
	}
	ustctl_mi_close();
	free(channel);
	return ret < 0 ? USTCTL_EXIT_FAILED : USTCTL_EXIT_OK;
}

int ustctl_cmd_get_blocking(const struct ustctl_args *args)
{
	const char *channel = args->argv[1];
	char text[16];
	uint32_t us = 0;
	pid_t pid;
	int ret;

	if (ustctl_parse_pid(args->cmd, args->argv[0], &pid) < 0)
		return USTCTL_EXIT_USAGE;
	if (!channel[0])
		return ustctl_usage_error(args->cmd, "CHANNEL is empty");
	ret = ustctl_get_blocking_timeout(pid, args->trace, channel, &us);
	ustctl_mi_open_process(pid, args->trace, ret >= 0);
	if (ret < 0) {
		ustctl_fail(pid, "%s %s: %s", args->cmd->name, channel, ustctl_last_error());
	} else {
		blocking_mi(channel, us);
		blocking_text(text, sizeof(text), us);
		if (!ustctl_out_mi())
			printf("%s\n", text);
	}
	ustctl_mi_close();
	return ret < 0 ? USTCTL_EXIT_FAILED : USTCTL_EXIT_OK;
}
