/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The trace's state (trace_internal.h): its name, where it is in its life
 * cycle, and the reason of the last failure. Async-signal-safe, as all of
 * trace.h (see trace_life.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "libust/rules.h"
#include "libust/trace_internal.h"
#include "libustcomm/format.h"

struct ust_trace_data ust_traces[UST_TRACES_MAX] = {
	{ .slot = 0, .sock = -1 }, { .slot = 1, .sock = -1 },
	{ .slot = 2, .sock = -1 }, { .slot = 3, .sock = -1 },
};
struct ust_trace_data *ust_tcur = &ust_traces[0];
/* UST_OVERWRITE's: the mode of a slot given to a new trace. */
static int default_overwrite;

void ust_trace_select(uint32_t slot)
{
	ust_tcur = &ust_traces[slot];
	ust_rules_select(slot);
	ust_chan_conf_select(slot);
}

int ust_trace_slot_in_use(const struct ust_trace_data *t)
{
	return t->state != UST_TRACE_NONE || t->fork_pending;
}

/* A slot not in use for a trace named name: one nobody named first, so
 * that settings given for another name before its trace stay. */
static int claim_slot(const char *name)
{
	uint32_t i, pick = UST_TRACES_MAX;

	for (i = 1; i < UST_TRACES_MAX; i++) {
		if (ust_trace_slot_in_use(&ust_traces[i]))
			continue;
		if (pick == UST_TRACES_MAX || (ust_traces[pick].name[0] && !ust_traces[i].name[0]))
			pick = i;
	}
	if (pick == UST_TRACES_MAX)
		return ust_trace_fail(-ENOSPC, "no room for trace '%s': this process has %d traces already, destroy one first",
			    name, UST_TRACES_MAX);
	ust_trace_select(pick);
	ust_rules_clear();
	ust_chan_conf_clear();
	ust_t.cfg.overwrite = default_overwrite;
	ust_t.output[0] = '\0';
	memcpy(ust_t.name, name, strlen(name) + 1);
	return 0;
}

int ust_trace_select_name(const char *name, int claim)
{
	uint32_t i, in_use = 0, last = 0;

	if (!name || !*name) {
		for (i = 0; i < UST_TRACES_MAX; i++) {
			if (ust_trace_slot_in_use(&ust_traces[i])) {
				in_use++;
				last = i;
			}
		}
		ust_trace_select(in_use == 1 ? last : 0);
		return 0;
	}
	for (i = 0; i < UST_TRACES_MAX; i++) {
		if (ust_traces[i].name[0] && !strcmp(ust_traces[i].name, name)) {
			ust_trace_select(i);
			return 0;
		}
	}
	ust_trace_select(0);
	if (!claim || !ust_trace_slot_in_use(&ust_traces[0]))
		return 0;
	if (!ust_trace_valid_name(name))
		return ust_trace_fail(-EINVAL, "invalid trace name '%s': use 1 to %u letters, digits, '_', '-' or '.'",
			    name, USTCOMM_CTL_TRACE_NAME_MAX - 1);
	return claim_slot(name);
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
		if (!cfg->def_num)
			cfg->def_num = UST_SUBBUF_NUM_DEFAULT;
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

int ust_trace_check(const char **name)
{
	if (!*name || !**name)
		*name = "auto";
	ust_trace_select_name(*name, 0);
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
