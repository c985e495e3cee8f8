/* SPDX-License-Identifier: LGPL-2.1-only */
/* Sessions held by ustd: the calls of ustctl.h, over ustd's session socket. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/relay_url.h"
#include "libustctl/internal.h"

/* Programs may take their whole timeout each, in parallel: ustd bounds
 * every conversation by 15 s. */
#define SESSION_EXTRA_MS	20000

int ustctl_check_session_name(const char *name)
{
	if (!name || !ustcomm_session_name_valid(name)) {
		ustctl_set_error("invalid session name '%s': 1 to %u letters, digits, '_', '.' or '-', not starting with '.' or '-', and not 'auto'",
				 name ? name : "", USTCOMM_SESSION_NAME_MAX - 1);
		return -EINVAL;
	}
	return 0;
}

int ustctl_call_ustd_u32(uint16_t cmd, const char *const *args, size_t nr, int extra_ms,
			 uint32_t *out)
{
	struct ustctl_reply reply;
	const char *pos = NULL;
	int ret;

	ret = ustctl_call_ustd(cmd, args, nr, extra_ms, &reply);
	if (!ret && out) {
		const char *s = ustcomm_ctl_next(&reply.msg, &pos);

		ret = s ? ustctl_parse_u32(0, cmd, s, UINT32_MAX, out) : -EPROTO;
		if (ret)
			ustctl_set_error("ustd answered %s with something other than a number",
					 ustcomm_ctl_cmd_name(cmd));
	}
	ustctl_reply_release(&reply);
	return ret;
}

int ustctl_call_ustd_path(uint16_t cmd, const char *const *args, size_t nr, int extra_ms,
			  char **out)
{
	struct ustctl_reply reply;
	const char *pos = NULL, *s;
	int ret = ustctl_call_ustd(cmd, args, nr, extra_ms, &reply);

	if (!ret) {
		s = ustcomm_ctl_next(&reply.msg, &pos);
		*out = strdup(s ? s : "");
		if (!*out) {
			ret = -ENOMEM;
			ustctl_set_error("out of memory");
		}
	}
	ustctl_reply_release(&reply);
	return ret;
}

/* An lttng-relayd URL, checked here so that its mistakes are said in the
 * same words as everywhere else (relay_url.h); ustd connects to it. */
static int session_relay_arg(const char *url, char *out, size_t size)
{
	struct ustcomm_relay_url parsed;
	const char *why;

	if (ustcomm_relay_url_parse(url, &parsed, &why) < 0) {
		ustctl_set_error("create-session: invalid lttng-relayd URL '%s': %s", url, why);
		return -EINVAL;
	}
	if (snprintf(out, size, "%s", url) >= (int)size) {
		ustctl_set_error("create-session: the URL '%.64s...' is too long", url);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* What a ustd of before per-user buffers says of a sixth argument
 * (ustd/session/session_ctl.c, conn_execute). */
#define OLD_USTD_ARGS "the wrong number of arguments"

int ustctl_create_session_buffers(const char *name, const char *output, int overwrite,
				  uint32_t subbuf_size, uint32_t subbuf_num, int buffers,
				  char **dir)
{
	char out[4096], size[16], num[16];
	const char *args[6] = { name, out, overwrite ? "1" : "0", size, num, "uid" };
	bool per_uid = buffers == USTCTL_BUFFERS_PER_UID;
	int ret;

	*dir = NULL;
	ret = ustctl_check_session_name(name);
	if (!ret && buffers != USTCTL_BUFFERS_PER_PID && !per_uid) {
		ustctl_set_error("create-session: unknown buffer type %d: USTCTL_BUFFERS_PER_PID or USTCTL_BUFFERS_PER_UID",
				 buffers);
		ret = -EINVAL;
	}
	if (!ret && output && strstr(output, "://"))
		ret = session_relay_arg(output, out, sizeof(out));
	else if (!ret)
		ret = ustctl_absolute_dir(0, "create-session", output, out, sizeof(out));
	if (ret)
		return ret;
	snprintf(size, sizeof(size), "%u", (unsigned)subbuf_size);
	snprintf(num, sizeof(num), "%u", (unsigned)subbuf_num);
	/* Per process is sent as before: any ustd takes it. */
	ret = ustctl_call_ustd_path(USTCOMM_CTL_SESSION_CREATE, args, per_uid ? 6 : 5, 0, dir);
	if (ret == -EINVAL && per_uid && strstr(ustctl_last_error(), OLD_USTD_ARGS))
		ustctl_set_failure("ustd does not know per-user buffers (it is older than this libustctl, which asked for them): restart ustd from this version, or create the session with per-process buffers");
	return ret;
}

int ustctl_create_session(const char *name, const char *output, int overwrite,
			  uint32_t subbuf_size, uint32_t subbuf_num, char **dir)
{
	return ustctl_create_session_buffers(name, output, overwrite, subbuf_size, subbuf_num,
					     USTCTL_BUFFERS_PER_PID, dir);
}

int ustctl_session_add_rules(const char *name, const struct ustctl_rule *rules, size_t nr)
{
	size_t nr_args = 1 + 5 * nr, n = 0, i;
	const char **args = NULL;
	char **hex = NULL, (*levels)[USTCOMM_LEVEL_SPEC_MAX] = NULL;
	uint32_t count = 0;
	int ret = ustctl_check_session_name(name);

	if (ret)
		return ret;
	args = calloc(nr_args, sizeof(*args));
	hex = calloc(nr + 1, sizeof(*hex));
	levels = calloc(nr + 1, sizeof(*levels));
	if (!args || !hex || !levels) {
		ret = -ENOMEM;
		ustctl_set_error("out of memory");
		goto end;
	}
	args[n++] = name;
	for (i = 0; !ret && i < nr; i++) {
		/* No program to check the filter's fields against: its syntax. */
		ret = ustctl_rule_prepare(0, &rules[i], NULL, 0, levels[i], &hex[i]);
		args[n++] = rules[i].enable ? "enable" : "disable";
		args[n++] = rules[i].pattern;
		args[n++] = levels[i];
		args[n++] = rules[i].filter && rules[i].enable ? rules[i].filter : "";
		args[n++] = hex[i] ? hex[i] : "";
	}
	if (!ret)
		ret = ustctl_call_ustd_u32(USTCOMM_CTL_SESSION_RULES, args, nr_args, 0, &count);
end:
	for (i = 0; hex && i < nr; i++)
		free(hex[i]);
	free(hex);
	free(levels);
	free(args);
	return ret ? ret : (int)count;
}

int ustctl_session_add_context(const char *name, const char *channel, const char *context)
{
	const char *args[3] = { name, channel, context };
	int ret = ustctl_check_session_name(name);

	if (!ret)
		ret = ustctl_context_check(context);
	return ret ? ret : ustctl_call_ustd_u32(USTCOMM_CTL_SESSION_CONTEXT, args, 3, 0, NULL);
}

static int by_name(uint16_t cmd, const char *name, int want_count)
{
	const char *args[1] = { name };
	uint32_t count = 0;
	int ret = ustctl_check_session_name(name);

	if (!ret)
		ret = ustctl_call_ustd_u32(cmd, args, 1, SESSION_EXTRA_MS, want_count ? &count : NULL);
	return ret ? ret : (int)count;
}

/* The pairs SESSION, COUNT after the "" of start-session's reply. */
static int busy_parse(const struct ustctl_reply *reply, const char *pos,
		      struct ustctl_session_busy **busy, size_t *nr)
{
	struct ustctl_session_busy *list;
	const char *name, *count;
	size_t n = 0;
	int ret = 0;

	list = calloc(reply->msg.nr_strings / 2 + 1, sizeof(*list));
	if (!list)
		return -ENOMEM;
	while (!ret && (name = ustcomm_ctl_next(&reply->msg, &pos))) {
		count = ustcomm_ctl_next(&reply->msg, &pos);
		ret = count ? ustctl_parse_u32(0, USTCOMM_CTL_SESSION_START, count, INT_MAX,
					       &list[n].programs) : -EPROTO;
		if (!ret && !(list[n++].session = strdup(name)))
			ret = -ENOMEM;
	}
	if (ret) {
		ustctl_free_session_busy(list, n);
		return ret;
	}
	*busy = list;
	*nr = n;
	return 0;
}

int ustctl_start_session_busy(const char *name, struct ustctl_session_busy **busy, size_t *nr)
{
	const char *args[1] = { name }, *pos = NULL, *s;
	struct ustctl_reply reply;
	uint32_t count = 0;
	int ret = ustctl_check_session_name(name);

	if (busy) {
		*busy = NULL;
		*nr = 0;
	}
	if (ret)
		return ret;
	ret = ustctl_call_ustd(USTCOMM_CTL_SESSION_START, args, 1, SESSION_EXTRA_MS, &reply);
	if (ret)
		return ret;
	s = ustcomm_ctl_next(&reply.msg, &pos);
	ret = s ? ustctl_parse_u32(0, USTCOMM_CTL_SESSION_START, s, INT_MAX, &count) : -EPROTO;
	/* Then the patterns no running program matched (a ustd of before
	 * sends none), up to "" (no pattern is empty). */
	while (!ret && (s = ustcomm_ctl_next(&reply.msg, &pos)) && *s)
		ustctl_add_warning("session '%s': pattern '%s' matched no event of any running program (it applies to programs started later and to events registered later, e.g. by dlopen)",
				   name, s);
	if (!ret && s && busy)
		ret = busy_parse(&reply, pos, busy, nr);
	ustctl_reply_release(&reply);
	return ret ? ret : (int)count;
}

int ustctl_start_session(const char *name)
{
	return ustctl_start_session_busy(name, NULL, NULL);
}

void ustctl_free_session_busy(struct ustctl_session_busy *busy, size_t nr)
{
	size_t i;

	for (i = 0; busy && i < nr; i++)
		free(busy[i].session);
	free(busy);
}

int ustctl_stop_session(const char *name)
{
	return by_name(USTCOMM_CTL_SESSION_STOP, name, 1);
}

int ustctl_destroy_session(const char *name)
{
	return by_name(USTCOMM_CTL_SESSION_DESTROY, name, 0);
}

int ustctl_end_session(const char *name, int destroy, uint64_t *discarded, char **dir)
{
	uint16_t cmd = destroy ? USTCOMM_CTL_SESSION_DESTROY : USTCOMM_CTL_SESSION_STOP;
	const char *args[1] = { name }, *pos = NULL, *s, *lost, *where;
	struct ustctl_reply reply;
	uint32_t count = 0;
	int ret = ustctl_check_session_name(name);

	*discarded = 0;
	*dir = NULL;
	if (ret)
		return ret;
	ret = ustctl_call_ustd(cmd, args, 1, SESSION_EXTRA_MS, &reply);
	if (ret)
		return ret;
	s = ustcomm_ctl_next(&reply.msg, &pos);
	lost = s ? ustcomm_ctl_next(&reply.msg, &pos) : NULL;
	where = lost ? ustcomm_ctl_next(&reply.msg, &pos) : NULL;
	if (!destroy)
		ret = s ? ustctl_parse_u32(0, cmd, s, UINT32_MAX, &count) : -EPROTO;
	if (!ret && lost && where) {
		*discarded = strtoull(lost, NULL, 10);
		*dir = strdup(where);
		if (!*dir) {
			ret = -ENOMEM;
			ustctl_set_error("out of memory");
		}
	}
	ustctl_reply_release(&reply);
	return ret ? ret : (int)count;
}

void ustctl_free_session_infos(struct ustctl_session_info *sessions, size_t nr)
{
	size_t i;

	for (i = 0; sessions && i < nr; i++)
		free(sessions[i].dir);
	free(sessions);
}

int ustctl_list_sessions(struct ustctl_session_info **sessions, size_t *nr)
{
	struct ustctl_session_info *out = NULL;
	struct ustctl_reply reply;
	const char *pos = NULL, *f[6];
	size_t i, n = 0;
	uint32_t v;
	int ret, k;

	*sessions = NULL;
	*nr = 0;
	ret = ustctl_call_ustd(USTCOMM_CTL_SESSION_LIST, NULL, 0, 0, &reply);
	if (ret)
		goto end;
	if (reply.msg.nr_strings % 6) {
		ret = -EPROTO;
		ustctl_set_error("ustd answered list-sessions with a malformed list");
		goto end;
	}
	n = reply.msg.nr_strings / 6;
	out = calloc(n + 1, sizeof(*out));
	if (!out) {
		ret = -ENOMEM;
		ustctl_set_error("out of memory");
		goto end;
	}
	for (i = 0; !ret && i < n; i++) {
		for (k = 0; k < 6; k++)
			f[k] = ustcomm_ctl_next(&reply.msg, &pos);
		snprintf(out[i].name, sizeof(out[i].name), "%s", f[0]);
		snprintf(out[i].state, sizeof(out[i].state), "%s", f[1]);
		out[i].dir = strdup(f[2]);
		out[i].overwrite = f[3][0] == '1';
		ret = ustctl_parse_u32(0, USTCOMM_CTL_SESSION_LIST, f[4], UINT32_MAX, &v);
		out[i].nr_processes = v;
		if (!ret)
			ret = ustctl_parse_u32(0, USTCOMM_CTL_SESSION_LIST, f[5], UINT32_MAX, &v);
		out[i].nr_rules = v;
		if (!ret && !out[i].dir) {
			ret = -ENOMEM;
			ustctl_set_error("out of memory");
		}
	}
end:
	ustctl_reply_release(&reply);
	if (ret) {
		ustctl_free_session_infos(out, n);
	} else {
		*sessions = out;
		*nr = n;
	}
	return ret;
}
