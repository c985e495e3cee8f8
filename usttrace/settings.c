/* SPDX-License-Identifier: GPL-2.0-only */
/* What the command line becomes in the program's environment (the
 * variables libust reads at start-up). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/blocking.h"
#include "libustcomm/log.h"
#include "usttrace/rules.h"
#include "usttrace/options.h"
#include "usttrace/settings.h"

/*
 * The rule every -m pattern gets (enable, --filter, the log level) in
 * rule, and a copy of the patterns, ","-separated ("*" without -m), for
 * strtok_r(); NULL when out of memory, said.
 */
char *usttrace_rule_patterns(const struct usttrace *ut, struct ustctl_rule *rule)
{
	const char *level = ut->loglevel ? ut->loglevel : ut->loglevel_only;
	char *copy;

	*rule = (struct ustctl_rule){ .enable = 1, .filter = ut->filter };
	if (level) {
		rule->loglevel = ustctl_loglevel_parse(level);
		rule->loglevel_match = ut->loglevel ? USTCTL_LOGLEVEL_RANGE : USTCTL_LOGLEVEL_ONLY;
	}
	copy = strdup(ut->patterns.len ? ut->patterns.buf : "*");
	if (!copy)
		ustcomm_err("out of memory");
	return copy;
}

/* The -m patterns (all events without), each with the level and filter options. */
static int usttrace_pattern_rules(struct usttrace *ut)
{
	const char *level = ut->loglevel ? ut->loglevel : ut->loglevel_only;
	struct ustctl_rule rule;
	char *copy, *tok, *save = NULL;
	int ret = 0;

	if (!ut->patterns.len && !ut->filter && !level)
		return 0;
	copy = usttrace_rule_patterns(ut, &rule);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && ret >= 0; tok = strtok_r(NULL, ",", &save)) {
		rule.pattern = tok;
		ret = usttrace_rule_append(&ut->autoprobe, &rule, "-m");
	}
	free(copy);
	return ret;
}

/*
 * What the program's environment says about events and channels: the
 * session's rules in order, then the -m patterns, for UST_AUTOPROBE (a
 * disable rule with a leading '-'); the session's channels, then the
 * --context, --blocking-timeout and --tracefile-size ones for every
 * channel ("*"), for UST_CHANNELS, as
 * name:SIZE:NUM[:CTX+CTX...][@TIMEOUT][%FILESIZE/COUNT] (an empty SIZE
 * or NUM keeps the default).
 * Returns 0, or -EINVAL after saying what is wrong with the session's
 * contents.
 */
int usttrace_settings(struct usttrace *ut)
{
	const struct ustctl_session *session = ut->session;
	const struct ustctl_channel_conf *c;
	char blocking[UST_BLOCKING_TEXT_MAX];
	size_t i, j;
	int ret = 0;

	for (i = 0; session && i < session->nr_rules; i++) {
		ret = usttrace_rule_append(&ut->autoprobe, &session->rules[i], ut->session_file);
		if (ret < 0)
			goto end;
	}
	ret = usttrace_pattern_rules(ut);
	if (ret < 0)
		goto end;
	for (i = 0; session && i < session->nr_channels; i++) {
		c = &session->channels[i];
		ustcomm_strbuf_printf(&ut->channels, "%s%s:", i ? "," : "", c->name);
		if (c->subbuf_size)
			ustcomm_strbuf_printf(&ut->channels, "%" PRIu32, c->subbuf_size);
		ustcomm_strbuf_printf(&ut->channels, ":");
		if (c->subbuf_num)
			ustcomm_strbuf_printf(&ut->channels, "%" PRIu32, c->subbuf_num);
		for (j = 0; j < c->nr_contexts; j++) {
			ret = usttrace_check_context(ut->session_file, c->contexts[j]);
			if (ret < 0)
				goto end;
			ustcomm_strbuf_printf(&ut->channels, "%s%s", j ? "+" : ":", c->contexts[j]);
		}
		if (c->has_blocking_timeout) {
			ustcomm_blocking_format(blocking, sizeof(blocking), c->blocking_timeout);
			ustcomm_strbuf_printf(&ut->channels, "@%s", blocking);
		}
	}
	for (i = 0; ut->session_extra && i < ut->session_extra->nr_tracefiles; i++) {
		const struct ustctl_tracefile_conf *tf = &ut->session_extra->tracefiles[i];

		ustcomm_strbuf_printf(&ut->channels, "%s%s::%%%" PRIu64 "/%" PRIu32,
				      ut->channels.len ? "," : "", tf->channel, tf->size, tf->count);
	}
	if (ut->contexts.len)
		ustcomm_strbuf_printf(&ut->channels, "%s*:::%s", ut->channels.len ? "," : "",
				      ut->contexts.buf);
	if (ut->blocking)
		ustcomm_strbuf_printf(&ut->channels, "%s*::@%s", ut->channels.len ? "," : "",
				      ut->blocking);
	if (ut->tracefile_size)
		ustcomm_strbuf_printf(&ut->channels, "%s*::%%%s/%s", ut->channels.len ? "," : "",
				      ut->tracefile_size,
				      ut->tracefile_count ? ut->tracefile_count : "0");
	ret = ut->autoprobe.err ? ut->autoprobe.err : ut->channels.err;
	if (ret < 0)
		ustcomm_err("%s", strerror(-ret));
end:
	return ret;
}
