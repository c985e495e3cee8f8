/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The trace's state (trace_internal.h): its name, where it is in its life
 * cycle, and the reason of the last failure. Async-signal-safe, as all of
 * trace.h (see trace_life.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "libust/trace_internal.h"
#include "libustcomm/format.h"

struct ust_trace_data ust_t = { .sock = -1 };

const char *const ust_trace_state_names[] = {
	[UST_TRACE_NONE] = "none",
	[UST_TRACE_CREATED] = "created",
	[UST_TRACE_ALLOCATED] = "allocated",
	[UST_TRACE_STARTED] = "started",
	[UST_TRACE_STOPPED] = "stopped",
};

int ust_trace_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ustcomm_vformat(ust_t.error, sizeof(ust_t.error), fmt, ap);
	va_end(ap);
	return err;
}

const char *ust_trace_error(void)
{
	return ust_t.error;
}

const char *ust_trace_name(void)
{
	return ust_t.name;
}

const char *ust_trace_procname(void)
{
	return ust_t.cfg.procname;
}

const char *ust_trace_state_name(void)
{
	return ust_trace_state_names[ust_t.state];
}

enum ust_trace_state ust_trace_state(void)
{
	return ust_t.state;
}

void ust_trace_init(const struct ust_trace_config *config)
{
	ust_t.cfg = *config;
	if (!ust_t.cfg.def_size)
		ust_t.cfg.def_size = UST_SUBBUF_SIZE_DEFAULT;
	if (!ust_t.cfg.def_num)
		ust_t.cfg.def_num = UST_SUBBUF_NUM_DEFAULT;
	if (!ust_t.cfg.nr_cpus)
		ust_t.cfg.nr_cpus = 1;
}

int ust_trace_valid_name(const char *name)
{
	size_t i, len = strlen(name);

	if (!len || len >= USTCOMM_CTL_TRACE_NAME_MAX || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return 0;
	for (i = 0; i < len; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'))
			return 0;
	}
	return 1;
}

int ust_trace_check(const char **name)
{
	if (!*name || !**name)
		*name = "auto";
	if (!ust_trace_valid_name(*name))
		return ust_trace_fail(-EINVAL, "invalid trace name '%s': use 1 to %u letters, digits, '_', '-' or '.'",
			    *name, USTCOMM_CTL_TRACE_NAME_MAX - 1);
	if (ust_t.state == UST_TRACE_NONE)
		return ust_trace_fail(-ENOENT, "no trace '%s' in this process: run create-trace first", *name);
	if (strcmp(*name, ust_t.name))
		return ust_trace_fail(-ENOENT, "no trace '%s' in this process; its trace is '%s'", *name,
			    ust_t.name);
	return 0;
}

int ust_trace_check_allocated(const char **name)
{
	int ret = ust_trace_check(name);

	if (ret < 0)
		return ret;
	if (ust_t.state == UST_TRACE_CREATED)
		return ust_trace_fail(-EINVAL, "trace '%s' has no buffers yet: run alloc-trace or start-trace",
			    ust_t.name);
	return 0;
}

void ust_trace_populate(void)
{
	unsigned i;

	for (i = 0; i < ust_t.nr_channels; i++)
		ust_channel_populate(ust_t.channels[i]);
}

void ust_trace_flush_all(void)
{
	unsigned i;

	for (i = 0; i < ust_t.nr_channels; i++)
		ust_channel_flush(ust_t.channels[i]);
}
