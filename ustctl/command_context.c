/* SPDX-License-Identifier: GPL-2.0-only */
/* Contexts: list-contexts and add-context. */
#include <stdio.h>
#include <string.h>
#include <ust/ustctl.h>
#include "libustcomm/event_context.h"
#include "ustctl/command.h"
#include "ustctl/output.h"

int ustctl_cmd_list_contexts(const struct ustctl_args *args)
{
	const char *name;
	unsigned size;
	size_t i;
	int avail;

	(void)args;
	ustctl_mi_open("contexts");
	for (i = 0; (name = ustctl_context_name(i)); i++) {
		avail = ustctl_context_available(name);
		size = (unsigned)ustcomm_ctx_size(ustcomm_ctx_parse(name));
		ustctl_mi_open("context");
		ustctl_mi_attr("name", "%s", name);
		ustctl_mi_attr("size", "%u", size);
		ustctl_mi_attr("available", "%s", avail ? "false" : "true");
		if (avail)
			ustctl_mi_text("%s", ustctl_last_error());
		ustctl_mi_close();
		if (!ustctl_out_mi())
			printf("%-26s %2u bytes%s%s\n", name, size, avail ? "  not here: " : "", avail ? ustctl_last_error() : "");
	}
	ustctl_mi_close();
	return USTCTL_EXIT_OK;
}

int ustctl_cmd_add_context(const struct ustctl_args *args)
{
	const char *channel = args->argv[1];
	int i, ret = 0;
	pid_t pid;

	if (args->session)
		return ustctl_cmd_session_context(args);
	if (ustctl_parse_pid(args->cmd, args->argv[0], &pid) < 0)
		return USTCTL_EXIT_USAGE;
	if (ustctl_check_channel(args->cmd, channel))
		return USTCTL_EXIT_USAGE;
	for (i = 2; i < args->argc; i++)
		if (ustctl_context_check(args->argv[i]))
			return ustctl_usage_error(args->cmd, "%s", ustctl_last_error());
	for (i = 2; i < args->argc && ret == 0; i++)
		ret = ustctl_add_context(pid, args->trace, channel, args->argv[i]);
	ustctl_mi_open_process(pid, args->trace, ret == 0);
	if (ret) {
		ustctl_fail(pid, "%s %s %s: %s", args->cmd->name, channel, args->argv[i - 1],
			    ustctl_last_error());
		ustctl_mi_close();
		return ustctl_call_status(args->cmd);
	}
	ustctl_mi_open("channel");
	ustctl_mi_attr("name", "%s", channel);
	for (i = 2; i < args->argc; i++) {
		ustctl_mi_open("context");
		ustctl_mi_attr("name", "%s", args->argv[i]);
		ustctl_mi_close();
		if (!ustctl_out_mi())
			printf("pid %d: channel %s: context %s added\n", (int)pid, channel,
			       args->argv[i]);
	}
	ustctl_mi_close();
	ustctl_mi_close();
	return USTCTL_EXIT_OK;
}
