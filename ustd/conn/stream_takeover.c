/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <string.h>
#include "libustcomm/log.h"
#include "ustd/conn/rescue.h"
#include "ustd/conn/stream_takeover.h"
#include "ustd/output/file_takeover.h"

struct takeover_check {
	const struct ustd_stream *s;
	const struct ustd_layouts *layouts;
};

static bool takeover_whole(const char *pkt, size_t len, void *arg)
{
	const struct takeover_check *c = arg;

	return ustd_rescue_packet_whole(pkt, len, c->s->stream_id, c->s->ctx_size, c->layouts);
}

void ustd_stream_take_over(const struct ustd_stream *s, const struct ustd_layouts *layouts,
			   const char *label)
{
	struct takeover_check check = { s, layouts };
	struct ustd_write_mark mk;
	struct ustd_takeover r;
	uint64_t first_seq;
	int ret;

	if (!s->marks || !s->uuid || s->overwrite ||
	    ustd_write_mark_get(s->marks, s->uuid, s->name, &mk) < 0)
		return;
	/* The packet numbers are the sub-buffers' positions in the ring
	 * (ust_shm_packet_open()): the one at consumed is the first the
	 * dead ustd had not given back. */
	first_seq = s->cb.consumed / s->cb.subbuf_size;
	ret = ustd_file_takeover(mk.path, s->uuid, first_seq, takeover_whole, &check, &r);
	if (ret == -ENOENT)
		ustcomm_dbg("%s: stream %s: the file the killed ustd wrote, %s, is gone", label,
			    s->name, mk.path);
	else if (ret < 0)
		ustcomm_err("%s: stream %s: cannot repair %s, the file the killed ustd wrote: %s; its last packets may also be in the new trace",
			    label, s->name, mk.path, strerror(-ret));
	else if (r.damaged)
		ustcomm_err("%s: stream %s: %s, the file the killed ustd wrote, ends at a packet its writes from the buffer left with bytes of a later one (the disk lagged): cut there; the events of that packet and of the %llu after it, whose copies died with that ustd, are lost",
			    label, s->name, mk.path, (unsigned long long)(r.cut ? r.cut - 1 : 0));
	if (ret == 0)
		ustcomm_dbg("%s: stream %s taken over: %s keeps %llu packets (%llu index entries added), %llu cut off (%llu bytes) to be written from the ring",
			    label, s->name, mk.path, (unsigned long long)r.kept,
			    (unsigned long long)r.indexed, (unsigned long long)r.cut,
			    (unsigned long long)r.cut_bytes);
	ustd_write_mark_clear(s->marks, s->uuid, s->name);
}
