/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The trace's buffers are checked against the memory available before any
 * is allocated (libustcomm/mem_avail.h): buffers the machine or the
 * program's memory cgroup cannot hold would have the OOM killer end the
 * program, or another process, in the middle of its work. A refusal leaves
 * the reason in ust_trace_error(), so that it reaches ustctl like any
 * other. Async-signal-safe (see trace_life.c).
 */
#include <errno.h>
#include <string.h>

#include "libust/trace_internal.h"
#include "libustcomm/format.h"
#include "libustcomm/mem_avail.h"

static int channel_exists(const char *name)
{
	unsigned i;

	for (i = 0; i < ust_t.nr_channels; i++)
		if (!strcmp(ust_t.channels[i]->name, name))
			return 1;
	return 0;
}

static void request_add(struct ustcomm_mem_request *req, const char *name)
{
	uint32_t size, num;

	ust_trace_channel_geometry(name, &size, &num);
	ustcomm_mem_request_add(req, size, num, ust_t.cfg.nr_cpus,
				ust_t.cfg.overwrite ? 0 : ust_trace_thread_buffers(name));
}

static int check(const struct ustcomm_mem_request *req, const char *what)
{
	struct ustcomm_mem_avail ma;
	char why[sizeof(ust_t.error)];

	if (!req->nr_channels)
		return 0;
	ustcomm_mem_avail(&ma);
	if (ustcomm_mem_check(req, &ma, why, sizeof(why)) == 0)
		return 0;
	return ust_trace_fail(-ENOMEM, "%s%s: choose smaller sub-buffers (set-subbuf-size, set-subbuf-num, UST_SUBBUF_SIZE, UST_SUBBUF_NUM)",
			      what, why);
}

int ust_trace_check_memory_channel(const char *name)
{
	struct ustcomm_mem_request req = { 0 };
	char what[UST_SHM_CHANNEL_NAME_MAX + 16];

	/* Buffers per user are ustd's, made once for every process of the
	 * uid: ustd checks them (ustd/conn/uid_set.c). */
	if (ust_t.cfg.per_uid)
		return 0;
	request_add(&req, name);
	ustcomm_format(what, sizeof(what), "channel %s: ", name);
	return check(&req, what);
}

int ust_trace_check_memory_enabled(void)
{
	const char *seen[UST_TRACE_MAX_CHANNELS];
	struct ustcomm_mem_request req = { 0 };
	struct ust_event_state *ev;
	unsigned nr = 0, i;

	if (ust_t.cfg.per_uid)
		return 0;
	/* The channels allocation will create: one per name, all at once. */
	for (ev = ust_registry_first(); ev && nr < UST_ARRAY_SIZE(seen); ev = ev->next) {
		if (!ev->enabled[ust_t.slot] || channel_exists(ev->channel))
			continue;
		for (i = 0; i < nr && strcmp(seen[i], ev->channel); i++)
			;
		if (i < nr)
			continue;
		seen[nr++] = ev->channel;
		request_add(&req, ev->channel);
	}
	return check(&req, "");
}
