/* SPDX-License-Identifier: GPL-2.0-only */
#include "libustcomm/clock.h"
#include "libustcomm/consumer.h"
#include "ustd/conn/app_clear.h"

unsigned ustd_app_clear_buffers(struct ustd_app *app)
{
	struct ustd_app_stream *as;
	uint32_t size;
	unsigned n = 0;

	for (as = app->streams; as; as = as->next) {
		if (!as->stream.open || !as->stream.overwrite)
			continue;
		/* As a snapshot closes it: the events after the clear begin
		 * a packet of their own, the ones before stay out. */
		ustcomm_cbuf_flush(&as->stream.cb, app->clock == USTCOMM_CLOCK_TSC, NULL);
		size = as->stream.cb.subbuf_size;
		as->stream.cleared = (ustd_stream_write_position(&as->stream) + size - 1) &
				     ~(uint64_t)(size - 1);
		n++;
	}
	return n;
}
