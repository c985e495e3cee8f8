/* SPDX-License-Identifier: LGPL-2.1-only */
/* The write path of an event of two forms (event_chain.h). */
#include <errno.h>

#include "libust/channel.h"
#include "libust/context.h"
#include "libust/event_chain.h"
#include "libust/getcpu.h"
#include "libust/registry.h"
#include "libust/ring_buffer.h"
#include "libust/thread_buffer.h"

/*
 * The channel both forms are bound to, with the long form's binding in
 * *bf and the short one's in *bb (NULL: the short form may not be used);
 * NULL when the long form is not enabled.
 */
static inline __attribute__((always_inline)) struct ust_channel *
chain_channel(const struct ust_chain_form *brief, const struct ust_chain_form *full,
	      const struct ust_event_binding **bb, const struct ust_event_binding **bf)
{
	const struct ust_event_state *sb, *sf;
	struct ust_channel *chan;

	/* Acquire: pairs with the release store of priv in registry.c. */
	sf = __atomic_load_n(&full->desc->priv, __ATOMIC_ACQUIRE);
	sb = __atomic_load_n(&brief->desc->priv, __ATOMIC_ACQUIRE);
	/* Acquire: pairs with the release store of the binding in trace_events.c. */
	*bf = sf ? __atomic_load_n(&sf->binding, __ATOMIC_ACQUIRE) : NULL;
	*bb = sb ? __atomic_load_n(&sb->binding, __ATOMIC_ACQUIRE) : NULL;
	if (ust_unlikely(!*bf))
		return NULL;
	chan = (*bf)->chan;
	/* The short form alone, or in another channel, would lose the thread;
	 * a fork() child's first event makes its buffers on the general path. */
	if (ust_unlikely(!*bb || (*bb)->chan != chan || !chan->nr_cpus))
		*bb = NULL;
	return chan;
}

/* The reservation in the per-CPU buffer, or on the general path. */
static inline __attribute__((always_inline)) int
reserve_chained(struct ust_event_ctx *ctx, struct ust_rb_chain *chain,
		const struct ust_chain_form *brief, const struct ust_chain_form *full,
		struct ust_channel *chan, const struct ust_event_binding *bb,
		const struct ust_event_binding *bf, const void *ip)
{
	int cpu, ret;

	if (ust_unlikely(!bb)) {
		ret = ust_event_reserve_ip(ctx, full->desc, full->len, ip);
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
		ust_ctx_record(&chan->ctx, ctx->payload, ip);
		ctx->payload += chan->ctx_size;
	}
	return ret;
}

UST_API int ust_event_reserve_chained(struct ust_event_ctx *ctx, struct ust_rb_chain *chain,
				      const struct ust_chain_form *brief,
				      const struct ust_chain_form *full)
{
	const struct ust_event_binding *bb, *bf;
	struct ust_channel *chan = chain_channel(brief, full, &bb, &bf);

	if (!chan)
		return -ENOENT;
	return reserve_chained(ctx, chain, brief, full, chan, bb, bf,
			       __builtin_return_address(0));
}

UST_API int ust_event_write_chained(struct ust_rb_chain *chain,
				    const struct ust_chain_form *brief, const void *brief_data,
				    const struct ust_chain_form *full, const void *full_data)
{
	const struct ust_event_binding *bb, *bf;
	struct ust_channel *chan = chain_channel(brief, full, &bb, &bf);
	struct ust_thread_slot *slot;
	struct ust_event_ctx ctx;
	int ret = -EAGAIN;

	if (!chan)
		return -ENOENT;
	/* Contexts are recorded by the per-CPU path only. */
	if (bb && chan->nr_bufs > chan->nr_cpus && !chan->ctx.nr &&
	    (slot = ust_thread_buffer(chan)))
		ret = ust_thread_reserve_chained(slot, 1, bb->id, brief->len, brief->key, bf->id,
						 full->len, full->key, &ctx);
	if (ret == -EAGAIN)
		ret = reserve_chained(&ctx, chain, brief, full, chan, bb, bf,
				      __builtin_return_address(0));
	if (ret < 0)
		return ret;
	/* The forms' lengths are the payloads' only: the contexts were
	 * recorded by the reservation, which moved ctx.payload past them. */
	ust_thread_copy(ctx.payload, ret ? brief_data : full_data, ret ? brief->len : full->len);
	if (((struct ust_rb *)ctx.buf)->thread)
		ust_thread_commit(&ctx);
	else
		ust_event_commit(&ctx);
	return ret;
}
