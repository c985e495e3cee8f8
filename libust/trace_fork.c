/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The trace of a child of fork(): the parent's trace goes on in the child
 * under the same name, with buffers and a connection to ustd of its own,
 * made at the child's first event rather than in fork() itself.
 *
 * Why not at once: most children exec() another program a moment later
 * (a shell, a service starting a worker binary, system(), posix_spawn's
 * fork fallback). Buffers for every CPU, the metadata sent to ustd and a
 * trace directory on its side cost each of them milliseconds and left
 * ustd an empty trace per child. Until its first event, the child's
 * enabled events point to a channel without buffers (nr_cpus 0), which
 * the write path sends here (its make_buffers, channel.h); so does any
 * control request that needs the trace. A child that execs or exits first costs nothing.
 *
 * Async-signal-safe like the rest of the trace (trace_life.c): the first event
 * may come from a signal handler. One that interrupted the holder of
 * ust_lock cannot take it: that event is discarded, as it would be with a
 * full buffer.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "libust/channel.h"
#include "libust/lock.h"
#include "libust/session_join.h"
#include "libust/thread_buffer.h"
#include "libust/trace.h"
#include "libust/trace_internal.h"
#include "libustcomm/log.h"

static int resume(void);
/* What the layer above does once the child's trace started (startup.c). */
static void (*on_resume)(void);

/* No buffers: reserve() takes it to the general case, which comes here. */
static struct ust_channel pending_chan = { .make_buffers = resume };
static const struct ust_event_binding pending_binding = {
	.chan = &pending_chan, .slot = UST_TRACES_MAX,
};

/* Drops the parent's trace: its connection and buffers are the parent's. */
static void forget(void)
{
	unsigned i;

	if (ust_t.sock >= 0)
		close(ust_t.sock);
	ust_t.sock = -1;
	ust_trace_unbind_all();
	/* The only thread of the child: nobody can be writing to them. */
	for (i = 0; i < ust_t.nr_channels; i++)
		ust_channel_destroy(ust_t.channels[i]);
	ust_thread_buffer_forget();
	ust_t.nr_channels = 0;
	ust_t.state = UST_TRACE_NONE;
}

/* Each trace of the parent's that was started waits in its slot. */
int ust_trace_after_fork_child(void)
{
	uint32_t i;
	int any = 0;

	for (i = 0; i < UST_TRACES_MAX; i++) {
		int traced;

		ust_trace_select(i);
		traced = ust_t.state == UST_TRACE_STARTED || ust_t.fork_pending;
		forget();
		ust_t.fork_pending = traced;
		if (!traced)
			ust_t.name[0] = '\0';
		any |= traced;
	}
	ust_trace_select(0);
	if (any)
		ust_trace_bind_all_to(&pending_binding);
	return any;
}

/* The waiting trace of the selected slot, made now. */
static int resume_slot(void)
{
	char name[USTCOMM_CTL_TRACE_NAME_MAX];
	int ret;

	ust_t.fork_pending = 0;
	memcpy(name, ust_t.name, sizeof(name));
	ust_trace_unbind_all();
	/* The trackers of a session test the child with its own pid, as
	 * LTTng does: a tracked pid's child is another pid. Tested on the
	 * file as the parent read it; ustd tests a child the file did not
	 * tell about when it says hello. */
	if (!ust_session_join_tracks(name)) {
		ustcomm_dbg("the child runs untraced: session %s does not track it", name);
		ust_t.name[0] = '\0';
		return 0;
	}
	ret = ust_trace_create(name, NULL);
	if (ret >= 0)
		ret = ust_trace_start(name);
	/* A memory refusal is said even unasked: the user asked for a trace. */
	if (ret == -ENOMEM)
		ustcomm_err("the child runs untraced in trace '%s': %s", name, ust_trace_error());
	else if (ret < 0)
		ustcomm_dbg("the child runs untraced in trace '%s': %s", name, ust_trace_error());
	return ret;
}

int ust_trace_fork_resume_locked(void)
{
	uint32_t was = ust_t.slot, i;
	int ret = 0, r, any = 0;

	for (i = 0; i < UST_TRACES_MAX; i++) {
		ust_trace_select(i);
		if (!ust_t.fork_pending)
			continue;
		any = 1;
		r = resume_slot();
		if (r < 0 && !ret)
			ret = r;
	}
	ust_trace_select(was);
	if (any && on_resume)
		on_resume();
	return ret;
}

void ust_trace_fork_on_resume(void (*fn)(void))
{
	on_resume = fn;
}

static int resume(void)
{
	int ret = ust_lock_unless_held();

	if (ret < 0)
		return ret;
	ret = ust_trace_fork_resume_locked();
	ust_unlock();
	return ret;
}
