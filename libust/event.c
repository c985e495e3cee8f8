/* SPDX-License-Identifier: LGPL-2.1-only */
/* The write path every enabled site takes: site -> event -> CPU buffer. */
#include <errno.h>

#include "libust/channel.h"
#include "libust/context.h"
#include "libust/filter.h"
#include "libust/filter_reclaim.h"
#include "libust/getcpu.h"
#include "libust/registry.h"
#include "libust/ring_buffer.h"
#include "libust/trigger.h"
#include "libustcomm/common.h"

/* Every case of reserve(): any CPU number, contexts, any clock, and the
 * first event of a fork() child, whose binding has no buffers yet. */
static __attribute__((noinline)) int reserve_general(struct ust_event_ctx *ctx,
						     const struct ust_event_state *ev,
						     const struct ust_event_binding *b,
						     size_t payload_len, const void *ip)
{
	struct ust_channel *chan = b->chan;
	unsigned cpu;
	int ret;

	if (ust_unlikely(!chan->nr_cpus)) {
		if (!chan->make_buffers || chan->make_buffers() < 0)
			return -ENOBUFS;
		/* Acquire: pairs with the release store of the binding in trace_events.c. */
		b = __atomic_load_n(&ev->binding, __ATOMIC_ACQUIRE);
		if (!b || !b->chan->nr_cpus)
			return -ENOENT;
		chan = b->chan;
	}
	cpu = (unsigned)ust_getcpu();
	if (ust_unlikely(cpu >= chan->nr_cpus))
		cpu = 0;
	ret = ust_rb_reserve(&chan->bufs[cpu], b->id, payload_len + chan->ctx_size, ctx);
	if (ret == 0 && chan->ctx.nr) {
		ust_ctx_record(&chan->ctx, ctx->payload, ip);
		ctx->payload += chan->ctx_size;
	}
	return ret;
}

/*
 * The common case inline, with nothing to call: the rseq area knows the
 * CPU and the channel records no context. ust_rb_reserve() is inline too,
 * so a site's event makes one call into libust to reserve and one to commit
 * (ring_buffer.h says why the calls and saved registers matter).
 */
static inline int reserve(struct ust_event_ctx *ctx, const struct ust_event_state *ev,
			  size_t payload_len, const void *ip)
{
	const struct ust_event_binding *b;
	const struct ust_channel *chan;
	int cpu;

	/* Acquire: pairs with the release store of the binding in trace_events.c. */
	b = __atomic_load_n(&ev->binding, __ATOMIC_ACQUIRE);
	if (ust_unlikely(!b))
		return -ENOENT;
	chan = b->chan;
	cpu = ust_getcpu_rseq();
	if (ust_unlikely(cpu < 0 || (unsigned)cpu >= chan->nr_cpus || chan->ctx.nr))
		return reserve_general(ctx, ev, b, payload_len, ip);
	return ust_rb_reserve(&chan->bufs[cpu], b->id, payload_len, ctx);
}

UST_API int ust_event_reserve_ip(struct ust_event_ctx *ctx, const struct ust_event_desc *desc,
				 size_t payload_len, const void *ip)
{
	const struct ust_event_state *ev;

	/* Acquire: pairs with the release store of priv in registry.c. */
	ev = __atomic_load_n(&desc->priv, __ATOMIC_ACQUIRE);
	if (ust_unlikely(!ev))
		return -ENOENT;
	return reserve(ctx, ev, payload_len, ip);
}

/* Probes built with the version 1 headers: their ip context is the
 * address in the probe, not the tracepoint's. */
UST_API int ust_event_reserve(struct ust_event_ctx *ctx, const struct ust_event_desc *desc,
			      size_t payload_len)
{
	return ust_event_reserve_ip(ctx, desc, payload_len, __builtin_return_address(0));
}

UST_API int ust_event_reserve_filtered(struct ust_event_ctx *ctx,
				       const struct ust_event_desc *desc, size_t payload_len,
				       const union ust_filter_arg *args, const void *ip)
{
	const struct ust_event_state *ev;
	const struct ust_event_filters *f;

	/* Acquire: pairs with the release stores of priv (registry.c) and of
	 * the filters (rules.c): a set seen is a set fully built. */
	ev = __atomic_load_n(&desc->priv, __ATOMIC_ACQUIRE);
	if (ust_unlikely(!ev))
		return -ENOENT;
	f = __atomic_load_n(&ev->filters, __ATOMIC_ACQUIRE);
	if (f) {
		/* The set is read inside a reclamation section (filter_reclaim.h):
		 * loaded again there, since the one above may be retired already. */
		struct ust_filter_reader *r = ust_filter_read_lock();
		int pass;

		f = __atomic_load_n(&ev->filters, __ATOMIC_ACQUIRE);
		pass = !f || ust_filters_pass(f, args, ip);
		ust_filter_read_unlock(r);
		if (!pass)
			return -ECANCELED;
	}
	return reserve(ctx, ev, payload_len, ip);
}

UST_API void ust_event_trigger(const struct ust_event_desc *desc,
			       const union ust_filter_arg *args, const void *ip)
{
	const struct ust_event_state *ev;
	const struct ust_event_filters *f;
	struct ust_filter_reader *r;

	/* Acquire: pairs with the release store of priv in registry.c. */
	ev = __atomic_load_n(&desc->priv, __ATOMIC_ACQUIRE);
	if (ust_unlikely(!ev))
		return;
	/* Inside a reclamation section, as in ust_event_reserve_filtered(). */
	r = ust_filter_read_lock();
	/* Acquire: pairs with the release store of the set in rules.c. */
	f = __atomic_load_n(&ev->filters, __ATOMIC_ACQUIRE);
	if (f && f->nr_triggers)
		ust_triggers_fire(f, args, ip);
	ust_filter_read_unlock(r);
}

UST_API void ust_event_commit(struct ust_event_ctx *ctx)
{
	ust_rb_commit(ctx->buf, ctx);
}
