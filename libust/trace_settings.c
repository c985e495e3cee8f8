/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The trace's settings: channel geometry and contexts, which ustd to report
 * to, and the session description. They belong to a trace slot (the
 * daemon path to the process) and apply to buffers yet to be created. Async-signal-safe (see trace_life.c).
 */
#include <errno.h>
#include <string.h>

#include "libust/rules.h"
#include "libust/trace_internal.h"
#include "libustcomm/blocking.h"
#include "libustcomm/bufsize.h"
#include "libustcomm/format.h"
#include "libustcomm/event_context.h"
#include "libustcomm/metadata.h"
#include "libustcomm/perf_event.h"
#include "libustcomm/shm_layout.h"
#include "libustcomm/trace_output.h"

void ust_trace_channel_geometry(const char *channel, uint32_t *size, uint32_t *num)
{
	ust_chan_conf_geometry(channel, ust_t.cfg.def_size,
			       ust_t.cfg.def_num ? ust_t.cfg.def_num :
			       ust_subbuf_num_default(ust_t.cfg.nr_cpus +
						      ust_trace_thread_buffers(channel)),
			       size, num);
}

uint32_t ust_trace_thread_buffers(const char *channel)
{
	if (ust_t.cfg.per_uid ||
	    (ust_t.cfg.thread_channel[0] && strcmp(ust_t.cfg.thread_channel, channel)))
		return 0;
	return ust_t.cfg.nr_threads;
}

int ust_trace_check_name(const char *name)
{
	return ust_trace_select_name(name, 1);
}

/* A channel's name, or "*" for every channel. */
static int check_channel_name(const char *channel)
{
	if (!strcmp(channel, UST_CHAN_CONF_ALL))
		return 0;
	if (strlen(channel) >= UST_SHM_CHANNEL_NAME_MAX ||
	    !ustcomm_metadata_valid_identifier(channel))
		return ust_trace_fail(-EINVAL, "invalid channel name '%s': an identifier of at most %d characters, or * for every channel",
			    channel, UST_SHM_CHANNEL_NAME_MAX - 1);
	return 0;
}

/* A setting of channel in trace name: both must be valid. */
static int check_channel_setting(const char *name, const char *channel)
{
	int ret = ust_trace_check_name(name);

	return ret < 0 ? ret : check_channel_name(channel);
}

/* Settings apply to buffers yet to be created. */
static int check_not_allocated(const char *what)
{
	if (ust_t.state >= UST_TRACE_ALLOCATED)
		return ust_trace_fail(-EBUSY, "trace '%s' is %s: its buffers are allocated, so %s fixed until destroy-trace",
			    ust_t.name, ust_trace_state_names[ust_t.state], what);
	return 0;
}

int ust_trace_set_subbuf(const char *name, const char *channel, int is_num, uint32_t value)
{
	uint32_t min = is_num ? UST_SUBBUF_NUM_MIN : UST_SUBBUF_SIZE_MIN;
	uint32_t max = is_num ? UST_SUBBUF_NUM_MAX : UST_SUBBUF_SIZE_MAX;
	int ret = check_channel_setting(name, channel);

	if (ret < 0)
		return ret;
	if (value < min || value > max || (value & (value - 1)))
		return ust_trace_fail(-EINVAL, "%u is not a valid sub-buffer %s: a power of two between %u and %u",
			    value, is_num ? "count" : "size", min, max);
	ret = check_not_allocated("sub-buffer settings are");
	if (ret < 0)
		return ret;
	if (ust_chan_conf_set_subbuf(channel, is_num, value) < 0)
		return ust_trace_fail(-ENOSPC, "settings for at most %d channels", UST_TRACE_MAX_CHANNELS);
	return 0;
}

int ust_trace_add_context(const char *name, const char *channel, const char *context)
{
	char why[200];
	int id, ret = check_channel_setting(name, channel);

	if (ret < 0)
		return ret;
	id = ustcomm_ctx_parse(context);
	if (id < 0)
		return ust_trace_fail(-EINVAL, "unknown context '%s': expected %s", context,
			    USTCOMM_CTX_CHOICES);
	ret = check_not_allocated("contexts are");
	if (ret < 0)
		return ret;
	if (id >= USTCOMM_CTX_PERF_FIRST) {
		ret = ustcomm_perf_check(id, why, sizeof(why));
		if (ret < 0)
			return ust_trace_fail(ret, "%s", why);
	}
	ret = ust_chan_conf_add_context(channel, id);
	if (ret == -EEXIST)
		return ust_trace_fail(ret, "channel %s records context %s already", channel,
			    ustcomm_ctx_name(id));
	if (ret < 0)
		return ust_trace_fail(ret, "settings for at most %d channels", UST_TRACE_MAX_CHANNELS);
	return 0;
}

int ust_trace_set_blocking(const char *name, const char *channel, const char *value)
{
	int ret = check_channel_setting(name, channel);
	uint32_t us;

	if (ret < 0)
		return ret;
	if (ustcomm_blocking_parse(value, &us) < 0)
		return ust_trace_fail(-EINVAL, "invalid blocking timeout '%s': 0 (never wait), inf (wait while ustd lives) or microseconds up to %u, with an optional suffix us, ms or s",
			    value, UST_BLOCKING_MAX_US);
	if (ust_chan_conf_set_blocking(channel, us) < 0)
		return ust_trace_fail(-ENOSPC, "settings for at most %d channels", UST_TRACE_MAX_CHANNELS);
	ust_trace_apply_blocking();
	return 0;
}

int ust_trace_set_tracefile(const char *name, const char *channel, const char *limits)
{
	char size[32];
	const char *count = strchr(limits, '/');
	size_t len = count ? (size_t)(count - limits) : strlen(limits);
	int ret = check_channel_setting(name, channel);
	uint64_t sz;
	uint32_t n = 0;

	if (ret < 0)
		return ret;
	if (len >= sizeof(size))
		len = sizeof(size) - 1;
	memcpy(size, limits, len);
	size[len] = '\0';
	if (count)
		count++;
	if (ustcomm_parse_size(size, 0, UST_TRACEFILE_SIZE_MAX, &sz) < 0 ||
	    (sz && sz < UST_TRACEFILE_SIZE_MIN))
		return ust_trace_fail(-EINVAL, "invalid tracefile size '%s': 0 (one file) or bytes from %llu, with an optional suffix k, M or G",
			    size, UST_TRACEFILE_SIZE_MIN);
	if (count && *count &&
	    (ustcomm_parse_u32(count, &n) < 0 || n > UST_TRACEFILE_COUNT_MAX))
		return ust_trace_fail(-EINVAL, "invalid tracefile count '%s': 0 (keep every file) or a number up to %u",
			    count, UST_TRACEFILE_COUNT_MAX);
	if (n && !sz)
		return ust_trace_fail(-EINVAL, "a tracefile count needs a tracefile size: with one file per stream there is nothing to keep the newest of");
	ret = check_not_allocated("tracefile limits are");
	if (ret < 0)
		return ret;
	if (ust_chan_conf_set_tracefile(channel, sz, n) < 0)
		return ust_trace_fail(-ENOSPC, "settings for at most %d channels", UST_TRACE_MAX_CHANNELS);
	return 0;
}

int ust_trace_get_tracefile(const char *name, const char *channel, uint64_t *size,
			    uint32_t *count)
{
	int ret = ust_trace_select_query(name);

	if (ret < 0)
		return ret;
	ust_chan_conf_tracefile(channel, size, count);
	return 0;
}

void ust_trace_apply_blocking(void)
{
	uint32_t i;

	/* Unlike the geometry, it may change while the buffers exist. */
	for (i = 0; i < ust_t.nr_channels; i++)
		ust_channel_set_blocking(ust_t.channels[i],
					 ust_chan_conf_blocking(ust_t.channels[i]->name),
					 ust_trace_consumer_alive_fn());
}

int ust_trace_get_blocking(const char *name, const char *channel, char *value, size_t len)
{
	int ret = ust_trace_select_query(name);

	if (ret < 0)
		return ret;
	ustcomm_blocking_format(value, len, ust_chan_conf_blocking(channel));
	return 0;
}

int ust_trace_get_subbuf(const char *name, const char *channel, int is_num, uint32_t *value)
{
	uint32_t size, num;
	int ret = ust_trace_select_query(name);

	if (ret < 0)
		return ret;
	ust_trace_channel_geometry(channel, &size, &num);
	*value = is_num ? num : size;
	return 0;
}

int ust_trace_set_daemon_path(const char *path)
{
	size_t len = strlen(path);
	uint32_t i;

	if (!len || len >= sizeof(ust_t.cfg.daemon_path))
		return ust_trace_fail(-EINVAL, "invalid ustd socket path: it must have 1 to %zu characters",
			    sizeof(ust_t.cfg.daemon_path) - 1);
	/* The process's: every trace reports to the same ustd. */
	for (i = 0; i < UST_TRACES_MAX; i++)
		memcpy(ust_traces[i].cfg.daemon_path, path, len + 1);
	return 0;
}

const char *ust_trace_daemon_path(void)
{
	return ust_traces[0].cfg.daemon_path;
}

int ust_trace_set_overwrite(const char *name, int overwrite)
{
	int ret = ust_trace_check_name(name);

	if (ret < 0)
		return ret;
	if (!!ust_t.cfg.overwrite == !!overwrite)
		return 0;
	ret = check_not_allocated("its mode is");
	if (ret < 0)
		return ret;
	ust_t.cfg.overwrite = overwrite;
	return 0;
}

int ust_trace_set_per_uid(const char *name, int per_uid)
{
	int ret = ust_trace_check_name(name);

	if (ret < 0)
		return ret;
	if (!!ust_t.cfg.per_uid == !!per_uid)
		return 0;
	ret = check_not_allocated("its buffers' kind is");
	if (ret < 0)
		return ret;
	ust_t.cfg.per_uid = per_uid;
	return 0;
}

int ust_trace_set_output(const char *name, const char *output)
{
	struct ustcomm_relay_url url;
	const char *why;
	int ret = ust_trace_check_name(name);

	if (ret < 0)
		return ret;
	if (ustcomm_output_parse(output, &url, &why) < 0)
		return ust_trace_fail(-EINVAL, "invalid output '%s': %s", output, why);
	ret = check_not_allocated("its output is");
	if (ret < 0)
		return ret;
	memcpy(ust_t.output, output, strlen(output) + 1);
	return 0;
}

int ust_trace_describe_session(const char *name, struct ustcomm_strbuf *sb, uint32_t *nr)
{
	int ret = ust_trace_select_query(name);

	if (ret < 0)
		return ret;
	ustcomm_strbuf_append(sb, ust_t.output, strlen(ust_t.output) + 1);
	*nr = 1;
	ret = ust_rules_describe(sb, nr);
	if (ret < 0)
		return ret;
	ust_chan_conf_describe(sb, ust_trace_channel_geometry, nr);
	return sb->err;
}
