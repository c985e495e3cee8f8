/* SPDX-License-Identifier: LGPL-2.1-only */
/* A running program's session: read back and applied. Files: session_file.c. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/event_context.h"
#include "libustcomm/loglevel.h"
#include "libustcomm/shm_layout.h"
#include "libustctl/internal.h"
#include "libustcomm/blocking.h"

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

int ustctl_apply_session(pid_t pid, const char *trace, const struct ustctl_session *session)
{
	size_t i, j;
	int ret = 0;

	if (session->output && *session->output)
		ret = ustctl_set_output(pid, trace, session->output);
	for (i = 0; !ret && i < session->nr_channels; i++) {
		const struct ustctl_channel_conf *c = &session->channels[i];

		if (c->subbuf_size)
			ret = ustctl_set_subbuf_size(pid, trace, c->name, c->subbuf_size);
		if (!ret && c->subbuf_num)
			ret = ustctl_set_subbuf_num(pid, trace, c->name, c->subbuf_num);
		for (j = 0; !ret && j < c->nr_contexts; j++)
			ret = ustctl_add_context(pid, trace, c->name, c->contexts[j]);
		if (!ret && c->has_blocking_timeout)
			ret = ustctl_set_blocking_timeout(pid, trace, c->name, c->blocking_timeout);
	}
	/* One rule per request: a later rule overrides an earlier one. */
	for (i = 0; !ret && i < session->nr_rules; i++) {
		ret = ustctl_enable_rule(pid, trace, &session->rules[i]);
		if (ret > 0)
			ret = 0;
	}
	return ret;
}
