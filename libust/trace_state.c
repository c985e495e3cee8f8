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

struct ust_trace_data ust_traces[UST_TRACES_MAX] = {
	{ .slot = 0, .sock = -1 }, { .slot = 1, .sock = -1 },
	{ .slot = 2, .sock = -1 }, { .slot = 3, .sock = -1 },
};
struct ust_trace_data *ust_tcur = &ust_traces[0];
/* UST_OVERWRITE's: the mode of a slot given to a new trace. */
static int default_overwrite;

int ust_trace_default_overwrite(void)
{
	return default_overwrite;
}

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

int ust_trace_slot_in_use(const struct ust_trace_data *t)
{
	return t->state != UST_TRACE_NONE || t->fork_pending;
}

/* What INFO reports of the traces: the first one in use. */
static const struct ust_trace_data *first_in_use(void)
{
	uint32_t i;

	for (i = 0; i < UST_TRACES_MAX; i++) {
		if (ust_trace_slot_in_use(&ust_traces[i]))
			return &ust_traces[i];
	}
	return &ust_traces[0];
}

const char *ust_trace_name(void)
{
	return first_in_use()->name;
}

const char *ust_trace_procname(void)
{
	return ust_t.cfg.procname;
}

const char *ust_trace_state_name(void)
{
	return ust_trace_state_names[first_in_use()->state];
}

enum ust_trace_state ust_trace_state(void)
{
	return first_in_use()->state;
}

void ust_trace_init(const struct ust_trace_config *config)
{
	uint32_t i;

	default_overwrite = config->overwrite;
	for (i = 0; i < UST_TRACES_MAX; i++) {
		struct ust_trace_config *cfg = &ust_traces[i].cfg;

		*cfg = *config;
		if (!cfg->def_size)
			cfg->def_size = UST_SUBBUF_SIZE_DEFAULT;
		if (!cfg->nr_cpus)
			cfg->nr_cpus = 1;
	}
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

struct ust_rb *ust_trace_unpopulated(void)
{
	struct ust_rb *rb;
	unsigned i, slot;

	for (slot = 0; slot < UST_TRACES_MAX; slot++) {
		for (i = 0; i < ust_traces[slot].nr_channels; i++) {
			rb = ust_channel_unpopulated(ust_traces[slot].channels[i]);
			if (rb)
				return rb;
		}
	}
	return NULL;
}

void ust_trace_populate(void)
{
	unsigned i, slot;

	for (slot = 0; slot < UST_TRACES_MAX; slot++) {
		for (i = 0; i < ust_traces[slot].nr_channels; i++)
			ust_channel_populate(ust_traces[slot].channels[i]);
	}
}

void ust_trace_flush_all(void)
{
	unsigned i;

	for (i = 0; i < ust_t.nr_channels; i++)
		ust_channel_flush(ust_t.channels[i]);
}
