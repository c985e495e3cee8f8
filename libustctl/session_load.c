/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Sessions held by ustd to and from session files: a session read back
 * whole (SESSION_DESCRIBE), one created from a file's contents with the
 * existing session requests, and tracefile limits (SESSION_CHANNEL).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/blocking.h"
#include "libustcomm/bufsize.h"
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/loglevel.h"
#include "libustcomm/metadata.h"
#include "libustcomm/shm_layout.h"
#include "libustctl/internal.h"
#include "libustctl/session_file_extra.h"
#include "libustctl/session_file_track.h"

/* SESSION_CHANNEL: "0" and "" keep what the session has. */
static int set_channel(const char *name, const char *channel, uint32_t size, uint32_t num,
		       const char *blocking, uint64_t tf_size, uint32_t tf_count)
{
	char v[4][24];
	const char *args[7] = { name, channel, v[0], v[1], blocking, v[2], v[3] };

	snprintf(v[0], sizeof(v[0]), "%" PRIu32, size);
	snprintf(v[1], sizeof(v[1]), "%" PRIu32, num);
	snprintf(v[2], sizeof(v[2]), "%" PRIu64, tf_size);
	snprintf(v[3], sizeof(v[3]), "%" PRIu32, tf_count);
	return ustctl_call_ustd_u32(USTCOMM_CTL_SESSION_CHANNEL, args, 7, 0, NULL);
}

int ustctl_session_set_tracefile(const char *name, const char *channel, uint64_t size,
				 uint32_t count)
{
	int ret = ustctl_check_session_name(name);

	if (ret)
		return ret;
	if (!channel || (strcmp(channel, "*") && (strlen(channel) >= UST_SHM_CHANNEL_NAME_MAX ||
						   !ustcomm_metadata_valid_identifier(channel)))) {
		ustctl_set_error("invalid channel name '%s': an identifier, or * for every channel",
				 channel ? channel : "");
		return -EINVAL;
	}
	if (size < UST_TRACEFILE_SIZE_MIN || size > UST_TRACEFILE_SIZE_MAX ||
	    count > UST_TRACEFILE_COUNT_MAX) {
		ustctl_set_error("tracefile limits of a session: a size from %llu bytes, a count up to %u",
				 UST_TRACEFILE_SIZE_MIN, UST_TRACEFILE_COUNT_MAX);
		return -EINVAL;
	}
	return set_channel(name, channel, 0, 0, "", size, count);
}

/* The strings of a description, one after the other; a missing one is ""
 * and marks the description malformed. */
struct cursor {
	const char *const *v;
	size_t nr, i;
	int bad;
};

static const char *next(struct cursor *c)
{
	if (c->i < c->nr)
		return c->v[c->i++];
	c->bad = 1;
	return "";
}

static uint64_t next_u64(struct cursor *c)
{
	const char *s = next(c);
	uint64_t v = 0;

	if (ustctl_parse_u64(0, USTCOMM_CTL_SESSION_DESCRIBE, s, UINT64_MAX, &v))
		c->bad = 1;
	return v;
}

static char *dup_nonempty(const char *s, int *nomem)
{
	char *copy = *s ? strdup(s) : NULL;

	if (*s && !copy)
		*nomem = 1;
	return copy;
}

static int describe_channels(struct cursor *c, struct ustctl_session *s,
			     struct ustctl_session_extra *x, int *nomem)
{
	uint64_t n = next_u64(c), tf_size, tf_count;
	const char *contexts, *blocking;
	char *list, *tok, *save;
	size_t i;

	if (c->bad || n > USTCOMM_CTL_SESSION_CHANNELS_MAX)
		return -EPROTO;
	s->channels = calloc(n + 1, sizeof(*s->channels));
	if (!s->channels)
		return -ENOMEM;
	for (i = 0; i < n && !c->bad; i++) {
		struct ustctl_channel_conf *ch = &s->channels[s->nr_channels++];

		ch->name = strdup(next(c));
		ch->subbuf_size = (uint32_t)next_u64(c);
		ch->subbuf_num = (uint32_t)next_u64(c);
		contexts = next(c);
		blocking = next(c);
		tf_size = next_u64(c);
		tf_count = next_u64(c);
		if (!ch->name)
			return -ENOMEM;
		ch->has_blocking_timeout = *blocking != '\0';
		if (*blocking && ustcomm_blocking_parse(blocking, &ch->blocking_timeout) < 0)
			c->bad = 1;
		list = strdup(contexts);
		if (!list)
			return -ENOMEM;
		for (tok = strtok_r(list, ",", &save); tok && !*nomem; tok = strtok_r(NULL, ",", &save))
			*nomem = ustctl_channel_conf_add_context(ch, tok) < 0;
		free(list);
		if (tf_size && ustctl_extra_add_tracefile(x, ch->name, tf_size, (uint32_t)tf_count))
			*nomem = 1;
	}
	return 0;
}

static int describe_rules(struct cursor *c, struct ustctl_session *s, int *nomem)
{
	uint64_t n = next_u64(c);
	const char *kind, *level;
	size_t i;

	if (c->bad || n > USTCOMM_CTL_RULES_MAX)
		return -EPROTO;
	s->rules = calloc(n + 1, sizeof(*s->rules));
	if (!s->rules)
		return -ENOMEM;
	for (i = 0; i < n && !c->bad; i++) {
		struct ustctl_rule *r = &s->rules[s->nr_rules++];

		kind = next(c);
		r->enable = !strcmp(kind, "enable");
		r->pattern = strdup(next(c));
		level = next(c);
		r->filter = dup_nonempty(next(c), nomem);
		if (!r->pattern)
			*nomem = 1;
		if (ustcomm_level_spec_parse(level, &r->loglevel_match, &r->loglevel) < 0)
			c->bad = 1;
	}
	return 0;
}

static void describe_tail(struct cursor *c, struct ustctl_session_extra *x, int *nomem)
{
	struct ustctl_rotation *r = &x->rotation;
	const char *pattern, *filter, *dir, *kind;
	uint64_t n, i, at_most;

	r->every_us = next_u64(c);
	r->size = next_u64(c);
	r->on_rotate = dup_nonempty(next(c), nomem);
	r->on_rotate_timeout_us = next_u64(c);
	n = next_u64(c);
	for (i = 0; i < n && !c->bad && !*nomem; i++) {
		pattern = next(c);
		filter = next(c);
		dir = next(c);
		at_most = next_u64(c);
		if (ustctl_extra_add_trigger(x, pattern, filter, dir, (unsigned)at_most))
			*nomem = 1;
	}
	/* A ustd of before trackers were described ends here. */
	if (c->i == c->nr)
		return;
	n = next_u64(c);
	for (i = 0; i < n && !c->bad && !*nomem; i++) {
		kind = next(c);
		if (ustctl_extra_add_tracker(x, kind, next(c)))
			*nomem = 1;
	}
	/* Per-user buffers are said, per-process ones are not. */
	if (c->i == c->nr)
		return;
	if (strcmp(next(c), "uid"))
		c->bad = 1;
	x->buffers = USTCTL_BUFFERS_PER_UID;
}

int ustctl_session_from_description(const char *name, const char *const *args, size_t nr,
				    struct ustctl_session **session,
				    struct ustctl_session_extra **extra)
{
	struct ustctl_session *s = calloc(1, sizeof(*s));
	struct ustctl_session_extra *x = calloc(1, sizeof(*x));
	struct cursor c = { .v = args, .nr = nr };
	int ret = 0, nomem = 0;

	*session = NULL;
	*extra = NULL;
	if (!s || !x || !(x->name = strdup(name))) {
		ret = -ENOMEM;
		goto end;
	}
	s->output = dup_nonempty(next(&c), &nomem);
	x->overwrite = !strcmp(next(&c), "1");
	ret = describe_channels(&c, s, x, &nomem);
	if (!ret)
		ret = describe_rules(&c, s, &nomem);
	if (!ret)
		describe_tail(&c, x, &nomem);
	if (!ret && nomem)
		ret = -ENOMEM;
	if (!ret && (c.bad || c.i != c.nr))
		ret = -EPROTO;
end:
	if (ret == -ENOMEM)
		ustctl_set_failure("out of memory");
	else if (ret == -EPROTO)
		ustctl_set_failure("a malformed description of session %s", name);
	if (ret) {
		if (s)
			ustctl_session_free(s);
		ustctl_session_extra_free(x);
	} else {
		*session = s;
		*extra = x;
	}
	return ret;
}

int ustctl_describe_session(const char *name, struct ustctl_session **session,
			    struct ustctl_session_extra **extra)
{
	const char *args[1] = { name }, *pos = NULL, **v = NULL;
	struct ustctl_reply reply = { 0 };
	size_t i;
	int ret = ustctl_check_session_name(name);

	*session = NULL;
	*extra = NULL;
	if (ret)
		return ret;
	ret = ustctl_call_ustd(USTCOMM_CTL_SESSION_DESCRIBE, args, 1, 0, &reply);
	if (ret)
		goto end;
	v = calloc(reply.msg.nr_strings + 1, sizeof(*v));
	if (!v) {
		ret = -ENOMEM;
		ustctl_set_failure("out of memory");
		goto end;
	}
	for (i = 0; i < reply.msg.nr_strings; i++)
		v[i] = ustcomm_ctl_next(&reply.msg, &pos);
	ret = ustctl_session_from_description(name, v, reply.msg.nr_strings, session, extra);
	if (ret == -EPROTO)
		ustctl_set_failure("ustd answered save-session -s %s with a malformed description",
				   name);
end:
	free(v);
	ustctl_reply_release(&reply);
	return ret;
}

/* What can be judged before anything is sent: nothing is created for a
 * session that ustd would refuse half-way on these grounds. */
static int check_before(const char *name, const struct ustctl_session *s,
			const struct ustctl_session_extra *x)
{
	size_t i;
	int ret = ustctl_check_session_name(name);

	if (ret)
		return ret;
	for (i = 0; i < s->nr_rules; i++) {
		if (s->rules[i].enable && s->rules[i].filter && *s->rules[i].filter &&
		    ustctl_filter_check(s->rules[i].filter))
			return -EINVAL;
	}
	for (i = 0; x && i < x->nr_triggers; i++) {
		if (x->triggers[i].filter && *x->triggers[i].filter &&
		    ustctl_filter_check(x->triggers[i].filter))
			return -EINVAL;
	}
	return 0;
}

static int track_request(void *name, int track, const char *kind, const char *const *values, size_t nr)
{
	return ustctl_session_track(name, track, kind, values, nr);
}

/* Everything after create-session, in the order ustd takes it; the
 * trackers last, checked by ustd as ustctl track is, before any start. */
static int fill(const char *name, const struct ustctl_session *s,
		const struct ustctl_session_extra *x)
{
	const struct ustctl_tracefile_conf *tf;
	const struct ustctl_channel_conf *c;
	char blocking[UST_BLOCKING_TEXT_MAX];
	unsigned id;
	size_t i, j;
	int ret = 0;

	for (i = 0; !ret && i < s->nr_channels; i++) {
		c = &s->channels[i];
		tf = ustctl_session_extra_tracefile(x, c->name);
		blocking[0] = '\0';
		if (c->has_blocking_timeout)
			ustcomm_blocking_format(blocking, sizeof(blocking), c->blocking_timeout);
		if (c->subbuf_size || c->subbuf_num || blocking[0] || tf)
			ret = set_channel(name, c->name, c->subbuf_size, c->subbuf_num, blocking,
					  tf ? tf->size : 0, tf ? tf->count : 0);
		for (j = 0; !ret && j < c->nr_contexts; j++)
			ret = ustctl_session_add_context(name, c->name, c->contexts[j]);
	}
	for (i = 0; !ret && x && i < x->nr_tracefiles; i++) {
		tf = &x->tracefiles[i];
		for (j = 0; j < s->nr_channels && strcmp(s->channels[j].name, tf->channel); j++)
			;
		if (j == s->nr_channels)
			ret = set_channel(name, tf->channel, 0, 0, "", tf->size, tf->count);
	}
	if (!ret && s->nr_rules) {
		ret = ustctl_session_add_rules(name, s->rules, s->nr_rules);
		ret = ret < 0 ? ret : 0;
	}
	if (!ret && x && (x->rotation.every_us || x->rotation.size || x->rotation.on_rotate))
		ret = ustctl_set_session_rotation(name, &x->rotation);
	for (i = 0; !ret && x && i < x->nr_triggers; i++)
		ret = ustctl_session_add_trigger(name, x->triggers[i].pattern, x->triggers[i].filter,
						 x->triggers[i].dir, x->triggers[i].at_most, &id);
	if (!ret)
		ret = ustctl_session_extra_track_each(x, track_request, (void *)name);
	return ret;
}

int ustctl_create_session_from(const char *name, const struct ustctl_session *session,
			       const struct ustctl_session_extra *extra, char **dir)
{
	char *why;
	int ret;

	*dir = NULL;
	if (!name || !*name)
		name = extra ? extra->name : NULL;
	if (!name) {
		ustctl_set_error("the session file names no session: give it a name");
		return -EINVAL;
	}
	ret = check_before(name, session, extra);
	if (!ret)
		ret = ustctl_create_session_buffers(name, session->output, extra && extra->overwrite,
						    0, 0, extra ? extra->buffers : USTCTL_BUFFERS_PER_PID,
						    dir);
	if (ret)
		return ret;
	ret = fill(name, session, extra);
	if (!ret)
		return 0;
	/* All or nothing: the half-made session goes, the cause stays. */
	why = strdup(ustctl_last_error());
	ustctl_destroy_session(name);
	ustctl_set_failure("%s; session %s was destroyed again: nothing changed",
			   why ? why : "refused", name);
	free(why);
	free(*dir);
	*dir = NULL;
	return ret;
}

int ustctl_save_ustd_session(const char *name, const char *file)
{
	struct ustctl_session *s;
	struct ustctl_session_extra *x;
	int ret = ustctl_describe_session(name, &s, &x);

	if (!ret) {
		ret = ustctl_session_file_write(file, s, x);
		ustctl_session_free(s);
		ustctl_session_extra_free(x);
	}
	return ret;
}

int ustctl_load_ustd_session(const char *file, const char *name, char **dir)
{
	struct ustctl_session *s;
	struct ustctl_session_extra *x;
	int ret = ustctl_session_file_read(file, &s, &x);

	*dir = NULL;
	if (!ret) {
		ret = ustctl_create_session_from(name, s, x, dir);
		ustctl_session_free(s);
		ustctl_session_extra_free(x);
	}
	return ret;
}
