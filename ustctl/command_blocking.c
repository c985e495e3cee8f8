/* SPDX-License-Identifier: GPL-2.0-only */
/* set-blocking-timeout and get-blocking-timeout. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ust/ustctl.h>
#include "libustcomm/blocking.h"
#include "ustctl/command.h"
#include "ustctl/output.h"

/* The answer of one process, as text (set: a sentence; get: the value)
 * or --mi xml. Returns the exit status. */
static int blocking_report(const struct ustctl_args *args, pid_t pid, const char *channel,
			   int ret, uint32_t us, bool set)
{
	char text[UST_BLOCKING_TEXT_MAX];

	ustcomm_blocking_format(text, sizeof(text), us);
	ustctl_mi_open_process(pid, args->trace, ret >= 0);
	if (ret < 0) {
		ustctl_fail(pid, "%s %s: %s", args->cmd->name, channel, ustctl_last_error());
	} else {
		ustctl_mi_open("channel");
		ustctl_mi_attr("name", "%s", channel);
		ustctl_mi_attr("blocking-timeout", "%s", text);
		ustctl_mi_close();
		if (!ustctl_out_mi() && set)
			printf("pid %d: channel %s: blocking timeout %s%s\n", (int)pid, channel,
			       text, us == USTCTL_BLOCKING_INF ? "" : " us");
		else if (!ustctl_out_mi())
			printf("%s\n", text);
	}
	ustctl_mi_close();
	return ret < 0 ? USTCTL_EXIT_FAILED : USTCTL_EXIT_OK;
}

int ustctl_cmd_set_blocking(const struct ustctl_args *args)
{
	const char *timeout;
	char *channel = NULL;
	uint32_t us;
	pid_t pid;
	int ret;

	ret = ustctl_parse_channel_value(args, "CHANNEL/TIMEOUT (e.g. ust/500ms)", &pid, &channel,
					 &timeout);
	if (ret)
		return ret;
	if (ustctl_blocking_timeout_parse(timeout, &us) < 0) {
		free(channel);
		return ustctl_usage_error(args->cmd, "%s", ustctl_last_error());
	}
	ret = blocking_report(args, pid, channel,
			      ustctl_set_blocking_timeout(pid, args->trace, channel, us), us, true);
	free(channel);
	return ret;
}

int ustctl_cmd_get_blocking(const struct ustctl_args *args)
{
	const char *channel = args->argv[1];
	uint32_t us = 0;
	pid_t pid;
	int ret;

	ret = ustctl_parse_pid_channel(args, &pid);
	if (ret)
		return ret;
	ret = ustctl_get_blocking_timeout(pid, args->trace, channel, &us);
	return blocking_report(args, pid, channel, ret, us, false);
}
