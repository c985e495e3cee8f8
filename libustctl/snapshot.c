/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Snapshots of flight-recorder traces: the program flushes its buffers and
 * waits for ustd to copy them (ctl_protocol.h, USTCOMM_CTL_SNAPSHOT).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/protocol.h"
#include "libustctl/internal.h"

int ustctl_snapshot(pid_t pid, const char *trace, const char *dir, char **path)
{
	struct ustctl_reply reply = { 0 };
	const char *args[2];
	char *abs_dir;
	int ret;

	*path = NULL;
	abs_dir = malloc(USTCOMM_PATH_MAX);
	if (!abs_dir) {
		ustctl_set_error("out of memory");
		return -ENOMEM;
	}
	ret = ustctl_trace_arg(pid, trace, &args[0]);
	if (!ret)
		ret = ustctl_absolute_dir(pid, "snapshot", dir, abs_dir, USTCOMM_PATH_MAX);
	if (ret)
		goto end;
	args[1] = abs_dir;
	/* The program may wait this long for ustd before it answers: wait for
	 * its answer (ustd's error, or its timeout) rather than time out first. */
	ret = ustctl_call_expect(pid, USTCOMM_CTL_SNAPSHOT, args, 2, USTCOMM_CTL_SNAPSHOT_WAIT_MS, 1,
				 &reply);
	if (ret)
		goto end;
	if (!reply.msg.payload[0]) {
		ret = -EPROTO;
		ustctl_set_error("process %d answered snapshot without naming the snapshot's directory",
				 (int)pid);
		goto end;
	}
	*path = strdup(reply.msg.payload);
	if (!*path) {
		ret = -ENOMEM;
		ustctl_set_error("out of memory");
	}
end:
	ustctl_reply_release(&reply);
	free(abs_dir);
	return ret;
}
