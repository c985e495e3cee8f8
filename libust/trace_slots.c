/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Which trace a command addresses (trace_internal.h): the slots of the
 * process's traces, found by name or given to a new name, and the checks
 * of the commands that need a trace. Above trace_state.c, rules.c and
 * channel_conf.c, whose tables it switches. Async-signal-safe (see
 * trace_life.c): string compares and the tables' own resets.
 */
#include <errno.h>
#include <string.h>

#include "libust/rules.h"
#include "libust/trace_internal.h"

void ust_trace_select(uint32_t slot)
{
	ust_tcur = &ust_traces[slot];
	ust_rules_select(slot);
	ust_chan_conf_select(slot);
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
	ust_t.cfg.overwrite = ust_trace_default_overwrite();
	ust_t.cfg.per_uid = 0;
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

int ust_trace_select_query(const char *name)
{
	ust_trace_select_name(name, 0);
	if (name && *name && ust_t.state != UST_TRACE_NONE && strcmp(name, ust_t.name))
		return ust_trace_fail(-ENOENT, "no trace '%s' in this process; its trace is '%s'",
				      name, ust_t.name);
	return 0;
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
