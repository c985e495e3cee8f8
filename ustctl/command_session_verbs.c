/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What acts on a whole session at once: snapshot -s NAME (as lttng
 * snapshot record), clear-session (as lttng clear), track and untrack
 * (as lttng track and untrack).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ust/ustctl.h>
#include "ustctl/command.h"
#include "ustctl/output.h"

static int no_positional(const struct ustctl_args *args)
{
	if (args->argc)
		return ustctl_usage_error(args->cmd, "-s names the session: no PID goes with it ('%s')",
					  args->argv[0]);
	return ustctl_check_session_name_arg(args->cmd, args->session) ? USTCTL_EXIT_USAGE : 0;
}

int ustctl_cmd_session_snapshot(const struct ustctl_args *args)
{
	char *path = NULL;
	int n, status = no_positional(args);

	if (status)
		return status;
	n = ustctl_snapshot_session(args->session, args->dir, &path);
	if (n < 0)
		return ustctl_session_failed(args->cmd, args->session);
	ustctl_session_mi_ok(args->session);
	ustctl_mi_element("processes", "%d", n);
	ustctl_mi_element("snapshot", "%s", path);
	ustctl_mi_close();
	if (!ustctl_out_mi())
		printf("session %s: snapshot of %d process%s in %s\n", args->session, n,
		       n == 1 ? "" : "es", path);
	free(path);
	return USTCTL_EXIT_OK;
}

int ustctl_cmd_clear_session(const struct ustctl_args *args)
{
	const char *name = args->argv[0];
	int n;

	if (ustctl_check_session_name_arg(args->cmd, name))
		return USTCTL_EXIT_USAGE;
	n = ustctl_clear_session(name);
	if (n < 0)
		return ustctl_session_failed(args->cmd, name);
	ustctl_session_mi_ok(name);
	ustctl_mi_element("processes", "%d", n);
	ustctl_mi_close();
	if (!ustctl_out_mi())
		printf("session %s cleared: what it recorded so far is discarded (%d process%s tracing on)\n",
		       name, n, n == 1 ? "" : "es");
	return USTCTL_EXIT_OK;
}

/* track and untrack -s NAME --pid|--procname|--uid VALUE... | --all */
int ustctl_cmd_track(const struct ustctl_args *args)
{
	static const char *const all[1] = { "*" };
	bool track = args->cmd->name[0] == 't';
	int i, n;

	if (!args->session)
		return ustctl_usage_error(args->cmd, "-s NAME: the session whose trackers change");
	if (ustctl_check_session_name_arg(args->cmd, args->session))
		return USTCTL_EXIT_USAGE;
	if (!args->track_kind)
		return ustctl_usage_error(args->cmd, "give one of --pid, --procname and --uid");
	if (args->track_all == (args->argc > 0))
		return ustctl_usage_error(args->cmd, "give the values to %s, or --all",
					  args->cmd->name);
	n = ustctl_session_track(args->session, track, args->track_kind,
				 args->track_all ? all : args->argv,
				 args->track_all ? 1 : (size_t)args->argc);
	if (n < 0)
		return ustctl_session_failed(args->cmd, args->session);
	ustctl_session_mi_ok(args->session);
	ustctl_mi_open("tracker");
	ustctl_mi_attr("kind", "%s", args->track_kind);
	ustctl_mi_attr("action", "%s", args->cmd->name);
	for (i = 0; i < args->argc; i++)
		ustctl_mi_element("value", "%s", args->argv[i]);
	ustctl_mi_close();
	ustctl_mi_close();
	if (ustctl_out_mi())
		return USTCTL_EXIT_OK;
	if (args->track_all)
		printf("session %s: %s %s\n", args->session, track ? "tracks every" : "tracks no",
		       args->track_kind);
	else
		printf("session %s: %s %d %s value%s; %d tracked now\n", args->session,
		       track ? "tracks" : "untracked", args->argc, args->track_kind,
		       args->argc == 1 ? "" : "s", n);
	return USTCTL_EXIT_OK;
}
