/* SPDX-License-Identifier: LGPL-2.1-only */
/* A running program's session: read back and applied. Files: session_file.c. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/blocking.h"
#include "libustcomm/event_context.h"
#include "libustcomm/loglevel.h"
#include "libustcomm/shm_layout.h"
#include "libustctl/internal.h"

void ustctl_session_free(struct ustctl_session *session)
{
	size_t i;

	if (!session)
		return;
	for (i = 0; i < session->nr_rules; i++) {
		free(session->rules[i].pattern);
		free(session->rules[i].filter);
	}
	for (i = 0; i < session->nr_channels; i++)
		ustctl_channel_conf_release(&session->channels[i]);
	free(session->rules);
	free(session->channels);
	free(session->output);
	free(session);
}

void ustctl_channel_conf_release(struct ustctl_channel_conf *c)
{
	size_t i;

	for (i = 0; i < c->nr_contexts; i++)
		free(c->contexts[i]);
	free(c->contexts);
	free(c->name);
}

int ustctl_channel_conf_add_context(struct ustctl_channel_conf *c, const char *context)
{
	char **grown = realloc(c->contexts, (c->nr_contexts + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	c->contexts = grown;
	c->contexts[c->nr_contexts] = strdup(context);
	if (!c->contexts[c->nr_contexts])
		return -ENOMEM;
	c->nr_contexts++;
	return 0;
}

/* "vtid,procname" -> the channel's contexts, each a known name. */
static int parse_contexts(struct ustctl_channel_conf *c, const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int ret = copy ? 0 : -ENOMEM;

	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; !ret && tok;
	     tok = strtok_r(NULL, ",", &save))
		ret = ustcomm_ctx_parse(tok) < 0 ? -EPROTO : ustctl_channel_conf_add_context(c, tok);
	free(copy);
	return ret;
}

/* Fills s from the reply: the output, nr_rules, the rules in fours (kind,
 * pattern, level, filter), the channels in fives (name, size, count,
 * contexts, blocking timeout or ""). */
static int parse_session(pid_t pid, const struct ustcomm_ctl_msg *msg, struct ustctl_session *s)
{
	const uint16_t cmd = USTCOMM_CTL_GET_SESSION;
	const char *pos = NULL, *output = ustcomm_ctl_next(msg, &pos);
	const char *first = output ? ustcomm_ctl_next(msg, &pos) : NULL;
	uint32_t nr_rules, rest;
	size_t i;
	int ret;

	ret = first ? ustctl_parse_u32(pid, cmd, first, (msg->nr_strings - 2) / 4, &nr_rules) :
		      -EPROTO;
	if (ret)
		goto malformed;
	if (*output) {
		s->output = strdup(output);
		if (!s->output)
			goto nomem;
	}
	rest = msg->nr_strings - 2 - 4 * nr_rules;
	if (rest % 5)
		goto malformed;
	if (nr_rules) {
		s->rules = calloc(nr_rules, sizeof(*s->rules));
		if (!s->rules)
			goto nomem;
	}
	if (rest) {
		s->channels = calloc(rest / 5, sizeof(*s->channels));
		if (!s->channels)
			goto nomem;
	}
	for (i = 0; i < nr_rules; i++) {
		const char *kind = ustcomm_ctl_next(msg, &pos);
		const char *pattern = ustcomm_ctl_next(msg, &pos);
		const char *level = ustcomm_ctl_next(msg, &pos);
		const char *filter = ustcomm_ctl_next(msg, &pos);
		struct ustctl_rule *r = &s->rules[i];

		if (strcmp(kind, "enable") && strcmp(kind, "disable"))
			goto malformed;
		r->enable = !strcmp(kind, "enable");
		if (ustcomm_level_spec_parse(level, &r->loglevel_match, &r->loglevel) < 0)
			goto malformed;
		r->pattern = strdup(pattern);
		r->filter = *filter ? strdup(filter) : NULL;
		s->nr_rules++;
		if (!r->pattern || (*filter && !r->filter))
			goto nomem;
	}
	for (i = 0; i < rest / 5; i++) {
		struct ustctl_channel_conf *c = &s->channels[i];
		const char *name = ustcomm_ctl_next(msg, &pos);
		const char *blocking;

		c->name = strdup(name);
		s->nr_channels++;
		if (!c->name)
			goto nomem;
		ret = ustctl_parse_u32(pid, cmd, ustcomm_ctl_next(msg, &pos), UST_SUBBUF_SIZE_MAX,
				       &c->subbuf_size);
		if (!ret)
			ret = ustctl_parse_u32(pid, cmd, ustcomm_ctl_next(msg, &pos),
					       UST_SUBBUF_NUM_MAX, &c->subbuf_num);
		if (ret)
			goto end;
		ret = parse_contexts(c, ustcomm_ctl_next(msg, &pos));
		if (ret == -EPROTO)
			goto malformed;
		if (ret)
			goto nomem;
		blocking = ustcomm_ctl_next(msg, &pos);
		c->has_blocking_timeout = *blocking != '\0';
		if (c->has_blocking_timeout &&
		    ustcomm_blocking_parse(blocking, &c->blocking_timeout) < 0)
			goto malformed;
	}
	goto end;
malformed:
	ret = -EPROTO;
	ustctl_set_error("process %d answered get-session with a malformed list", (int)pid);
	goto end;
nomem:
	ret = -ENOMEM;
	ustctl_set_error("out of memory");
end:
	return ret;
}

int ustctl_get_session(pid_t pid, const char *trace, struct ustctl_session **session)
{
	const char *args[1] = { trace ? trace : "" };
	struct ustctl_session *s = NULL;
	struct ustctl_reply reply;
	int ret;

	ret = ustctl_call(pid, USTCOMM_CTL_GET_SESSION, args, 1, &reply);
	if (ret)
		goto end;
	s = calloc(1, sizeof(*s));
	if (!s) {
		ret = -ENOMEM;
		ustctl_set_error("out of memory");
		goto end;
	}
	ret = parse_session(pid, &reply.msg, s);
end:
	ustctl_reply_release(&reply);
	if (ret) {
		ustctl_session_free(s);
		s = NULL;
	}
	*session = s;
	return ret;
}

/* The channels' strings of LOAD_SESSION: name, size, count, contexts,
 * blocking timeout ("" keeps the program's). */
static int encode_channel(const struct ustctl_channel_conf *c, const char **args, char **owned)
{
	size_t i, len = 1;
	char *list;

	for (i = 0; i < c->nr_contexts; i++)
		len += strlen(c->contexts[i]) + 1;
	list = calloc(1, len);
	owned[0] = NULL;
	if (asprintf(&owned[1], "%u", (unsigned)c->subbuf_size) < 0)
		owned[1] = NULL;
	if (asprintf(&owned[2], "%u", (unsigned)c->subbuf_num) < 0)
		owned[2] = NULL;
	owned[3] = list;
	owned[4] = calloc(1, UST_BLOCKING_TEXT_MAX);
	if (!list || !owned[1] || !owned[2] || !owned[4]) {
		ustctl_set_error("out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < c->nr_contexts; i++) {
		if (i)
			strcat(list, ",");
		strcat(list, c->contexts[i]);
	}
	if (c->has_blocking_timeout)
		ustcomm_blocking_format(owned[4], UST_BLOCKING_TEXT_MAX, c->blocking_timeout);
	args[0] = c->name;
	args[1] = owned[1];
	args[2] = owned[2];
	args[3] = owned[3];
	args[4] = owned[4];
	return 0;
}

/* Everything a request can be refused for here is checked before it goes. */
static int check_session(const struct ustctl_session *session)
{
	size_t i, j;

	if (session->nr_rules > USTCOMM_CTL_RULES_MAX) {
		ustctl_set_error("the session has %zu rules; a program holds at most %u",
				 session->nr_rules, USTCOMM_CTL_RULES_MAX);
		return -E2BIG;
	}
	if (session->nr_channels > USTCOMM_CTL_SESSION_CHANNELS_MAX) {
		ustctl_set_error("the session has settings for %zu channels; a trace has at most %u and *",
				 session->nr_channels, USTCOMM_CTL_SESSION_CHANNELS_MAX - 1);
		return -E2BIG;
	}
	for (i = 0; i < session->nr_channels; i++) {
		const struct ustctl_channel_conf *c = &session->channels[i];

		for (j = 0; j < c->nr_contexts; j++) {
			if (ustctl_context_check(c->contexts[j]) < 0)
				return -EINVAL;
		}
	}
	return 0;
}

/*
 * One LOAD_SESSION request: the program applies it all or nothing. The
 * rules' filters are compiled and checked against the program's events
 * first (one list-markers), so a request is refused there only for what
 * the program alone knows (its trace's state, its rule limit).
 */
int ustctl_apply_session(pid_t pid, const char *trace, const struct ustctl_session *session)
{
	size_t nr_args = 3 + USTCOMM_CTL_SESSION_CHANNEL_ARGS * session->nr_channels + 5 * session->nr_rules, n = 0, i;
	struct ustctl_marker *markers = NULL;
	struct ustctl_reply reply = { 0 };
	const char **args = NULL;
	char **owned = NULL, (*levels)[USTCOMM_LEVEL_SPEC_MAX] = NULL, nr_text[16];
	char output[PATH_MAX];
	size_t nr_markers = 0, nr_owned = USTCOMM_CTL_SESSION_CHANNEL_ARGS * session->nr_channels + session->nr_rules;
	int ret;

	ret = check_session(session);
	if (ret)
		return ret;
	args = calloc(nr_args, sizeof(*args));
	owned = calloc(nr_owned + 1, sizeof(*owned));
	levels = calloc(session->nr_rules + 1, sizeof(*levels));
	if (!args || !owned || !levels) {
		ret = -ENOMEM;
		ustctl_set_error("out of memory");
		goto end;
	}
	ret = ustctl_trace_arg(pid, trace, &args[n++]);
	if (!ret)
		ret = ustctl_output_arg(pid, session->output, output, sizeof(output));
	if (ret)
		goto end;
	args[n++] = output;
	snprintf(nr_text, sizeof(nr_text), "%zu", session->nr_channels);
	args[n++] = nr_text;
	for (i = 0; !ret && i < session->nr_channels; i++) {
		ret = encode_channel(&session->channels[i], &args[n], &owned[USTCOMM_CTL_SESSION_CHANNEL_ARGS * i]);
		n += USTCOMM_CTL_SESSION_CHANNEL_ARGS;
	}
	for (i = 0; !ret && i < session->nr_rules && !markers; i++) {
		if (session->rules[i].filter && *session->rules[i].filter)
			ret = ustctl_list_markers(pid, &markers, &nr_markers);
	}
	for (i = 0; !ret && i < session->nr_rules; i++) {
		const struct ustctl_rule *r = &session->rules[i];
		char **hex = &owned[USTCOMM_CTL_SESSION_CHANNEL_ARGS * session->nr_channels + i];

		ret = ustctl_rule_prepare(pid, r, markers, nr_markers, levels[i], hex);
		args[n++] = r->enable ? "enable" : "disable";
		args[n++] = r->pattern;
		args[n++] = levels[i];
		args[n++] = r->filter && r->enable ? r->filter : "";
		args[n++] = *hex;
	}
	if (ret)
		goto end;
	ret = ustctl_call_expect(pid, USTCOMM_CTL_LOAD_SESSION, args, nr_args, 0, 1, &reply);
end:
	ustctl_reply_release(&reply);
	ustctl_free_markers(markers, nr_markers);
	for (i = 0; owned && i < nr_owned; i++)
		free(owned[i]);
	free(owned);
	free(levels);
	free(args);
	return ret;
}
