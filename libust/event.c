/* SPDX-License-Identifier: LGPL-2.1-only */
/* The write path every enabled site takes: site -> event -> CPU buffer. */
#include <errno.h>

#include "libust/channel.h"
#include "libust/getcpu.h"
#include "libust/registry.h"
#include "libust/ring_buffer.h"
#include "libustcomm/common.h"

UST_API int ust_event_reserve(struct ust_event_ctx *ctx, const struct ust_event_desc *desc,
			      size_t payload_len)
{
	struct ust_event_state *ev;
	struct ust_event_binding *b;
	struct ust_channel *chan;
	unsigned cpu;

	/* Acquire: pairs with the release stores in registry.c and trace.c. */
	ev = __atomic_load_n(&desc->priv, __ATOMIC_ACQUIRE);
	if (ust_unlikely(!ev))
		return -ENOENT;
	b = __atomic_load_n(&ev->binding, __ATOMIC_ACQUIRE);
	if (ust_unlikely(!b))
		return -ENOENT;
	chan = b->chan;
	cpu = (unsigned)ust_getcpu();
	if (ust_unlikely(cpu >= chan->nr_cpus))
		cpu = 0;
	return ust_rb_reserve(&chan->bufs[cpu], b->id, payload_len, ctx);
}

UST_API void ust_event_commit(struct ust_event_ctx *ctx)
{
	ust_rb_commit(ctx->buf, ctx);
}
