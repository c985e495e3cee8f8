/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Flight-recorder snapshots: ustd copies the rings while tracing goes on;
 * the application waits (bounded) for its answer. Async-signal-safe (see
 * trace_life.c).
 */
#include <errno.h>
#include <string.h>

#include "libust/sigsafe_alloc.h"
#include "libust/trace_internal.h"
#include "libustcomm/format.h"
#include "libustcomm/protocol.h"

int ust_trace_snapshot(const char *name, const char *dir, char *path, size_t path_size)
{
	struct ustcomm_snapshot *req = NULL;
	struct {
		struct ustcomm_msg_header hdr;
		struct ustcomm_snapshot_done done;
	} *reply = NULL;
	const struct ustcomm_snapshot_done *done;
	struct ustcomm_msg msg = { .type = USTCOMM_MSG_SNAPSHOT_DONE };
	int ret = ust_trace_check_allocated(&name);

	if (ret < 0)
		return ret;
	if (!ust_t.cfg.overwrite)
		return ust_trace_fail(-EINVAL, "trace '%s' is written to disk as it goes; snapshots are for flight-recorder traces (UST_OVERWRITE=1, usttrace --overwrite)",
			    ust_t.name);
	if (strlen(dir) >= sizeof(req->dir) || (dir[0] && dir[0] != '/'))
		return ust_trace_fail(-EINVAL, "invalid snapshot directory '%s': give an absolute path", dir);
	if (ust_t.sock < 0)
		return ust_trace_fail(-ENOTCONN, "trace '%s' lost its connection to ustd", ust_t.name);
	req = ust_zalloc(sizeof(*req));
	reply = ust_zalloc(sizeof(*reply));
	if (!req || !reply) {
		ret = ust_trace_fail(-ENOMEM, "out of memory");
		goto end;
	}
	memcpy(req->dir, dir, strlen(dir));
	/* Open packets closed: ustd copies complete sub-buffers only. */
	ust_trace_flush_all();
	ret = ust_trace_send_msg(USTCOMM_MSG_SNAPSHOT, req, sizeof(*req), NULL, 0);
	if (ret < 0)
		goto end;
	ret = ust_trace_recv_exact(ust_t.sock, (char *)reply, sizeof(*reply), USTCOMM_CTL_SNAPSHOT_WAIT_MS);
	if (ret < 0) {
		ust_trace_connection_lost(ret);
		ret = ust_trace_fail(ret, "ustd did not answer the snapshot request: %s",
			   ustcomm_strerror(-ret));
		goto end;
	}
	msg.payload_len = reply->hdr.payload_len;
	msg.payload = (char *)&reply->done;
	if (reply->hdr.magic != USTCOMM_MAGIC || reply->hdr.version != USTCOMM_VERSION ||
	    reply->hdr.type != USTCOMM_MSG_SNAPSHOT_DONE || reply->hdr.nr_fds ||
	    ustcomm_check_snapshot_done(&msg, &done) < 0) {
		ust_trace_connection_lost(-EPROTO);
		ret = ust_trace_fail(-EPROTO, "ustd answered the snapshot request with a malformed message");
		goto end;
	}
	if (done->status < 0) {
		ret = ust_trace_fail(done->status, "ustd could not write the snapshot: %s", done->text);
		goto end;
	}
	ustcomm_format(path, path_size, "%s", done->text);
	ret = 0;
end:
	ust_free(req);
	ust_free(reply);
	return ret;
}
