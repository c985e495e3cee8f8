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

/*
 * The ids of the pair this thread wrote last to its first thread buffer
 * when no binding changed since, in *ids; 0 when not known. A signal
 * handler that interrupts us may refill the entry (remember_pair()): its
 * brief is loaded again after the ids, and an entry that still names our
 * forms holds their ids, of this generation or the one before (as a
 * binding loaded just before it was replaced).
 */
static inline __attribute__((always_inline)) int
known_pair(const struct ust_thread_slot *slot, const struct ust_chain_form *brief,
	   const struct ust_chain_form *full, uint64_t *ids)
{
	/* Acquire: pairs with the release store of ust_binding_changed(). */
	uint64_t gen = __atomic_load_n(&ust_binding_gen, __ATOMIC_ACQUIRE);
	const struct ust_thread_pair *p = slot->pairs;

	if (ust_unlikely(slot->bound_gen != gen))
		return 0;
	if (p->brief != brief->desc && (++p)->brief != brief->desc)
		return 0;
	*ids = p->ids;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return p->full == full->desc && p->brief == brief->desc;
}

/*
 * Keeps the pair's ids, read from the bindings after gen was loaded, for
 * known_pair(). Kept already (a write that found its buffer held came
 * here), or both entries taken by other pairs (two pairs are
 * libust-func's entry and exit): nothing to do, unless the generation
 * moved on. Each entry is emptied, filled, then named, in that order for
 * a handler that interrupts known_pair() (signal fences: we race only
 * with our thread).
 */
static void remember_pair(struct ust_thread_slot *slot, uint64_t gen,
			  const struct ust_chain_form *brief, const struct ust_chain_form *full,
			  uint32_t short_id, uint32_t long_id)
{
	struct ust_thread_pair *p = slot->pairs;

	if (slot->bound_gen != gen) {
		slot->bound_gen = 0;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		p[0].brief = p[1].brief = NULL;
	} else if (p[0].brief == brief->desc || p[1].brief == brief->desc ||
		   (p->brief && (++p)->brief)) {
		return;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	p->full = full->desc;
	p->ids = short_id | (uint64_t)long_id << 32;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	p->brief = brief->desc;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	slot->bound_gen = gen;
}

/* Everything but the common case: the bindings read, any buffer. */
static __attribute__((noinline)) int
write_general(struct ust_rb_chain *chain, const struct ust_chain_form *brief,
	      const void *brief_data, const struct ust_chain_form *full, const void *full_data,
	      const void *ip)
{
	/* Before the bindings: see remember_pair(). */
	uint64_t gen = __atomic_load_n(&ust_binding_gen, __ATOMIC_ACQUIRE);
	const struct ust_event_binding *bb, *bf;
	struct ust_channel *chan = chain_channel(brief, full, &bb, &bf);
	struct ust_thread_slot *slot;
	struct ust_event_ctx ctx;
	int ret = -EAGAIN;

	if (!chan)
		return -ENOENT;
	/* Contexts are recorded by the per-CPU path only. */
	if (bb && chan->nr_bufs > chan->nr_cpus && !chan->ctx.nr &&
	    (slot = ust_thread_buffer(chan))) {
		ret = ust_thread_reserve_chained(slot, 1, bb->id, brief->len, brief->key, bf->id,
						 full->len, full->key, &ctx);
		if (ret >= 0 && slot == ust_thread_slots && !bb->next && !bf->next)
			remember_pair(slot, gen, brief, full, bb->id, bf->id);
	}
	if (ret == -EAGAIN)
		ret = reserve_chained(&ctx, chain, brief, full, chan, bb, bf, ip);
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

/* A known pair whose event opens or closes a packet, or follows a flush. */
static __attribute__((noinline)) int
write_thread_slow(struct ust_thread_slot *slot, uint32_t long_id,
		  const struct ust_chain_form *full, const void *full_data)
{
	struct ust_event_ctx ctx;
	int ret = ust_thread_reserve_slow(slot, 1, long_id, full->len, full->key, &ctx);

	if (ret < 0)
		return ret;
	ust_thread_copy(ctx.payload, full_data, full->len);
	ust_thread_commit(&ctx);
	return 0;
}

/*
 * The common case first, in as few instructions as we can (two calls
 * for each function traced): a pair this thread wrote before, to its
 * thread buffer, in the open packet. Its ctx never leaves this function,
 * so it lives in registers.
 */
UST_API int ust_event_write_chained(struct ust_rb_chain *chain,
				    const struct ust_chain_form *brief, const void *brief_data,
				    const struct ust_chain_form *full, const void *full_data)
{
	struct ust_thread_slot *slot = ust_thread_slots;
	struct ust_event_ctx ctx;
	uint64_t ids;
	int ret;

	if (ust_likely(known_pair(slot, brief, full, &ids))) {
		ret = ust_thread_reserve_fast(slot, 1, (uint32_t)ids, brief->len, brief->key,
					      (uint32_t)(ids >> 32), full->len, full->key, &ctx);
		if (ust_likely(ret == 0 || ret == 1)) {
			ust_thread_copy(ctx.payload, ret ? brief_data : full_data,
					ret ? brief->len : full->len);
			ust_thread_commit(&ctx);
			return ret;
		}
		if (ret == UST_THREAD_SLOW)
			return write_thread_slow(slot, (uint32_t)(ids >> 32), full, full_data);
	}
	return write_general(chain, brief, brief_data, full, full_data,
			     __builtin_return_address(0));
}
