/* SPDX-License-Identifier: GPL-2.0-only */
/* set-tracefile and get-tracefile: bounded disk. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ust/ustctl.h>
#include "ustctl/command.h"
#include "ustctl/output.h"

/* The answer of one process, as text (set: a sentence; get: SIZE/COUNT)
 * or --mi xml. Returns the exit status. */
static int tracefile_report(const struct ustctl_args *args, pid_t pid, const char *channel,
			    int ret, uint64_t size, uint32_t count, bool set)
{
	ustctl_mi_open_process(pid, args->trace, ret >= 0);
	if (ret < 0) {
		ustctl_fail(pid, "%s %s: %s", args->cmd->name, channel, ustctl_last_error());
	} else {
		ustctl_mi_open("channel");
		ustctl_mi_attr("name", "%s", channel);
		ustctl_mi_attr("tracefile-size", "%" PRIu64, size);
		ustctl_mi_attr("tracefile-count", "%" PRIu32, count);
		ustctl_mi_close();
		if (!ustctl_out_mi() && set)
			printf("pid %d: channel %s: tracefile size %" PRIu64 " bytes, count %" PRIu32 "%s\n",
			       (int)pid, channel, size, count,
			       !size ? " (one file)" : !count ? " (all kept)" : "");
		else if (!ustctl_out_mi())
			printf("%" PRIu64 "/%" PRIu32 "\n", size, count);
	}
	ustctl_mi_close();
	return ret < 0 ? USTCTL_EXIT_FAILED : USTCTL_EXIT_OK;
}

/* set-tracefile -s NAME CHANNEL/SIZE[/COUNT] */
static int set_session_tracefile(const struct ustctl_args *args)
{
	const char *arg = args->argv[0], *slash = strchr(arg, '/');
	char *channel;
	uint64_t size;
	uint32_t count;
	int status = USTCTL_EXIT_OK;

	if (args->argc != 1)
		return ustctl_usage_error(args->cmd, "-s NAME takes CHANNEL/SIZE[/COUNT] only: no PID goes with it");
	if (ustctl_check_session_name_arg(args->cmd, args->session))
		return USTCTL_EXIT_USAGE;
	if (!slash || slash == arg)
		return ustctl_usage_error(args->cmd, "'%s' is not CHANNEL/SIZE[/COUNT] (e.g. ust/1M/4)",
					  arg);
	if (ustctl_tracefile_parse(slash + 1, &size, &count) < 0)
		return ustctl_usage_error(args->cmd, "%s", ustctl_last_error());
	channel = strndup(arg, (size_t)(slash - arg));
	if (!channel) {
		ustctl_fail(0, "%s", strerror(ENOMEM));
		return USTCTL_EXIT_FAILED;
	}
	if (ustctl_check_channel(args->cmd, channel)) {
		status = USTCTL_EXIT_USAGE;
	} else if (ustctl_session_set_tracefile(args->session, channel, size, count) < 0) {
		status = ustctl_session_failed(args->cmd, args->session);
	} else {
		ustctl_session_mi_ok(args->session);
		ustctl_mi_open("channel");
		ustctl_mi_attr("name", "%s", channel);
		ustctl_mi_attr("tracefile-size", "%" PRIu64, size);
		ustctl_mi_attr("tracefile-count", "%" PRIu32, count);
		ustctl_mi_close();
		ustctl_mi_close();
		if (!ustctl_out_mi())
			printf("session %s: channel %s: tracefile size %" PRIu64 " bytes, count %" PRIu32 "%s\n",
			       args->session, channel, size, count, !count ? " (all kept)" : "");
	}
	free(channel);
	return status;
}

int ustctl_cmd_set_tracefile(const struct ustctl_args *args)
{
	const char *limits;
	char *channel = NULL;
	uint64_t size;
	uint32_t count;
	pid_t pid;
	int ret;

	if (args->session)
		return set_session_tracefile(args);
	ret = ustctl_parse_channel_value(args, "CHANNEL/SIZE[/COUNT] (e.g. ust/1M/4)", &pid,
					 &channel, &limits);
	if (ret)
		return ret;
	if (ustctl_tracefile_parse(limits, &size, &count) < 0) {
		free(channel);
		return ustctl_usage_error(args->cmd, "%s", ustctl_last_error());
	}
	ret = tracefile_report(args, pid, channel,
			       ustctl_set_tracefile(pid, args->trace, channel, size, count),
			       size, count, true);
	free(channel);
	return ret;
}

int ustctl_cmd_get_tracefile(const struct ustctl_args *args)
{
	const char *channel = args->argv[1];
	uint64_t size = 0;
	uint32_t count = 0;
	pid_t pid;
	int ret;

	ret = ustctl_parse_pid_channel(args, &pid);
	if (ret)
		return ret;
	ret = ustctl_get_tracefile(pid, args->trace, channel, &size, &count);
	return tracefile_report(args, pid, channel, ret, size, count, false);
}
