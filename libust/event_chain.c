/* SPDX-License-Identifier: LGPL-2.1-only */
/* The write path of an event of two forms (event_chain.h). */
#include <errno.h>

#include "libust/channel.h"
#include "libust/context.h"
#include "libust/event_chain.h"
#include "libust/getcpu.h"
#include "libust/registry.h"
#include "libust/ring_buffer.h"

UST_API int ust_event_reserve_chained(struct ust_event_ctx *ctx, struct ust_rb_chain *chain,
				      const struct ust_chain_form *brief,
				      const struct ust_chain_form *full)
{
	const struct ust_event_state *sb, *sf;
	const struct ust_event_binding *bb, *bf;
	struct ust_channel *chan;
	int cpu, ret;

	/* Acquire: pairs with the release store of priv in registry.c. */
	sf = __atomic_load_n(&full->desc->priv, __ATOMIC_ACQUIRE);
	sb = __atomic_load_n(&brief->desc->priv, __ATOMIC_ACQUIRE);
	/* Acquire: pairs with the release store of the binding in trace_events.c. */
	bf = sf ? __atomic_load_n(&sf->binding, __ATOMIC_ACQUIRE) : NULL;
	bb = sb ? __atomic_load_n(&sb->binding, __ATOMIC_ACQUIRE) : NULL;
	if (ust_unlikely(!bf))
		return -ENOENT;
	chan = bf->chan;
	/* The short form alone, or in another channel, would lose the thread;
	 * a fork() child's first event makes its buffers on the general path. */
	if (ust_unlikely(!bb || bb->chan != chan || !chan->nr_cpus)) {
		ret = ust_event_reserve_ip(ctx, full->desc, full->len, __builtin_return_address(0));
		return ret < 0 ? ret : 0;
	}
	cpu = ust_getcpu_rseq();
	if (ust_unlikely(cpu < 0 || (unsigned)cpu >= chan->nr_cpus)) {
		cpu = ust_getcpu();
		if ((unsigned)cpu >= chan->nr_cpus)
			cpu = 0;
	}
	ret = ust_rb_reserve_chained(&chan->bufs[cpu], chain,
				     bb->id, brief->len + chan->ctx_size, brief->key,
				     bf->id, full->len + chan->ctx_size, full->key, ctx);
	if (ret >= 0 && chan->ctx.nr) {
		ust_ctx_record(&chan->ctx, ctx->payload, __builtin_return_address(0));
		ctx->payload += chan->ctx_size;
	}
	return ret;
}
