/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Rotation of sessions held by ustd: rotate-session, and create-session's
 * --rotate-every, --rotate-size, --on-rotate and --on-rotate-timeout,
 * checked before anything is sent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ust/ustctl.h>
#include "libustcomm/bufsize.h"
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/duration.h"
#include "ustctl/command.h"
#include "ustctl/output.h"

int ustctl_rotation_options(const struct ustctl_args *args, struct ustctl_rotation *r,
			    bool *given)
{
	const struct ustctl_cmd *cmd = args->cmd;

	memset(r, 0, sizeof(*r));
	*given = args->rotate_every || args->rotate_size || args->on_rotate ||
		 args->on_rotate_timeout;
	if (!*given)
		return 0;
	if (args->rotate_every &&
	    ustcomm_parse_duration(args->rotate_every, USTCOMM_ROTATE_EVERY_MIN_US,
				   USTCOMM_ROTATE_EVERY_MAX_US, &r->every_us) < 0)
		return ustctl_usage_error(cmd, "--rotate-every %s: a duration from 100ms to 31 days, a number with a unit: us, ms, s, m or h (500ms, 1s, 10m; a bare number is microseconds)",
					  args->rotate_every);
	if (args->rotate_size &&
	    ustcomm_parse_size(args->rotate_size, USTCOMM_ROTATE_SIZE_MIN, UST_TRACEFILE_SIZE_MAX,
			       &r->size) < 0)
		return ustctl_usage_error(cmd, "--rotate-size %s: a size of at least %llu bytes (k, M and G suffixes allowed)",
					  args->rotate_size, USTCOMM_ROTATE_SIZE_MIN);
	if (args->on_rotate_timeout &&
	    ustcomm_parse_duration(args->on_rotate_timeout, USTCOMM_ON_ROTATE_TIMEOUT_MIN_US,
				   USTCOMM_ON_ROTATE_TIMEOUT_MAX_US, &r->on_rotate_timeout_us) < 0)
		return ustctl_usage_error(cmd, "--on-rotate-timeout %s: a duration from 100ms to 24h, with a unit: us, ms, s, m or h",
					  args->on_rotate_timeout);
	if (args->on_rotate && (!*args->on_rotate || strlen(args->on_rotate) >= USTCOMM_ON_ROTATE_MAX))
		return ustctl_usage_error(cmd, "--on-rotate: a command of 1 to %u bytes",
					  USTCOMM_ON_ROTATE_MAX - 1);
	if (args->overwrite && (r->every_us || r->size))
		return ustctl_usage_error(cmd, "--overwrite and --rotate-*: a flight-recorder session is written by snapshots, not rotated");
	r->on_rotate = args->on_rotate;
	return 0;
}

int ustctl_cmd_rotate_session(const struct ustctl_args *args)
{
	const char *name = args->argv[0];
	char *chunk = NULL;

	if (ustctl_check_session_name_arg(args->cmd, name))
		return USTCTL_EXIT_USAGE;
	ustctl_mi_open("ustd-session");
	ustctl_mi_attr("name", "%s", name);
	if (ustctl_rotate_session(name, &chunk) < 0) {
		ustctl_mi_attr("success", "false");
		ustctl_fail(0, "%s %s: %s", args->cmd->name, name, ustctl_last_error());
		ustctl_mi_close();
		return ustctl_call_status(args->cmd);
	}
	ustctl_mi_attr("success", "true");
	ustctl_mi_element("chunk", "%s", chunk);
	ustctl_mi_close();
	if (!ustctl_out_mi())
		printf("%s\n", chunk);
	free(chunk);
	return USTCTL_EXIT_OK;
}
