/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Rotation of sessions held by ustd: rotate-session, and create-session's
 * --rotate-every, --rotate-size, --on-rotate and --on-rotate-timeout,
 * checked before anything is sent.
 */
#include <inttypes.h>
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
	/* enable-rotation spells them as LTTng's does. */
	const char *every = cmd->rotation_opts ? "--every" : "--rotate-every";
	const char *size = cmd->rotation_opts ? "--size" : "--rotate-size";

	memset(r, 0, sizeof(*r));
	*given = args->rotate_every || args->rotate_size || args->on_rotate ||
		 args->on_rotate_timeout;
	if (!*given)
		return 0;
	if (args->rotate_every &&
	    ustcomm_parse_duration(args->rotate_every, USTCOMM_ROTATE_EVERY_MIN_US,
				   USTCOMM_ROTATE_EVERY_MAX_US, &r->every_us) < 0)
		return ustctl_usage_error(cmd, "%s %s: a duration from 100ms to 31 days, a number with a unit: us, ms, s, m or h (500ms, 1s, 10m; a bare number is microseconds)",
					  every, args->rotate_every);
	if (args->rotate_size &&
	    ustcomm_parse_size(args->rotate_size, USTCOMM_ROTATE_SIZE_MIN, UST_TRACEFILE_SIZE_MAX,
			       &r->size) < 0)
		return ustctl_usage_error(cmd, "%s %s: a size of at least %llu bytes (k, M and G suffixes allowed)",
					  size, args->rotate_size, USTCOMM_ROTATE_SIZE_MIN);
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

void ustctl_rotation_out(const struct ustctl_rotation *r, const char *indent)
{
	char every[32], size[32], timeout[32];

	if (!r->every_us && !r->size && !r->on_rotate)
		return;
	ustcomm_format_duration(every, sizeof(every), r->every_us);
	ustcomm_format_size(size, sizeof(size), r->size);
	ustcomm_format_duration(timeout, sizeof(timeout), r->on_rotate_timeout_us ?
				r->on_rotate_timeout_us : USTCOMM_ON_ROTATE_TIMEOUT_US);
	ustctl_mi_open("rotation");
	if (r->every_us)
		ustctl_mi_attr("every", "%s", every);
	if (r->size)
		ustctl_mi_attr("size", "%" PRIu64, r->size);
	if (r->on_rotate) {
		ustctl_mi_attr("on-rotate", "%s", r->on_rotate);
		ustctl_mi_attr("on-rotate-timeout", "%s", timeout);
	}
	ustctl_mi_close();
	if (ustctl_out_mi())
		return;
	printf("%srotation:", indent);
	if (r->every_us)
		printf(" every %s", every);
	if (r->size)
		printf("%s size %s", r->every_us ? "," : "", size);
	if (r->on_rotate)
		printf("%s on-rotate '%s' (killed after %s)", r->every_us || r->size ? "," : "",
		       r->on_rotate, timeout);
	printf("\n");
}

/* The session of enable- and disable-rotation: -s NAME, no argument. */
static int rotation_session(const struct ustctl_args *args)
{
	if (!args->session)
		return ustctl_usage_error(args->cmd, "-s NAME is missing: which session");
	return ustctl_check_session_name_arg(args->cmd, args->session);
}

static int set_rotation(const struct ustctl_args *args, const struct ustctl_rotation *r)
{
	if (ustctl_set_session_rotation(args->session, r) < 0)
		return ustctl_session_failed(args->cmd, args->session);
	ustctl_session_mi_ok(args->session);
	if (!ustctl_out_mi())
		printf("session %s: %s\n", args->session,
		       r->every_us || r->size || r->on_rotate ? "rotation schedule set" :
							      "no rotation schedule");
	ustctl_rotation_out(r, "  ");
	ustctl_mi_close();
	return USTCTL_EXIT_OK;
}

int ustctl_cmd_enable_rotation(const struct ustctl_args *args)
{
	struct ustctl_session_extra *x = NULL;
	struct ustctl_session *s = NULL;
	struct ustctl_rotation r;
	bool given;
	int status = rotation_session(args);

	if (!status)
		status = ustctl_rotation_options(args, &r, &given);
	if (status)
		return status;
	if (!args->rotate_every && !args->rotate_size && !args->on_rotate)
		return ustctl_usage_error(args->cmd, "give --every, --size or --on-rotate: what triggers a rotation, or what runs after one");
	/* What is not given keeps the session's setting. */
	if (ustctl_describe_session(args->session, &s, &x) < 0)
		return ustctl_session_failed(args->cmd, args->session);
	if (!args->rotate_every)
		r.every_us = x->rotation.every_us;
	if (!args->rotate_size)
		r.size = x->rotation.size;
	if (!args->on_rotate) {
		r.on_rotate = x->rotation.on_rotate;
		if (!args->on_rotate_timeout)
			r.on_rotate_timeout_us = x->rotation.on_rotate_timeout_us;
	}
	status = set_rotation(args, &r);
	ustctl_session_free(s);
	ustctl_session_extra_free(x);
	return status;
}

int ustctl_cmd_disable_rotation(const struct ustctl_args *args)
{
	const struct ustctl_rotation none = { 0 };
	int status = rotation_session(args);

	return status ? status : set_rotation(args, &none);
}
