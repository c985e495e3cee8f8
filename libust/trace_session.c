/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * load-session: a whole session (output, channel settings, rules) applied
 * all or nothing (trace.h, ctl_protocol.h). The rules go to a copy of the
 * table (rules.h) and the settings are saved first, so that any refusal
 * puts everything back before anyone sees it: the whole request runs
 * under ust_lock. Async-signal-safe like the rest of the trace.
 */
#include <errno.h>
#include <string.h>

#include "libust/rules.h"
#include "libust/sigsafe_alloc.h"
#include "libust/trace_internal.h"
#include "libustcomm/blocking.h"
#include "libustcomm/event_context.h"
#include "libustcomm/filter_bytecode.h"
#include "libustcomm/format.h"
#include "libustcomm/hex.h"
#include "libustcomm/loglevel.h"

#define PROG_CAP	(UST_FILTER_CODE_MAX + UST_FILTER_DATA_MAX + 64)

struct cursor {
	const struct ustcomm_ctl_msg *msg;
	const char *pos;
};

static const char *next(struct cursor *c)
{
	return ustcomm_ctl_next(c->msg, &c->pos);
}

/* A setting equal to what the channel has is no change, so a session
 * saved from a traced program loads into it again. */
static int load_subbuf(const char *trace, const char *channel, int is_num, const char *text)
{
	uint32_t v, size, num;

	if (ustcomm_parse_u32(text, &v) < 0)
		return ust_trace_fail(-EINVAL, "channel %s: '%s' is not a decimal number", channel,
				      text);
	ust_trace_channel_geometry(channel, &size, &num);
	if (!v || v == (is_num ? num : size))
		return 0;
	return ust_trace_set_subbuf(trace, channel, is_num, v);
}

/* "vtid,procname": each the channel does not record yet. */
static int load_contexts(const char *trace, const char *channel, const char *list)
{
	struct ustcomm_ctx_set have;
	char name[64];
	const char *p = list, *end;
	size_t len;
	int id, ret = 0;

	while (*p && !ret) {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		if (!len || len >= sizeof(name))
			return ust_trace_fail(-EINVAL, "channel %s: malformed context list '%s'",
					      channel, list);
		memcpy(name, p, len);
		name[len] = '\0';
		id = ustcomm_ctx_parse(name);
		ust_chan_conf_contexts(channel, &have);
		if (id < 0 || !ustcomm_ctx_set_has(&have, id))
			ret = ust_trace_add_context(trace, channel, name);
		p += len + (end ? 1 : 0);
	}
	return ret;
}

/* The settings only: the buffers get it once the whole session holds. */
static int load_blocking(const char *channel, const char *text)
{
	uint32_t us;

	if (!*text)
		return 0;
	if (ustcomm_blocking_parse(text, &us) < 0)
		return ust_trace_fail(-EINVAL, "channel %s: invalid blocking timeout '%s'", channel,
				      text);
	if (ust_chan_conf_set_blocking(channel, us) < 0)
		return ust_trace_fail(-ENOSPC, "settings for at most %d channels",
				      UST_TRACE_MAX_CHANNELS);
	return 0;
}

/* One rule of five strings into the staged table. */
static int load_rule(struct cursor *cur, uint32_t index, uint32_t nr, void *prog)
{
	const char *kind = next(cur), *pattern = next(cur), *level = next(cur);
	const char *filter = next(cur), *hex = next(cur);
	struct ust_rule_spec spec = { .pattern = pattern, .filter = filter };
	char why[200];
	ssize_t len;
	int ret;

	spec.enable = !strcmp(kind, "enable");
	if (!spec.enable && strcmp(kind, "disable"))
		return ust_trace_fail(-EINVAL, "rule %u of %u: '%s' is neither enable nor disable",
				      index, nr, kind);
	if (ustcomm_level_spec_parse(level, &spec.level_match, &spec.level) < 0 ||
	    (!spec.enable && spec.level_match))
		return ust_trace_fail(-EINVAL, "rule %u of %u (%s %s): invalid log level selection '%s'",
				      index, nr, kind, pattern, level);
	if (!*filter != !*hex)
		return ust_trace_fail(-EINVAL, "rule %u of %u (%s %s): a filter comes with its bytecode",
				      index, nr, kind, pattern);
	if (*hex) {
		len = ustcomm_hex_decode(hex, prog, PROG_CAP);
		if (len <= 0)
			return ust_trace_fail(-EINVAL, "rule %u of %u (%s %s): the filter's bytecode is not hexadecimal or too long",
					      index, nr, kind, pattern);
		spec.prog = prog;
		spec.prog_len = (size_t)len;
	}
	ret = ust_rules_stage(&spec, why, sizeof(why));
	if (ret < 0)
		return ust_trace_fail(ret, "rule %u of %u (%s %s): %s", index, nr, kind, pattern, why);
	return 0;
}

static int load_all(struct cursor *cur, const char *trace, const char *output,
		    uint32_t nr_channels, uint32_t nr_rules)
{
	void *prog = NULL;
	uint32_t i;
	int ret = 0;

	if (*output && strcmp(output, ust_t.output))
		ret = ust_trace_set_output(trace, output);
	for (i = 0; !ret && i < nr_channels; i++) {
		const char *channel = next(cur), *size = next(cur), *num = next(cur);
		const char *contexts = next(cur), *blocking = next(cur);

		ret = load_subbuf(trace, channel, 0, size);
		if (!ret)
			ret = load_subbuf(trace, channel, 1, num);
		if (!ret)
			ret = load_contexts(trace, channel, contexts);
		if (!ret)
			ret = load_blocking(channel, blocking);
	}
	if (!ret && nr_rules) {
		prog = ust_zalloc(PROG_CAP);
		if (!prog)
			ret = ust_trace_fail(-ENOMEM, "out of memory");
	}
	for (i = 0; !ret && i < nr_rules; i++)
		ret = load_rule(cur, i + 1, nr_rules, prog);
	ust_free(prog);
	return ret;
}

int ust_trace_load_session(const struct ustcomm_ctl_msg *msg)
{
	/* The output before the session, to put back (too big for a signal stack). */
	static char saved_output[sizeof(ust_t.output)];
	struct cursor cur = { .msg = msg };
	const char *trace = next(&cur), *output = next(&cur), *count = next(&cur);
	uint32_t nr_channels, rest;
	int ret;

	if (!count || ustcomm_parse_u32(count, &nr_channels) < 0 ||
	    nr_channels > USTCOMM_CTL_SESSION_CHANNELS_MAX ||
	    msg->nr_strings < 3 + USTCOMM_CTL_SESSION_CHANNEL_ARGS * nr_channels)
		return ust_trace_fail(-EINVAL, "malformed load-session request: bad channel count");
	rest = msg->nr_strings - 3 - USTCOMM_CTL_SESSION_CHANNEL_ARGS * nr_channels;
	if (rest % 5 || rest / 5 > USTCOMM_CTL_RULES_MAX)
		return ust_trace_fail(-EINVAL, "malformed load-session request: rules come in fives, at most %u",
				      USTCOMM_CTL_RULES_MAX);
	ret = ust_trace_check_name(trace);
	if (ret < 0)
		return ret;
	ret = ust_rules_begin(ust_t.error, sizeof(ust_t.error));
	if (ret < 0)
		return ret;
	memcpy(saved_output, ust_t.output, sizeof(saved_output));
	ust_chan_conf_save();
	ret = load_all(&cur, trace, output, nr_channels, rest / 5);
	if (ret < 0) {
		char why[sizeof(ust_t.error)];

		ust_rules_abort();
		ust_chan_conf_restore();
		memcpy(ust_t.output, saved_output, sizeof(saved_output));
		/* The reason is in ust_t.error already; say that nothing changed. */
		memcpy(why, ust_t.error, sizeof(why));
		return ust_trace_fail(ret, "%.200s; nothing of the session was applied", why);
	}
	ust_rules_commit();
	ust_trace_apply_rules();
	ust_trace_apply_blocking();
	return (int)ust_rules_count();
}
