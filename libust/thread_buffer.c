/* SPDX-License-Identifier: LGPL-2.1-only */
/* Taking and giving back thread buffers (thread_buffer.h). */
#include <pthread.h>
#include <string.h>

#include "libust/context.h"
#include "libust/thread_buffer.h"

__thread struct ust_thread_slot ust_thread_slots[UST_THREAD_SLOTS]
	__attribute__((tls_model("initial-exec")));
__thread uint32_t ust_thread_writing __attribute__((tls_model("initial-exec")));

/* Gives the thread's buffers back when it exits; 0: no key, buffers are
 * kept by their thread until the trace ends. */
static pthread_key_t exit_key;
static int exit_key_ok;
/* Has the pages of a buffer just taken made in the background. */
static void (*populate_soon)(void);

/*
 * Gives back every buffer of chan the thread holds: a signal handler that
 * took one while the thread was taking another leaves the thread one that
 * no slot names. Release: the thread's last writes before the next
 * owner's first (its acquire in take()).
 */
static void give_back(const struct ust_channel *chan, uint32_t tid)
{
	uint32_t i, mine;

	for (i = chan->nr_cpus; i < chan->nr_bufs; i++) {
		mine = tid;
		__atomic_compare_exchange_n(&chan->bufs[i].owner, &mine, 0, 0, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED);
	}
}

/*
 * The thread still runs code after this: the destructors of keys made
 * after ours, signal handlers. Its events from now on go to the per-CPU
 * buffers (each slot still matches its channel, with no buffer): the ones
 * it gives back are the next owners', who write them with plain stores
 * too. The slots first, so that a handler that interrupts us after a
 * buffer went back finds none. Channels are never freed while threads may
 * write (channel.h): a slot's channel, retired or not, can be read.
 */
static void thread_exit(void *arg)
{
	uint32_t tid = (uint32_t)ust_ctx_vtid(), i;

	(void)arg;
	for (i = 0; i < UST_THREAD_SLOTS; i++) {
		__atomic_store_n(&ust_thread_slots[i].bound_gen, 0, __ATOMIC_RELAXED);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		__atomic_store_n(&ust_thread_slots[i].rb, NULL, __ATOMIC_RELAXED);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	for (i = 0; i < UST_THREAD_SLOTS; i++)
		if (ust_thread_slots[i].chan)
			give_back(ust_thread_slots[i].chan, tid);
}

void ust_thread_buffer_init(void (*populate)(void))
{
	exit_key_ok = pthread_key_create(&exit_key, thread_exit) == 0;
	populate_soon = populate;
}

/* A free buffer of chan, now the thread's, or NULL. */
static struct ust_rb *take(struct ust_channel *chan, uint32_t tid)
{
	uint32_t i, free_owner;

	for (i = chan->nr_cpus; i < chan->nr_bufs; i++) {
		free_owner = 0;
		/* Acquire: pairs with give_back()'s release. */
		if (__atomic_compare_exchange_n(&chan->bufs[i].owner, &free_owner, tid, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return &chan->bufs[i];
	}
	return NULL;
}

/*
 * A slot the thread may give to another channel: one never used, or one
 * of a retired channel, whose buffer nobody takes any more, unless we are
 * a signal handler that interrupted a write of the thread's, which may be
 * into that one. A live channel's slot is never taken back.
 * ust_thread_enter() catches a write into a retired one whose slot
 * changed before the write counted itself.
 */
static struct ust_thread_slot *free_slot(void)
{
	struct ust_thread_slot *slot;
	uint32_t i;

	for (i = 0; i < UST_THREAD_SLOTS; i++) {
		slot = &ust_thread_slots[i];
		if (!slot->chan || (!ust_thread_writing &&
				    __atomic_load_n(&slot->chan->retired, __ATOMIC_RELAXED)))
			return slot;
	}
	return NULL;
}

struct ust_thread_slot *ust_thread_buffer_find(struct ust_channel *chan)
{
	uint32_t tid = (uint32_t)ust_ctx_vtid(), i;
	struct ust_thread_slot *slot;
	struct ust_rb *rb;

	for (i = 0; i < UST_THREAD_SLOTS; i++) {
		slot = &ust_thread_slots[i];
		if (slot->chan == chan && slot->gen == chan->gen)
			return slot->rb ? slot : NULL;
	}
	slot = free_slot();
	if (!slot)
		return NULL;
	/*
	 * The slot matches no channel while it changes: a signal handler
	 * that writes meanwhile may take it too, and the buffer it took
	 * there is then found by give_back() at the thread's exit.
	 */
	__atomic_store_n(&slot->bound_gen, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&slot->chan, NULL, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rb = take(chan, tid);
	/*
	 * glibc keeps the first 32 keys' values in the thread descriptor:
	 * for those pthread_setspecific() only stores, which is what makes it
	 * usable in what may be a signal handler (as perf_counter.c).
	 */
	if (rb && exit_key_ok)
		pthread_setspecific(exit_key, ust_thread_slots);
	/* Taken for the first time and not made ready: its pages are made
	 * while the thread writes its first ones by page faults. */
	if (rb && !__atomic_exchange_n(&rb->populating, 1, __ATOMIC_RELAXED)) {
		__atomic_store_n(&rb->unpopulated, 1, __ATOMIC_RELAXED);
		if (populate_soon)
			populate_soon();
	}
	/* No event of the thread's there yet: the first goes the slow way.
	 * A thread that found none free keeps the slot empty: its events in
	 * chan go to the per-CPU buffers. */
	slot->pos = UINT64_MAX;
	slot->chained = 0;
	slot->rb = rb;
	slot->gen = chan->gen;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&slot->chan, chan, __ATOMIC_RELAXED);
	return rb ? slot : NULL;
}

void ust_thread_buffer_forget(void)
{
	memset(ust_thread_slots, 0, sizeof(ust_thread_slots));
}

/*
 * The per-CPU buffer's general reservation, which opens and closes
 * packets, writes extended headers and waits for room, with the long form
 * (as the first event of every packet has); correct with one writer as
 * with many. The cursor then starts again from that event's end, with the
 * time the reservation stored.
 */
int ust_thread_reserve_slow(struct ust_thread_slot *slot, int chained, uint32_t long_id,
			    size_t long_len, uint64_t long_key, struct ust_event_ctx *ctx)
{
	struct ust_rb *rb = slot->rb;
	uint64_t end;
	int ret;

	ret = ust_rb_reserve_slow(rb, long_id, long_len, ctx);
	if (ret < 0) {
		slot->pos = UINT64_MAX;
		ust_thread_leave(rb);
		return ret;
	}
	/*
	 * ust_thread_commit() publishes it: not counted as a write a signal
	 * handler could interrupt (ring_buffer.h), since a handler writes to
	 * the per-CPU buffers meanwhile, whose packets this one holds none of.
	 */
	ust_rb_open_events--;
	end = ctx->offset + (ctx->len & UST_EVENT_SIZE_MAX);
	slot->pos = end;
	slot->at = ust_rb_pos_ptr(rb, end);
	slot->room = rb->subbuf_size - ust_rb_subbuf_offset(rb, end);
	slot->last = __atomic_load_n(&rb->ctl->last_timestamp, __ATOMIC_RELAXED);
	slot->count = &ust_shm_commits(rb->ctl)[ust_shm_subbuf_index(rb->subbuf_size,
								      rb->subbuf_count, end)].count;
	ctx->offset = (uintptr_t)slot;
	slot->key = long_key;
	slot->chained = chained;
	return 0;
}
