/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sessions: their registry, the requests that apply one to a program,
 * the published file of active sessions, and the directory of a session's
 * trace. The socket that ustctl talks to is session_ctl.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "libustcomm/log.h"
#include "libustcomm/tracker.h"
#include "ustd/output/output.h"
#include "ustd/session/session.h"

struct ustd_session *ustd_session_find(struct ustd_sessions *ss, const char *name)
{
	struct ustd_session *s;

	for (s = ss ? ss->list : NULL; s; s = s->next) {
		if (!strcmp(s->name, name))
			return s;
	}
	return NULL;
}

struct ustd_session_channel *ustd_session_channel(struct ustd_session *s, const char *name)
{
	struct ustd_session_channel *grown;
	size_t i;

	for (i = 0; i < s->nr_channels; i++) {
		if (!strcmp(s->channels[i].name, name))
			return &s->channels[i];
	}
	if (strlen(name) >= sizeof(grown->name) ||
	    s->nr_channels >= USTCOMM_CTL_SESSION_CHANNELS_MAX)
		return NULL;
	grown = realloc(s->channels, (s->nr_channels + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	s->channels = grown;
	grown = &s->channels[s->nr_channels++];
	memset(grown, 0, sizeof(*grown));
	snprintf(grown->name, sizeof(grown->name), "%s", name);
	return grown;
}

int ustd_session_add_rule(struct ustd_session *s, const char *const *five)
{
	struct ustd_session_rule *grown, *r;
	int i;

	if (s->nr_rules >= USTCOMM_CTL_RULES_MAX)
		return -ENOSPC;
	grown = realloc(s->rules, (s->nr_rules + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	s->rules = grown;
	r = &s->rules[s->nr_rules];
	for (i = 0; i < 5; i++) {
		r->s[i] = strdup(five[i]);
		if (!r->s[i]) {
			while (i--)
				free(r->s[i]);
			return -ENOMEM;
		}
	}
	s->nr_rules++;
	return 0;
}

int ustd_session_encode_overwrite(const struct ustd_session *s, char **msg, size_t *len)
{
	const char *args[3] = { s->name, s->overwrite ? "1" : "0", "uid" };

	/* BUFFERS only when per user: a program of before takes the rest. */
	return ustcomm_ctl_encode(USTCOMM_CTL_SET_OVERWRITE, 0, 0, args, s->per_uid ? 3 : 2,
				  msg, len);
}

int ustd_session_encode_state(const struct ustd_session *s, char **msg, size_t *len)
{
	const char **args = calloc(2 * s->nr_rules + 1, sizeof(*args));
	size_t i, n = 0;
	int ret;

	if (!args)
		return -ENOMEM;
	args[n++] = s->name;
	for (i = 0; i < s->nr_rules; i++) {
		if (strcmp(s->rules[i].s[0], "enable"))
			continue;
		args[n++] = s->rules[i].s[1];
		args[n++] = s->rules[i].s[2];
	}
	if (n > USTCOMM_CTL_MAX_ARGS)
		n = 1;
	ret = ustcomm_ctl_encode(USTCOMM_CTL_SESSION_STATE, 0, 0, args, n, msg, len);
	free(args);
	return ret;
}

int ustd_session_encode_load(const struct ustd_session *s, const struct ustd_session_rule *rules,
			     size_t nr_rules, char **msg, size_t *len)
{
	size_t nr_channels = rules ? 0 : s->nr_channels, i, n = 0;
	size_t nr_args = 3 + USTCOMM_CTL_SESSION_CHANNEL_ARGS * nr_channels + 5 * nr_rules;
	char (*nums)[16];
	const char **args;
	int ret = -ENOMEM, k;

	if (!rules) {
		rules = s->rules;
		nr_rules = s->nr_rules;
		nr_args += 5 * nr_rules;
	}
	args = calloc(nr_args, sizeof(*args));
	nums = calloc(2 * nr_channels + 1, sizeof(*nums));
	if (!args || !nums)
		goto end;
	args[n++] = s->name;
	args[n++] = "";
	snprintf(nums[0], sizeof(nums[0]), "%zu", nr_channels);
	args[n++] = nums[0];
	for (i = 0; i < nr_channels; i++) {
		const struct ustd_session_channel *c = &s->channels[i];

		snprintf(nums[1 + 2 * i], sizeof(nums[0]), "%u", (unsigned)c->subbuf_size);
		snprintf(nums[2 + 2 * i], sizeof(nums[0]), "%u", (unsigned)c->subbuf_num);
		args[n++] = c->name;
		args[n++] = nums[1 + 2 * i];
		args[n++] = nums[2 + 2 * i];
		args[n++] = c->contexts;
		args[n++] = c->blocking;
	}
	for (i = 0; i < nr_rules; i++) {
		for (k = 0; k < 5; k++)
			args[n++] = rules[i].s[k];
	}
	ret = ustcomm_ctl_encode(USTCOMM_CTL_LOAD_SESSION, 0, 0, args, n, msg, len);
end:
	free(args);
	free(nums);
	return ret;
}

size_t ustd_session_trackers_args(const struct ustd_session *s, const char **args)
{
	size_t i, n = 0;

	for (i = 0; i < s->nr_tracked; i++) {
		args[n++] = ustcomm_track_kind_name(s->tracked[i].kind);
		args[n++] = s->tracked[i].value;
	}
	return n;
}

int ustd_session_encode_trackers(const struct ustd_session *s, char **msg, size_t *len)
{
	const char **args;
	int ret;

	*msg = NULL;
	if (!s->nr_tracked)
		return 0;
	args = calloc(1 + 2 * s->nr_tracked, sizeof(*args));
	if (!args)
		return -ENOMEM;
	args[0] = s->name;
	ret = ustcomm_ctl_encode(USTCOMM_CTL_SESSION_TRACKERS, 0, 0, args,
				 1 + ustd_session_trackers_args(s, args + 1), msg, len);
	free(args);
	return ret;
}

/*
 * Writes the requests of every active session to a temporary file and
 * renames it over the published one, so that a program reads the old file
 * or the new one, never a mix; with none active the file goes (a program
 * then pays one failed open()).
 */
int ustd_sessions_publish(struct ustd_sessions *ss)
{
	char tmp[sizeof(ss->file_path) + 8], *msg;
	struct ustd_session *s;
	size_t len;
	int fd, ret = 0, any = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", ss->file_path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		ret = -errno;
		goto end;
	}
	for (s = ss->list; s && !ret; s = s->next) {
		if (s->state != USTD_SESSION_ACTIVE)
			continue;
		any = 1;
		ret = ustd_session_encode_overwrite(s, &msg, &len);
		if (!ret) {
			ret = ustd_write_all(fd, msg, len);
			free(msg);
		}
		if (!ret)
			ret = ustd_session_encode_load(s, NULL, 0, &msg, &len);
		if (!ret) {
			ret = ustd_write_all(fd, msg, len);
			free(msg);
		}
		if (!ret)
			ret = ustd_session_encode_trackers(s, &msg, &len);
		if (!ret && msg) {
			ret = ustd_write_all(fd, msg, len);
			free(msg);
		}
	}
	if (close(fd) < 0 && !ret)
		ret = -errno;
	if (!ret && any && rename(tmp, ss->file_path) < 0)
		ret = -errno;
	if (ret || !any) {
		unlink(tmp);
		if (!any && unlink(ss->file_path) < 0 && errno != ENOENT)
			ret = -errno;
	}
end:
	if (ret)
		ustcomm_err("cannot publish the active sessions in %s: %s; programs that start now do not join them by themselves",
			    ss->file_path, strerror(-ret));
	return ret;
}

/* OUTPUT/NAME-YYYYMMDD-HHMMSS, with -1, -2... when taken. */
int ustd_session_make_dir(struct ustd_session *s, const char *output)
{
	char stamp[32], path[4096];
	time_t now = time(NULL);
	struct tm tm;
	int i, n, ret;

	ret = ustd_mkdir_p(output);
	if (ret < 0)
		return ret;
	if (!localtime_r(&now, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm))
		return -EINVAL;
	for (i = 0; i < 1000; i++) {
		n = i ? snprintf(path, sizeof(path), "%s/%s-%s-%d", output, s->name, stamp, i) :
			snprintf(path, sizeof(path), "%s/%s-%s", output, s->name, stamp);
		if (n < 0 || (size_t)n >= sizeof(path))
			return -ENAMETOOLONG;
		if (mkdir(path, ustd_dir_mode()) == 0) {
			s->dir = strdup(path);
			return s->dir ? 0 : -ENOMEM;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

void ustd_session_for_each_app(struct ustd_sessions *ss, const struct ustd_session *s,
			       void (*fn)(struct ustd_app *app, void *arg), void *arg)
{
	struct ustd_app *app, *next;

	for (app = *ss->apps; app; app = next) {
		next = app->next;
		if (app->session == s && !app->closed && !app->uid_sink)
			fn(app, arg);
	}
}

void ustd_session_for_each_trace(struct ustd_sessions *ss, const struct ustd_session *s,
				 void (*fn)(struct ustd_app *app, void *arg), void *arg)
{
	struct ustd_app *app, *next;

	for (app = *ss->apps; app; app = next) {
		next = app->next;
		if (app->session == s && !app->closed)
			fn(app, arg);
	}
}

static void app_leave(struct ustd_app *app, void *arg)
{
	(void)arg;
	app->session = NULL;
}

void ustd_session_unlink(struct ustd_sessions *ss, struct ustd_session *s)
{
	struct ustd_session **link;
	struct ustd_app *app;

	for (link = &ss->list; *link; link = &(*link)->next) {
		if (*link == s) {
			*link = s->next;
			break;
		}
	}
	/* Closed applications too: they are freed after this batch. */
	for (app = *ss->apps; app; app = app->next) {
		if (app->session == s)
			app_leave(app, NULL);
	}
}
