/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Commands that change a process: markers, the trace's life cycle, channel
 * geometry, the ustd socket. Arguments are all checked before the first
 * request, so a usage error never leaves some processes changed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <ust/ustctl.h>
#include "libustcomm/bufsize.h"
#include "libustcomm/shm_layout.h"
#include "ustctl/command.h"
#include "ustctl/output.h"

static int control_markers(const struct ustctl_args *args, bool enable)
{
	const char *const *patterns = args->argv + 1;
	size_t nr = (size_t)args->argc - 1, i;
	struct ustctl_rule rule = args->rule;
	int *each = NULL;
	pid_t pid;
	int matched, status;

	rule.enable = enable;

	if (ustctl_parse_pid(args->cmd, args->argv[0], &pid) < 0)
		return USTCTL_EXIT_USAGE;
	for (i = 0; i < nr; i++)
		if (ustctl_check_pattern(args->cmd, patterns[i]))
			return USTCTL_EXIT_USAGE;
	/* Every rule is checked (its filter against the program's events)
	 * before the first is sent. */
	for (i = 0; enable && rule.filter && i < nr; i++) {
		rule.pattern = (char *)patterns[i];
		if (ustctl_rule_check(pid, &rule) < 0) {
			ustctl_mi_open_process(pid, args->trace, false);
			ustctl_fail_last(pid, args->cmd->name);
			ustctl_mi_close();
			return ustctl_call_status(args->cmd);
		}
	}
	each = enable ? calloc(nr, sizeof(*each)) : NULL;
	if (enable && !each) {
		ustctl_fail(pid, "out of memory");
		return USTCTL_EXIT_FAILED;
	}
	if (enable && (rule.filter || rule.loglevel_match)) {
		/* One rule per pattern, each with the level and the filter. */
		for (matched = 0, i = 0; i < nr && matched >= 0; i++) {
			rule.pattern = (char *)patterns[i];
			each[i] = ustctl_enable_rule(pid, args->trace, &rule);
			matched = each[i] < 0 ? each[i] : matched + each[i];
		}
	} else {
		matched = enable ?
			ustctl_enable_marker_matches(pid, args->trace, patterns, nr, each) :
			ustctl_disable_marker(pid, args->trace, patterns, nr);
	}
	ustctl_mi_open_process(pid, args->trace, matched >= 0);
	if (matched < 0) {
		ustctl_fail_last(pid, args->cmd->name);
		ustctl_mi_close();
		status = ustctl_call_status(args->cmd);
		goto end;
	}
	/* A mistyped pattern enables nothing, silently otherwise. */
	for (i = 0; enable && i < nr; i++) {
		if (each[i] == 0)
			fprintf(stderr, "ustctl: warning: pid %d: pattern '%s' matches no event of the program now (it applies to events registered later, e.g. by dlopen)\n",
				(int)pid, patterns[i]);
	}
	for (i = 0; i < nr; i++) {
		rule.pattern = (char *)patterns[i];
		ustctl_mi_rule(&rule);
	}
	ustctl_mi_element("matched", "%d", matched);
	ustctl_mi_close();
	if (!ustctl_out_mi()) {
		printf("pid %d: %s", (int)pid, enable ? "enabled" : "disabled");
		for (i = 0; i < nr; i++)
			printf(" %s", patterns[i]);
		if (rule.loglevel_match)
			printf(" at level %s%s", ustctl_loglevel_name(rule.loglevel),
			       rule.loglevel_match == USTCTL_LOGLEVEL_RANGE ? " or more severe" : " only");
		if (rule.filter)
			printf(" with filter '%s'", rule.filter);
		printf(" (%d event%s matched)\n", matched, matched == 1 ? "" : "s");
	}
	status = USTCTL_EXIT_OK;
end:
	free(each);
	return status;
}

int ustctl_cmd_enable_marker(const struct ustctl_args *args)
{
	return args->session ? ustctl_cmd_session_markers(args, true) :
		control_markers(args, true);
}

int ustctl_cmd_disable_marker(const struct ustctl_args *args)
{
	return args->session ? ustctl_cmd_session_markers(args, false) :
		control_markers(args, false);
}

/* Every process gets the request, even after a failure: the exit status
 * says whether all of them succeeded. create-trace (takes_relay) also
 * says where the trace goes. */
int ustctl_cmd_trace_op(const struct ustctl_args *args)
{
	const char *output = args->relay ? args->relay : args->dir;
	int status = USTCTL_EXIT_OK, i, ret;
	pid_t *pids;

	ret = ustctl_parse_pids(args, 0, &pids);
	if (ret < 0)
		return ret == -EINVAL ? USTCTL_EXIT_USAGE : USTCTL_EXIT_FAILED;
	for (i = 0; i < args->argc; i++) {
		ret = args->cmd->takes_relay ?
			ustctl_create_trace_output(pids[i], args->trace, output) :
			args->cmd->trace_op(pids[i], args->trace);
		ustctl_mi_open_process(pids[i], args->trace, ret >= 0);
		if (ret < 0) {
			ustctl_fail(pids[i], "%s %s: %s", args->cmd->name, args->trace,
				    ustctl_last_error());
			status = ustctl_worse(status, ustctl_call_status(args->cmd));
		} else if (!ustctl_out_mi()) {
			printf("pid %d: trace %s %s", (int)pids[i], args->trace, args->cmd->done);
			if (args->relay)
				printf(", streamed to lttng-relayd at %s", args->relay);
			else if (args->dir)
				printf(", written under %s", args->dir);
			putchar('\n');
		}
		ustctl_mi_close();
	}
	free(pids);
	return status;
}

static bool control_is_size(const struct ustctl_cmd *cmd)
{
	return strstr(cmd->name, "size") != NULL;
}

static void control_channel_mi(const char *channel, bool size, uint32_t value)
{
	ustctl_mi_open("channel");
	ustctl_mi_attr("name", "%s", channel);
	ustctl_mi_attr(size ? "subbuf-size" : "subbuf-num", "%" PRIu32, value);
	ustctl_mi_close();
}

/* CHANNEL/VALUE, checked like libust checks UST_SUBBUF_SIZE/NUM. */
static int control_parse_setting(const struct ustctl_args *args, bool size, char **channel,
				 uint32_t *value)
{
	const char *arg = args->argv[1], *slash = strrchr(arg, '/');
	uint32_t min = size ? UST_SUBBUF_SIZE_MIN : UST_SUBBUF_NUM_MIN;
	uint32_t max = size ? UST_SUBBUF_SIZE_MAX : UST_SUBBUF_NUM_MAX;

	if (!slash || slash == arg)
		return ustctl_usage_error(args->cmd, "'%s' is not CHANNEL/%s (e.g. ust/%s)", arg,
					  size ? "BYTES" : "N", size ? "64k" : "8");
	if (ustcomm_parse_pow2(slash + 1, min, max, value) < 0)
		return ustctl_usage_error(args->cmd,
					  "'%s': %s must be a power of two from %" PRIu32 " to %" PRIu32 "%s",
					  slash + 1,
					  size ? "the sub-buffer size in bytes" : "the number of sub-buffers",
					  min, max, size ? " (k and M suffixes allowed)" : "");
	*channel = strndup(arg, (size_t)(slash - arg));
	if (!*channel) {
		ustctl_fail(0, "%s", strerror(ENOMEM));
		return USTCTL_EXIT_FAILED;
	}
	if (ustctl_check_channel(args->cmd, *channel)) {
		free(*channel);
		*channel = NULL;
		return USTCTL_EXIT_USAGE;
	}
	return 0;
}

int ustctl_cmd_set_subbuf(const struct ustctl_args *args)
{
	bool size = control_is_size(args->cmd);
	char *channel = NULL;
	uint32_t value;
	pid_t pid;
	int ret;

	if (ustctl_parse_pid(args->cmd, args->argv[0], &pid) < 0)
		return USTCTL_EXIT_USAGE;
	ret = control_parse_setting(args, size, &channel, &value);
	if (ret)
		return ret;
	ret = size ? ustctl_set_subbuf_size(pid, args->trace, channel, value) :
		     ustctl_set_subbuf_num(pid, args->trace, channel, value);
	ustctl_mi_open_process(pid, args->trace, ret >= 0);
	if (ret < 0) {
		ustctl_fail(pid, "%s %s: %s", args->cmd->name, channel, ustctl_last_error());
	} else {
		control_channel_mi(channel, size, value);
		if (!ustctl_out_mi())
			printf("pid %d: channel %s: sub-buffer %s %" PRIu32 "\n", (int)pid, channel,
			       size ? "size" : "count", value);
	}
	ustctl_mi_close();
	free(channel);
	return ret < 0 ? ustctl_call_status(args->cmd) : USTCTL_EXIT_OK;
}

int ustctl_cmd_get_subbuf(const struct ustctl_args *args)
{
	bool size = control_is_size(args->cmd);
	const char *channel = args->argv[1];
	uint32_t value = 0;
	pid_t pid;
	int ret;

	ret = ustctl_parse_pid_channel(args, &pid);
	if (ret)
		return ret;
	/* Judged here as set-subbuf-size judges it: a name libust could hold. */
	if (ustctl_check_channel(args->cmd, channel))
		return USTCTL_EXIT_USAGE;
	ret = size ? ustctl_get_subbuf_size(pid, args->trace, channel, &value) :
		     ustctl_get_subbuf_num(pid, args->trace, channel, &value);
	ustctl_mi_open_process(pid, args->trace, ret >= 0);
	if (ret < 0) {
		ustctl_fail(pid, "%s %s: %s", args->cmd->name, channel, ustctl_last_error());
	} else {
		control_channel_mi(channel, size, value);
		if (!ustctl_out_mi())
			printf("%" PRIu32 "\n", value);
	}
	ustctl_mi_close();
	return ret < 0 ? ustctl_call_status(args->cmd) : USTCTL_EXIT_OK;
}

int ustctl_cmd_set_sock_path(const struct ustctl_args *args)
{
	const char *path = args->argv[1];
	pid_t pid;
	int ret;

	if (ustctl_parse_pid(args->cmd, args->argv[0], &pid) < 0)
		return USTCTL_EXIT_USAGE;
	if (!path[0])
		return ustctl_usage_error(args->cmd, "PATH is empty");
	if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return ustctl_usage_error(args->cmd, "PATH is longer than a socket path may be (%zu bytes)",
					  sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
	ret = ustctl_set_sock_path(pid, path);
	ustctl_mi_open_process(pid, NULL, ret >= 0);
	if (ret < 0) {
		ustctl_fail_last(pid, args->cmd->name);
	} else {
		ustctl_mi_element("sock-path", "%s", path);
		if (!ustctl_out_mi())
			printf("pid %d: reports to the ustd on %s\n", (int)pid, path);
	}
	ustctl_mi_close();
	return ret < 0 ? ustctl_call_status(args->cmd) : USTCTL_EXIT_OK;
}

int ustctl_cmd_get_sock_path(const struct ustctl_args *args)
{
	char *path = NULL;
	pid_t pid;
	int ret;

	if (ustctl_parse_pid(args->cmd, args->argv[0], &pid) < 0)
		return USTCTL_EXIT_USAGE;
	ret = ustctl_get_sock_path(pid, &path);
	ustctl_mi_open_process(pid, NULL, ret >= 0);
	if (ret < 0) {
		ustctl_fail_last(pid, args->cmd->name);
	} else {
		ustctl_mi_element("sock-path", "%s", path);
		if (!ustctl_out_mi())
			printf("%s\n", path);
	}
	ustctl_mi_close();
	free(path);
	return ret < 0 ? ustctl_call_status(args->cmd) : USTCTL_EXIT_OK;
}
