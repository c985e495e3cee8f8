/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The trace of this process (trace.h): its life cycle. The other parts
 * are in trace_*.c; trace_internal.h says how they depend on each other.
 *
 * Async-signal-safe throughout, because the control server may call in
 * from a signal handler: memory from ust_zalloc(), text from
 * ustcomm_format(), and otherwise only system calls (socket, sendmsg, poll,
 * memfd_create, mmap, fallocate, eventfd). Serialised by ust_lock(), whose
 * holder keeps the control signal blocked, so the handler never waits for
 * the thread it interrupted.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "libust/statedump.h"
#include "libust/trace_internal.h"
#include "libust/trigger_notify.h"
#include "libustcomm/format.h"
#include "libustcomm/log.h"
#include "libustcomm/protocol.h"
#include "libustcomm/rundir.h"

int ust_trace_create(const char *name, const char *output)
{
	int ret;

	if (!name || !*name)
		name = "auto";
	if (!ust_trace_valid_name(name))
		return ust_trace_fail(-EINVAL, "invalid trace name '%s': use 1 to %u letters, digits, '_', '-' or '.'",
			    name, USTCOMM_CTL_TRACE_NAME_MAX - 1);
	/* A slot of its own unless one of that name is in use. */
	ret = ust_trace_select_name(name, 1);
	if (ret < 0)
		return ret;
	if (ust_t.state != UST_TRACE_NONE)
		return ust_trace_fail(-EEXIST, "this process has a trace '%s' already (%s); destroy it first",
			    ust_t.name, ust_trace_state_names[ust_t.state]);
	if (output && *output) {
		ret = ust_trace_set_output(name, output);
		if (ret < 0)
			return ret;
	}
	memcpy(ust_t.name, name, strlen(name) + 1);
	ust_t.state = UST_TRACE_CREATED;
	return 0;
}

static int trace_alloc(void)
{
	int ret;

	/* Every channel known now, before ustd hears of the trace: a refused
	 * trace stays created, with nothing allocated. Channels that come
	 * later are checked as they come (trace_events.c). */
	ret = ust_trace_check_memory_enabled();
	if (ret < 0)
		return ret;
	ret = ust_trace_ustd_connect();
	if (ret < 0)
		return ret;
	ust_t.sock = ret;
	ret = ustcomm_uuid_generate(ust_t.uuid);
	if (ret < 0) {
		ret = ust_trace_fail(ret, "cannot generate the trace's uuid");
		goto error;
	}
	ret = ust_trace_send_hello();
	if (ret >= 0)
		ret = ust_trigger_channel_open();
	if (ret < 0)
		goto error;
	ust_t.state = UST_TRACE_ALLOCATED;
	ustcomm_dbg("trace '%s' reports to ustd at %s", ust_t.name, ust_t.cfg.daemon_path);
	return ust_trace_apply_all();
error:
	if (ust_t.sock >= 0)
		close(ust_t.sock);
	ust_t.sock = -1;
	return ret;
}

int ust_trace_alloc(const char *name)
{
	int ret = ust_trace_check(&name);

	if (ret < 0)
		return ret;
	if (ust_t.state != UST_TRACE_CREATED)
		return ust_trace_fail(-EALREADY, "trace '%s' is %s already", ust_t.name, ust_trace_state_names[ust_t.state]);
	return trace_alloc();
}

int ust_trace_start(const char *name)
{
	int ret = ust_trace_check(&name);

	if (ret < 0)
		return ret;
	if (ust_t.state == UST_TRACE_STARTED)
		return ust_trace_fail(-EALREADY, "trace '%s' is started already", ust_t.name);
	if (ust_t.state == UST_TRACE_CREATED) {
		ret = trace_alloc();
		if (ret < 0 && ust_t.state == UST_TRACE_CREATED)
			return ret;
	}
	ust_t.state = UST_TRACE_STARTED;
	ret = ust_trace_apply_all();
	/* From the table only: this may be a signal handler (statedump.h). */
	ust_statedump_emit_all();
	return ret;
}

static void stop_writing(void)
{
	if (ust_t.state == UST_TRACE_STARTED)
		ust_t.state = UST_TRACE_STOPPED;
	ust_trace_apply_all();
	ust_trace_flush_all();
}

int ust_trace_stop(const char *name)
{
	int ret = ust_trace_check(&name);

	if (ret < 0)
		return ret;
	if (ust_t.state != UST_TRACE_STARTED)
		return ust_trace_fail(-EINVAL, "trace '%s' is %s, not started", ust_t.name, ust_trace_state_names[ust_t.state]);
	stop_writing();
	return 0;
}

int ust_trace_force_switch(const char *name)
{
	int ret = ust_trace_check_allocated(&name);

	if (ret < 0)
		return ret;
	ust_trace_flush_all();
	return 0;
}

/*
 * Ends the trace: sites stop, buffers are flushed, ustd writes the rest.
 * Channels are retired, not unmapped: a writer preempted between loading
 * its binding and committing may still touch them (see channel.h).
 */
static int trace_teardown(void)
{
	int drained = -ENOTCONN;
	unsigned i;

	if (ust_t.state == UST_TRACE_NONE)
		return 0;
	stop_writing();
	if (ust_trace_connection_alive() &&
	    ustcomm_send_msg(ust_t.sock, USTCOMM_MSG_GOODBYE, NULL, 0, NULL, 0) == 0)
		drained = ust_trace_wait_drained(ust_t.sock);
	else if (!ust_t.cfg.per_uid && !ust_trace_stopped_by_ustd())
		/* Before the events are unbound: they say how to count. A
		 * trace per user has nothing of its own to keep: its rings
		 * were its ustd's (trace_ustd.c); nor has one its ustd
		 * stopped, which counts them. */
		ust_trace_orphan_save();
	if (ust_t.sock >= 0) {
		close(ust_t.sock);
		ust_t.sock = -1;
	}
	ust_trace_unbind_all();
	for (i = 0; i < ust_t.nr_channels; i++)
		ust_channel_retire(ust_t.channels[i], drained == 0);
	ust_t.nr_channels = 0;
	ust_t.state = UST_TRACE_NONE;
	ust_t.name[0] = '\0';
	ust_t.output[0] = '\0';
	return drained;
}

int ust_trace_destroy(const char *name)
{
	char was[USTCOMM_CTL_TRACE_NAME_MAX];
	int connected, ret = ust_trace_check(&name);

	if (ret < 0)
		return ret;
	memcpy(was, ust_t.name, sizeof(was));
	connected = ust_t.sock >= 0;
	ret = trace_teardown();
	if (connected && ret < 0)
		return ust_trace_fail(ret, "trace '%s' destroyed, but ustd did not confirm it wrote everything: %s",
			    was, ustcomm_strerror(-ret));
	return 0;
}

void ust_trace_exit(void)
{
	uint32_t i;

	for (i = 0; i < UST_TRACES_MAX; i++) {
		ust_trace_select(i);
		trace_teardown();
	}
	ust_trace_select(0);
}

int ust_trace_end_lost_uid(void)
{
	if (!ust_t.cfg.per_uid || ust_t.state < UST_TRACE_ALLOCATED ||
	    ust_trace_connection_alive())
		return 0;
	ustcomm_dbg("trace '%s': its ustd is gone with the buffers per user it wrote into; ended",
		    ust_t.name);
	memcpy(ust_t.lost_uid, ust_t.name, sizeof(ust_t.lost_uid));
	trace_teardown();
	return 1;
}

/*
 * Describes the trace to the ustd at path exactly as it was described
 * before (same uuid, stream and event ids) and hands it every existing
 * buffer. ustd continues each from its consumed position, so what was
 * written while no ustd ran is kept, except what the full buffers had to
 * discard (counted in events_discarded, reported in the packets).
 */
static int reconnect(const char *path)
{
	char old_path[sizeof(ust_t.cfg.daemon_path)];
	int fd, ret;

	if (strlen(path) >= sizeof(ust_t.cfg.daemon_path) || !path[0])
		return ust_trace_fail(-EINVAL, "invalid ustd socket path: it must have 1 to %zu characters",
			    sizeof(ust_t.cfg.daemon_path) - 1);
	if (ust_t.state < UST_TRACE_ALLOCATED || ust_trace_end_lost_uid())
		return 0;
	if (ust_trace_connection_alive()) {
		if (!strcmp(path, ust_t.cfg.daemon_path))
			return ust_trace_fail(-EALREADY, "trace '%s' is connected to ustd at %s already",
				    ust_t.name, path);
		/* Another ustd, alive, owns the trace: never taken from it. */
		return ust_trace_fail(-EBUSY, "trace '%s' is recorded by the ustd at %s, which is alive",
			    ust_t.name, ust_t.cfg.daemon_path);
	}
	memcpy(old_path, ust_t.cfg.daemon_path, sizeof(old_path));
	memcpy(ust_t.cfg.daemon_path, path, strlen(path) + 1);
	fd = ust_trace_ustd_connect();
	if (fd < 0) {
		memcpy(ust_t.cfg.daemon_path, old_path, sizeof(old_path));
		return fd;
	}
	if (ust_t.sock >= 0)
		close(ust_t.sock);
	ust_t.sock = fd;
	ret = ust_trace_describe();
	if (ret >= 0)
		ret = ust_trigger_channel_open();
	if (ret < 0)
		return ret;
	ustcomm_dbg("trace '%s' reports to ustd at %s again", ust_t.name, path);
	/* Events enabled while no ustd was there are bound now. */
	return ust_trace_apply_all();
}

/* Every trace, each with a connection of its own: the first refusal is
 * the answer, the others are tried all the same. */
int ust_trace_reconnect(const char *path)
{
	uint32_t i, answer = 0;
	int ret = 0, r;

	for (i = 0; i < UST_TRACES_MAX; i++) {
		ust_trace_select(i);
		r = reconnect(path);
		if (r < 0 && !ret) {
			ret = r;
			answer = i;
		}
	}
	/* Where ust_trace_error() finds the reason. */
	ust_trace_select(answer);
	return ret;
}
