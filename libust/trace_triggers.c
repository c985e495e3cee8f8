/* SPDX-License-Identifier: LGPL-2.1-only */
/* Triggers added to and removed from the trace (trace.h, trigger.h).
 * Async-signal-safe (see trace_life.c). */
#include "libust/trace_internal.h"
#include "libust/trigger.h"

/* Triggers belong to the process (every trace's filter sets hold them); a
 * name names one of its traces. */
int ust_trace_add_trigger(const char *name, const struct ust_trigger_spec *spec, uint32_t *id)
{
	int ret = ust_trace_select_query(name);

	if (ret < 0)
		return ret;
	ret = ust_triggers_add(spec, id, ust_t.error, sizeof(ust_t.error));
	if (ret < 0)
		return ret;
	ust_trace_apply_rules();
	return 0;
}

int ust_trace_remove_trigger(const char *name, uint32_t id)
{
	int ret = ust_trace_select_query(name);

	if (ret < 0)
		return ret;
	ret = ust_triggers_remove(id, ust_t.error, sizeof(ust_t.error));
	if (ret < 0)
		return ret;
	ust_trace_apply_rules();
	return 0;
}
