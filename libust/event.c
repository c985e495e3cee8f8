/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The write path every enabled site takes: site -> event -> the bindings
 * of the traces recording it (registry.h) -> CPU buffer.
 *
 * A site reserves one event and writes its payload once, into the buffer
 * ust_event_reserve*() hands it; the probe ABI (include/ust/core.h) has no
 * room for more. An event recorded in several traces is therefore
 * reserved in the first of them, and its commit copies the payload into
 * each of the others before it publishes the first: a fan-out. What the
 * commit needs to know (the other bindings, where the payload is) waits in
 * a frame of this thread's, pushed at the reservation and popped at the
 * commit. Frames nest only when a signal handler that records events
 * interrupts a write, which completes before the write it interrupted
 * resumes: the frames are a stack, and the top one belongs to the commit
 * whose ctx it names (a nested write's ctx lives in a deeper stack frame,
 * so it has another address).
 */
#include <errno.h>
#include <string.h>

#include "libust/channel.h"
#include "libust/context.h"
#include "libust/event_internal.h"
#include "libust/filter.h"
#include "libust/filter_reclaim.h"
#include "libust/getcpu.h"
#include "libust/registry.h"
#include "libust/ring_buffer.h"
#include "libust/thread_buffer.h"
#include "libust/trigger.h"
#include "libustcomm/common.h"

/* Nested writes with a fan-out pending on one thread: a handler interrupting a
 * handler interrupting a write. A deeper one records in its first trace only. */
#define FANOUT_DEPTH		4

struct fanout {
	const struct ust_event_ctx *ctx;
	const char *payload;
	size_t len;
	const void *ip;
	uint32_t nr;
	const struct ust_event_binding *to[UST_TRACES_MAX - 1];
};

/*
 * Initial-exec, as ust_rb_open_events: a plain load, async-signal-safe.
 * Invariant: every frame at fanout_depth or above has a NULL ctx, so the
 * slot a push takes never names a ctx before the push sets it.
 */
static __thread struct fanout fanouts[FANOUT_DEPTH] __attribute__((tls_model("initial-exec")));
static __thread uint32_t fanout_depth __attribute__((tls_model("initial-exec")));

static int reserve_fresh(struct ust_event_ctx *ctx, const struct ust_event_state *ev,
			 size_t payload_len, const union ust_filter_arg *args, const void *ip);

/* Every case of reserve_in(): any CPU number, contexts, any clock, and the
 * first event of a fork() child, whose binding has no buffers yet. */
static __attribute__((noinline)) int reserve_general(struct ust_event_ctx *ctx,
						     const struct ust_event_state *ev,
						     const struct ust_event_binding *b,
						     size_t payload_len,
						     const union ust_filter_arg *args,
						     const void *ip)
{
	struct ust_channel *chan = b->chan;
	unsigned cpu;
	int ret;

	if (ust_unlikely(!chan->nr_cpus)) {
		if (!chan->make_buffers || chan->make_buffers() < 0)
			return -ENOBUFS;
		/* The event's bindings are new: from the start, filters included. */
		return reserve_fresh(ctx, ev, payload_len, args, ip);
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
 * (ring_buffer.h says why the calls and saved registers matter). ev and
 * args only go on to the general case.
 */
static inline __attribute__((always_inline)) int reserve_in(struct ust_event_ctx *ctx,
							    const struct ust_event_state *ev,
							    const struct ust_event_binding *b,
							    size_t payload_len,
							    const union ust_filter_arg *args,
							    const void *ip)
{
	const struct ust_channel *chan = b->chan;
	int cpu = ust_getcpu_rseq();

	if (ust_unlikely(cpu < 0 || (unsigned)cpu >= chan->nr_cpus || chan->ctx.nr))
		return reserve_general(ctx, ev, b, payload_len, args, ip);
	return ust_rb_reserve(&chan->bufs[cpu], b->id, payload_len, ctx);
}

/* Whether the filters trace slot gives ev let args through. */
static inline __attribute__((always_inline)) int slot_passes(const struct ust_event_state *ev,
							     uint32_t slot,
							     const union ust_filter_arg *args,
							     const void *ip)
{
	const struct ust_event_filters *f;
	struct ust_filter_reader *r;
	int pass;

	/* Acquire: pairs with the release store of the set in rules.c. */
	if (!__atomic_load_n(&ev->filters[slot], __ATOMIC_ACQUIRE))
		return 1;
	/* The set is read inside a reclamation section (filter_reclaim.h):
	 * loaded again there, since the one above may be retired already. */
	r = ust_filter_read_lock();
	f = __atomic_load_n(&ev->filters[slot], __ATOMIC_ACQUIRE);
	pass = !f || ust_filters_pass(f, args, ip);
	ust_filter_read_unlock(r);
	return pass;
}

/*
 * Any list of bindings, args (NULL: none) run through each trace's
 * filters: the event is reserved in the first trace that takes it, and
 * the others wait for the commit in a fan-out frame.
 */
static __attribute__((noinline)) int reserve_multi(struct ust_event_ctx *ctx,
						   const struct ust_event_state *ev,
						   const struct ust_event_binding *b,
						   size_t payload_len,
						   const union ust_filter_arg *args,
						   const void *ip)
{
	const struct ust_event_binding *to[UST_TRACES_MAX];
	struct fanout *f;
	uint32_t nr = 0, i;
	int ret = -ECANCELED;

	for (; b && nr < UST_TRACES_MAX; b = b->next) {
		if (!args || b->slot >= UST_TRACES_MAX || slot_passes(ev, b->slot, args, ip))
			to[nr++] = b;
	}
	for (i = 0; i < nr; i++) {
		ret = reserve_in(ctx, ev, to[i], payload_len, args, ip);
		if (ret == 0)
			break;
	}
	if (ret < 0 || i + 1 == nr)
		return ret;
	if (fanout_depth == FANOUT_DEPTH)
		return 0;
	/*
	 * The frame is taken first, then filled, its ctx last: a signal
	 * handler's write landing anywhere in between pushes above it, and
	 * until its ctx is set its commit cannot take the frame for its own
	 * (frames not in use hold a NULL ctx, see fanouts).
	 */
	f = &fanouts[fanout_depth];
	fanout_depth++;
	/* Compiler-only barriers: the one reader is a handler of this thread,
	 * whose commit loads fanout_depth then the frame's ctx
	 * (ust_event_commit()); the same pairing for the pop in fanout_commit(). */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	f->payload = ctx->payload;
	f->len = payload_len;
	f->ip = ip;
	f->nr = nr - i - 1;
	memcpy(f->to, to + i + 1, f->nr * sizeof(f->to[0]));
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	f->ctx = ctx;
	return 0;
}

/* After a fork() child's traces were made at this event (trace_fork.c):
 * its new bindings, any number; a stand-in again means none. */
static int reserve_fresh(struct ust_event_ctx *ctx, const struct ust_event_state *ev,
			 size_t payload_len, const union ust_filter_arg *args, const void *ip)
{
	/* Acquire: pairs with the release store of the bindings in trace_events.c. */
	const struct ust_event_binding *b = __atomic_load_n(&ev->binding, __ATOMIC_ACQUIRE);

	if (!b || !b->chan->nr_cpus)
		return -ENOENT;
	return reserve_multi(ctx, ev, b, payload_len, args, ip);
}

/*
 * An event of one trace: into the thread's buffer when its channel has
 * thread buffers (thread_buffer.h) and records no context, else as
 * reserve_in(). Not for the fan-out's copies, which hold the first trace's
 * reservation open.
 */
static inline __attribute__((always_inline)) int reserve_one(struct ust_event_ctx *ctx,
							     const struct ust_event_state *ev,
							     const struct ust_event_binding *b,
							     size_t payload_len,
							     const union ust_filter_arg *args,
							     const void *ip)
{
	struct ust_channel *chan = b->chan;
	struct ust_thread_slot *slot;
	int ret;

	if (ust_unlikely(chan->nr_bufs > chan->nr_cpus) && !chan->ctx.nr &&
	    (slot = ust_thread_buffer(chan))) {
		ret = ust_thread_reserve(slot, b->id, payload_len, ctx);
		if (ret != -EAGAIN)
			return ret;
	}
	return reserve_in(ctx, ev, b, payload_len, args, ip);
}

/* An unfiltered site's event: out of line, as the probe's one call. */
static __attribute__((noinline)) int reserve(struct ust_event_ctx *ctx,
					     const struct ust_event_state *ev,
					     size_t payload_len, const void *ip)
{
	const struct ust_event_binding *b;

	/* Acquire: pairs with the release store of the bindings in trace_events.c. */
	b = __atomic_load_n(&ev->binding, __ATOMIC_ACQUIRE);
	if (ust_unlikely(!b))
		return -ENOENT;
	if (ust_unlikely(b->next != NULL))
		return reserve_multi(ctx, ev, b, payload_len, NULL, ip);
	return reserve_one(ctx, ev, b, payload_len, NULL, ip);
}

/* After the filters of trace slot let args through: its binding, unless
 * the bindings changed meanwhile. */
static __attribute__((noinline)) int reserve_passed(struct ust_event_ctx *ctx,
						    const struct ust_event_state *ev,
						    size_t payload_len,
						    const union ust_filter_arg *args,
						    const void *ip, uint32_t slot)
{
	const struct ust_event_binding *b;

	/* Acquire: pairs with the release store of the bindings in trace_events.c. */
	b = __atomic_load_n(&ev->binding, __ATOMIC_ACQUIRE);
	if (ust_unlikely(!b))
		return -ENOENT;
	if (ust_unlikely(b->next != NULL || b->slot != slot))
		return reserve_multi(ctx, ev, b, payload_len, args, ip);
	return reserve_one(ctx, ev, b, payload_len, args, ip);
}

/*
 * A filtered event. With one trace, its filters first, from the event
 * alone, as with a single trace: an event they drop costs no load of its
 * bindings. one_slot is read relaxed: one out of date is caught in
 * reserve_passed(), where the binding is then another trace's.
 */
static inline __attribute__((always_inline)) int reserve_filtered(struct ust_event_ctx *ctx,
								  const struct ust_event_state *ev,
								  size_t payload_len,
								  const union ust_filter_arg *args,
								  const void *ip)
{
	uint32_t slot = __atomic_load_n(&ev->one_slot, __ATOMIC_RELAXED);

	if (ust_unlikely(slot >= UST_TRACES_MAX))
		return reserve_fresh(ctx, ev, payload_len, args, ip);
	if (!slot_passes(ev, slot, args, ip))
		return -ECANCELED;
	return reserve_passed(ctx, ev, payload_len, args, ip, slot);
}

int ust_event_reserve_args(struct ust_event_ctx *ctx, const struct ust_event_state *ev,
			   size_t payload_len, const union ust_filter_arg *args, const void *ip)
{
	return reserve_filtered(ctx, ev, payload_len, args, ip);
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

	/* Acquire: pairs with the release store of priv in registry.c; the
	 * filters are loaded with acquire per trace (slot_passes()). */
	ev = __atomic_load_n(&desc->priv, __ATOMIC_ACQUIRE);
	if (ust_unlikely(!ev))
		return -ENOENT;
	return reserve_filtered(ctx, ev, payload_len, args, ip);
}

UST_API void ust_event_trigger(const struct ust_event_desc *desc,
			       const union ust_filter_arg *args, const void *ip)
{
	const struct ust_event_state *ev;
	const struct ust_event_filters *f;
	struct ust_filter_reader *r;
	uint32_t slot;

	/* Acquire: pairs with the release store of priv in registry.c. */
	ev = __atomic_load_n(&desc->priv, __ATOMIC_ACQUIRE);
	if (ust_unlikely(!ev))
		return;
	/* Inside a reclamation section, as in slot_passes(). The triggers are
	 * the process's: every trace's set holds them, the first one fires. */
	r = ust_filter_read_lock();
	for (slot = 0; slot < UST_TRACES_MAX; slot++) {
		/* Acquire: pairs with the release store of the set in rules.c. */
		f = __atomic_load_n(&ev->filters[slot], __ATOMIC_ACQUIRE);
		if (f && f->nr_triggers) {
			ust_triggers_fire(f, args, ip);
			break;
		}
	}
	ust_filter_read_unlock(r);
}

/* The event's copies into the traces of the top frame, the frame popped,
 * then the event committed in its first trace. */
static __attribute__((noinline)) void fanout_commit(struct ust_event_ctx *ctx)
{
	struct fanout *f = &fanouts[fanout_depth - 1];
	struct ust_event_ctx copy;
	uint32_t i;

	/*
	 * The first trace's event, still open, does not count as a write this
	 * one interrupted (ring_buffer.h): it holds a packet of another
	 * trace's buffer, which ustd does not need back to release one of
	 * these, so a copy into a full lossless channel may wait as the
	 * site's own write would have. Writes this thread really interrupted
	 * still count. A signal handler landing meanwhile may wait for the
	 * first trace's open packet, up to the channel's blocking timeout: the
	 * window ring_buffer.h describes between a reservation and its count.
	 */
	ust_rb_open_events--;
	for (i = 0; i < f->nr; i++) {
		if (reserve_in(&copy, NULL, f->to[i], f->len, NULL, f->ip) < 0)
			continue;
		memcpy(copy.payload, f->payload, f->len);
		ust_rb_commit(copy.buf, &copy);
	}
	ust_rb_open_events++;
	/* The invariant of fanouts, before the frame is given back; the
	 * barrier pairs as those of the push in reserve_multi(). */
	f->ctx = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	fanout_depth--;
	/* Last: until then the payload copied is the writer's, which no
	 * overwrite or consumer can take. */
	ust_rb_commit(ctx->buf, ctx);
}

UST_API void ust_event_commit(struct ust_event_ctx *ctx)
{
	struct ust_rb *rb = ctx->buf;

	if (ust_unlikely(fanout_depth) && fanouts[fanout_depth - 1].ctx == ctx) {
		fanout_commit(ctx);
		return;
	}
	if (ust_unlikely(rb->thread)) {
		ust_thread_commit(ctx);
		return;
	}
	ust_rb_commit(rb, ctx);
}
