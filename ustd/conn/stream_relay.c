/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A relayed stream's packets on their way to lttng-relayd (stream.h):
 * kept as copies until relayd confirms them, sent by the relay's thread,
 * and handed to the local fallback when relayd is lost. The drain reaches
 * this through its sink's send (relay/sink.h), which app_relay.c sets: a
 * trace written to local files never comes here.
 */
#include "libustcomm/consumer.h"
#include "ustd/conn/stream.h"
#include "ustd/conn/stream_relay.h"

int ustd_stream_relay_packet(struct ustd_sink *sink, struct ustd_stream_out *out, uint64_t ring,
			     const char *packet, size_t len, struct ustcomm_cbuf *release,
			     bool *released)
{
	const char *copy;
	bool kept;
	int ret;

	kept = ustd_relay_pending_keep(&sink->pending, out, &out->confirmed, ring, out->sent,
				       packet, len, &copy) == 0;
	if (kept && release) {
		ustcomm_cbuf_put(release);
		*released = true;
	}
	/* The copy is what is sent: the packet itself may be gone or reused
	 * by the time the sending thread reaches it. Without one, spill()
	 * waits until the packet is sent. */
	if (kept)
		packet = copy;
	ret = ustd_relay_send_packet(sink->relay, out->handle, out->sent, packet, len,
				     &out->tx_sent);
	if (ret == 0) {
		out->sent++;
		if (!kept || ustd_relay_pending_over(&sink->pending))
			ret = sink->spill(sink, kept ? NULL : out, packet, len);
		return ret < 0 ? ret : 1;
	}
	sink->lost(sink);
	if (out->sink || out->fd < 0)
		return ret;
	/* The fallback's files are open: a kept copy is in its hands, the
	 * packet itself goes to the stream's new file. */
	return kept ? 1 : 0;
}
