/* SPDX-License-Identifier: LGPL-2.1-only */
/* The commands of ustctl.h, each one request encoded as ctl_protocol.h says. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libustctl/internal.h"
#include "libustcomm/blocking.h"

int ustctl_trace_arg(pid_t pid, const char *trace, const char **out)
{
	if (!trace)
		trace = "";
	if (strlen(trace) >= USTCOMM_CTL_TRACE_NAME_MAX) {
		ustctl_set_error("process %d: the trace name %.20s... is longer than %u bytes",
				 (int)pid, trace, USTCOMM_CTL_TRACE_NAME_MAX - 1);
		return -EINVAL;
	}
	*out = trace;
	return 0;
}

int ustctl_call_expect(pid_t pid, uint16_t cmd, const char *const *args, size_t nr_args,
		       int extra_ms, uint32_t nr, struct ustctl_reply *reply)
{
	int ret = ustctl_call_longer(pid, cmd, args, nr_args, extra_ms, reply);

	if (!ret && reply->msg.nr_strings != nr) {
		ustctl_set_error("process %d answered %s with %u strings instead of %u",
				 (int)pid, ustcomm_ctl_cmd_name(cmd), reply->msg.nr_strings, nr);
		ustctl_reply_release(reply);
		ret = -EPROTO;
	}
	return ret;
}

static int trace_command(pid_t pid, uint16_t cmd, const char *trace)
{
	struct ustctl_reply reply;
	const char *args[1];
	int ret;

	ret = ustctl_trace_arg(pid, trace, &args[0]);
	if (ret)
		return ret;
	ret = ustctl_call_expect(pid, cmd, args, 1, 0, 0, &reply);
	ustctl_reply_release(&reply);
	return ret;
}

int ustctl_create_trace(pid_t pid, const char *trace)
{
	return trace_command(pid, USTCOMM_CTL_CREATE_TRACE, trace);
}

int ustctl_alloc_trace(pid_t pid, const char *trace)
{
	return trace_command(pid, USTCOMM_CTL_ALLOC_TRACE, trace);
}

int ustctl_start_trace(pid_t pid, const char *trace)
{
	return trace_command(pid, USTCOMM_CTL_START_TRACE, trace);
}

int ustctl_stop_trace(pid_t pid, const char *trace)
{
	return trace_command(pid, USTCOMM_CTL_STOP_TRACE, trace);
}

int ustctl_destroy_trace(pid_t pid, const char *trace)
{
	return trace_command(pid, USTCOMM_CTL_DESTROY_TRACE, trace);
}

int ustctl_force_switch(pid_t pid, const char *trace)
{
	return trace_command(pid, USTCOMM_CTL_FORCE_SWITCH, trace);
}

/* Copies a result into a fixed field of the public structures. */
static int copy_field(pid_t pid, const char *what, char *dst, size_t size, const char *src)
{
	if (strlen(src) >= size) {
		ustctl_set_error("process %d: its %s is longer than %zu bytes", (int)pid, what,
				 size - 1);
		return -EPROTO;
	}
	strcpy(dst, src);
	return 0;
}

int ustctl_get_info_control(pid_t pid, struct ustctl_info *info, char *control, size_t len)
{
	struct ustctl_reply reply;
	const char *pos = NULL, *s[6];
	uint32_t reported;
	size_t i;
	int ret;

	/* Programs of libust 2.0 answer without the sixth string, control. */
	ret = ustctl_call_longer(pid, USTCOMM_CTL_INFO, NULL, 0, 0, &reply);
	if (ret)
		return ret;
	if (reply.msg.nr_strings != 5 && reply.msg.nr_strings != 6) {
		ustctl_set_error("process %d answered %s with %u strings instead of 6",
				 (int)pid, ustcomm_ctl_cmd_name(USTCOMM_CTL_INFO),
				 reply.msg.nr_strings);
		ret = -EPROTO;
		goto end;
	}
	for (i = 0; i < reply.msg.nr_strings; i++)
		s[i] = ustcomm_ctl_next(&reply.msg, &pos);
	memset(info, 0, sizeof(*info));
	ret = ustctl_parse_u32(pid, USTCOMM_CTL_INFO, s[0], INT_MAX, &reported);
	if (ret)
		goto end;
	info->pid = (pid_t)reported;
	ret = copy_field(pid, "process name", info->procname, sizeof(info->procname), s[1]);
	if (!ret)
		ret = copy_field(pid, "libust version", info->version, sizeof(info->version), s[2]);
	if (!ret)
		ret = copy_field(pid, "trace name", info->trace, sizeof(info->trace), s[3]);
	if (!ret)
		ret = copy_field(pid, "trace state", info->state, sizeof(info->state), s[4]);
	if (!ret && control && len) {
		control[0] = '\0';
		if (reply.msg.nr_strings == 6)
			ret = copy_field(pid, "control", control, len, s[5]);
	}
end:
	ustctl_reply_release(&reply);
	return ret;
}

int ustctl_get_info(pid_t pid, struct ustctl_info *info)
{
	return ustctl_get_info_control(pid, info, NULL, 0);
}

void ustctl_free_markers(struct ustctl_marker *markers, size_t nr)
{
	size_t i;

	if (!markers)
		return;
	for (i = 0; i < nr; i++) {
		free(markers[i].name);
		free(markers[i].format);
		free(markers[i].objects);
		free(markers[i].fields);
	}
	free(markers);
}

int ustctl_list_markers(pid_t pid, struct ustctl_marker **markers, size_t *nr)
{
	struct ustctl_marker *list = NULL;
	struct ustctl_reply reply;
	const char *pos = NULL;
	size_t i, count = 0;
	int ret;

	ret = ustctl_call(pid, USTCOMM_CTL_LIST_MARKERS, NULL, 0, &reply);
	if (ret)
		goto end;
	if (reply.msg.nr_strings % 7) {
		ret = -EPROTO;
		ustctl_set_error("process %d answered list-markers with %u strings, not 7 per event",
				 (int)pid, reply.msg.nr_strings);
		goto end;
	}
	count = reply.msg.nr_strings / 7;
	if (count) {
		list = calloc(count, sizeof(*list));
		if (!list) {
			ret = -ENOMEM;
			ustctl_set_error("out of memory");
			goto end;
		}
	}
	for (i = 0; i < count; i++) {
		const char *name = ustcomm_ctl_next(&reply.msg, &pos);
		const char *state = ustcomm_ctl_next(&reply.msg, &pos);
		const char *kind = ustcomm_ctl_next(&reply.msg, &pos);
		const char *format = ustcomm_ctl_next(&reply.msg, &pos);
		const char *objects = ustcomm_ctl_next(&reply.msg, &pos);
		const char *level = ustcomm_ctl_next(&reply.msg, &pos);
		const char *fields = ustcomm_ctl_next(&reply.msg, &pos);
		uint32_t v;

		ret = ustctl_parse_u32(pid, USTCOMM_CTL_LIST_MARKERS, level, 14, &v);
		if (ret)
			goto end;
		list[i].loglevel = (int)v;
		list[i].fields = strdup(fields);
		list[i].enabled = !strcmp(state, "enabled");
		list[i].is_format = !strcmp(kind, "format");
		list[i].name = strdup(name);
		list[i].format = strdup(format);
		list[i].objects = strdup(objects);
		if (!list[i].name || !list[i].format || !list[i].objects || !list[i].fields) {
			ret = -ENOMEM;
			ustctl_set_error("out of memory");
			goto end;
		}
	}
end:
	ustctl_reply_release(&reply);
	if (ret) {
		ustctl_free_markers(list, count);
		list = NULL;
		count = 0;
	}
	*markers = list;
	*nr = count;
	return ret;
}

/* The matches of each pattern into per_pattern (NULL: not wanted), -1
 * each when the program answers with the total only (one of before). */
static int marker_command(pid_t pid, uint16_t cmd, const char *trace,
			  const char *const *patterns, size_t nr, int *per_pattern)
{
	struct ustctl_reply reply = { 0 };
	const char **args = NULL;
	const char *s;
	uint32_t matched, n;
	size_t i;
	int ret;

	if (!nr) {
		ustctl_set_error("%s for process %d: no pattern given", ustcomm_ctl_cmd_name(cmd),
				 (int)pid);
		return -EINVAL;
	}
	args = malloc((nr + 1) * sizeof(*args));
	if (!args) {
		ustctl_set_error("out of memory");
		return -ENOMEM;
	}
	ret = ustctl_trace_arg(pid, trace, &args[0]);
	if (ret)
		goto end;
	memcpy(&args[1], patterns, nr * sizeof(*args));
	ret = ustctl_call_longer(pid, cmd, args, nr + 1, 0, &reply);
	if (ret)
		goto end;
	if (reply.msg.nr_strings != 1 && reply.msg.nr_strings != nr + 1) {
		ustctl_set_error("process %d answered %s with %u strings instead of %zu",
				 (int)pid, ustcomm_ctl_cmd_name(cmd), reply.msg.nr_strings, nr + 1);
		ret = -EPROTO;
		goto end;
	}
	s = reply.msg.payload;
	ret = ustctl_parse_u32(pid, cmd, s, INT_MAX, &matched);
	for (i = 0; !ret && per_pattern && i < nr; i++) {
		per_pattern[i] = -1;
		if (reply.msg.nr_strings == 1)
			continue;
		s += strlen(s) + 1;
		ret = ustctl_parse_u32(pid, cmd, s, INT_MAX, &n);
		per_pattern[i] = (int)n;
	}
	if (!ret)
		ret = (int)matched;
end:
	ustctl_reply_release(&reply);
	free(args);
	return ret;
}

int ustctl_enable_marker(pid_t pid, const char *trace, const char *const *patterns, size_t nr)
{
	return marker_command(pid, USTCOMM_CTL_ENABLE_MARKER, trace, patterns, nr, NULL);
}

int ustctl_enable_marker_matches(pid_t pid, const char *trace, const char *const *patterns,
				 size_t nr, int *per_pattern)
{
	return marker_command(pid, USTCOMM_CTL_ENABLE_MARKER, trace, patterns, nr, per_pattern);
}

int ustctl_disable_marker(pid_t pid, const char *trace, const char *const *patterns, size_t nr)
{
	return marker_command(pid, USTCOMM_CTL_DISABLE_MARKER, trace, patterns, nr, NULL);
}

static int check_channel(pid_t pid, uint16_t cmd, const char *channel)
{
	if (channel && *channel)
		return 0;
	ustctl_set_error("%s for process %d: no channel given", ustcomm_ctl_cmd_name(cmd),
			 (int)pid);
	return -EINVAL;
}

int ustctl_channel_set(pid_t pid, uint16_t cmd, const char *trace, const char *channel,
		       const char *value)
{
	struct ustctl_reply reply;
	const char *args[3];
	int ret;

	ret = check_channel(pid, cmd, channel);
	if (!ret)
		ret = ustctl_trace_arg(pid, trace, &args[0]);
	if (ret)
		return ret;
	args[1] = channel;
	args[2] = value;
	ret = ustctl_call_expect(pid, cmd, args, 3, 0, 0, &reply);
	ustctl_reply_release(&reply);
	return ret;
}

int ustctl_channel_get(pid_t pid, uint16_t cmd, const char *trace, const char *channel,
		       char *value, size_t len)
{
	struct ustctl_reply reply;
	const char *args[2];
	int ret;

	ret = check_channel(pid, cmd, channel);
	if (!ret)
		ret = ustctl_trace_arg(pid, trace, &args[0]);
	if (ret)
		return ret;
	args[1] = channel;
	ret = ustctl_call_expect(pid, cmd, args, 2, 0, 1, &reply);
	if (!ret)
		snprintf(value, len, "%s", reply.msg.payload);
	ustctl_reply_release(&reply);
	return ret;
}

static int set_subbuf(pid_t pid, uint16_t cmd, const char *trace, const char *channel,
		      uint32_t value)
{
	char text[16];

	snprintf(text, sizeof(text), "%u", (unsigned)value);
	return ustctl_channel_set(pid, cmd, trace, channel, text);
}

static int get_subbuf(pid_t pid, uint16_t cmd, const char *trace, const char *channel,
		      uint32_t *value)
{
	char text[16];
	int ret = ustctl_channel_get(pid, cmd, trace, channel, text, sizeof(text));

	return ret ? ret : ustctl_parse_u32(pid, cmd, text, UINT32_MAX, value);
}

int ustctl_set_subbuf_size(pid_t pid, const char *trace, const char *channel, uint32_t size)
{
	return set_subbuf(pid, USTCOMM_CTL_SET_SUBBUF_SIZE, trace, channel, size);
}

int ustctl_set_subbuf_num(pid_t pid, const char *trace, const char *channel, uint32_t num)
{
	return set_subbuf(pid, USTCOMM_CTL_SET_SUBBUF_NUM, trace, channel, num);
}

int ustctl_get_subbuf_size(pid_t pid, const char *trace, const char *channel, uint32_t *size)
{
	return get_subbuf(pid, USTCOMM_CTL_GET_SUBBUF_SIZE, trace, channel, size);
}

int ustctl_get_subbuf_num(pid_t pid, const char *trace, const char *channel, uint32_t *num)
{
	return get_subbuf(pid, USTCOMM_CTL_GET_SUBBUF_NUM, trace, channel, num);
}

int ustctl_blocking_timeout_parse(const char *text, uint32_t *us)
{
	if (ustcomm_blocking_parse(text, us) == 0)
		return 0;
	ustctl_set_error("invalid blocking timeout '%s': 0 (never wait), inf (wait while ustd lives) or microseconds up to %u, with an optional suffix us, ms or s",
			 text ? text : "", UST_BLOCKING_MAX_US);
	return -EINVAL;
}

int ustctl_set_blocking_timeout(pid_t pid, const char *trace, const char *channel, uint32_t us)
{
	char text[UST_BLOCKING_TEXT_MAX];

	ustcomm_blocking_format(text, sizeof(text), us);
	return ustctl_channel_set(pid, USTCOMM_CTL_SET_BLOCKING_TIMEOUT, trace, channel, text);
}

int ustctl_get_blocking_timeout(pid_t pid, const char *trace, const char *channel, uint32_t *us)
{
	const uint16_t cmd = USTCOMM_CTL_GET_BLOCKING_TIMEOUT;
	char text[UST_BLOCKING_TEXT_MAX];
	int ret = ustctl_channel_get(pid, cmd, trace, channel, text, sizeof(text));

	if (!ret && ustcomm_blocking_parse(text, us) < 0) {
		ustctl_set_error("process %d answered %s with '%s', not a timeout", (int)pid,
				 ustcomm_ctl_cmd_name(cmd), text);
		ret = -EPROTO;
	}
	return ret;
}

int ustctl_set_sock_path(pid_t pid, const char *path)
{
	struct ustctl_reply reply;
	int ret;

	if (!path || !*path) {
		ustctl_set_error("set-sock-path for process %d: no path given", (int)pid);
		return -EINVAL;
	}
	ret = ustctl_call_expect(pid, USTCOMM_CTL_SET_SOCK_PATH, &path, 1, 0, 0, &reply);
	ustctl_reply_release(&reply);
	return ret;
}

int ustctl_get_sock_path(pid_t pid, char **path)
{
	struct ustctl_reply reply;
	int ret;

	*path = NULL;
	ret = ustctl_call_expect(pid, USTCOMM_CTL_GET_SOCK_PATH, NULL, 0, 0, 1, &reply);
	if (ret)
		goto end;
	*path = strdup(reply.msg.payload);
	if (!*path) {
		ret = -ENOMEM;
		ustctl_set_error("out of memory");
	}
end:
	ustctl_reply_release(&reply);
	return ret;
}
