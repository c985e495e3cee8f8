/* SPDX-License-Identifier: LGPL-2.1-only */
/* Taking and giving back thread buffers (thread_buffer.h). */
#include <pthread.h>
#include <string.h>

#include "libust/context.h"
#include "libust/thread_buffer.h"

__thread struct ust_thread_slot ust_thread_slot __attribute__((tls_model("initial-exec")));

/* Gives the thread's buffers back when it exits; 0: no key, buffers are
 * kept by their thread until the trace ends. */
static pthread_key_t exit_key;
static int exit_key_ok;
/* Has the pages of a buffer just taken made in the background. */
static void (*populate_soon)(void);

/*
 * Gives back every buffer of chan the thread holds: a signal handler that
 * took one while the thread was taking another leaves the thread two.
 * Release: the thread's last writes before the next owner's first (its
 * acquire in ust_thread_buffer_take()).
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
 * buffers (the slot still matches the channel, with no buffer): the one it
 * gives back is the next owner's, who writes it with plain stores too.
 * The slot first, so that a handler that interrupts us after the buffer
 * went back finds none.
 */
static void thread_exit(void *arg)
{
	struct ust_thread_slot *slot = arg;
	const struct ust_channel *chan = slot->chan;

	if (!chan || !slot->rb)
		return;
	__atomic_store_n(&slot->rb, NULL, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	give_back(chan, (uint32_t)ust_ctx_vtid());
}

void ust_thread_buffer_init(void (*populate)(void))
{
	exit_key_ok = pthread_key_create(&exit_key, thread_exit) == 0;
	populate_soon = populate;
}

struct ust_thread_slot *ust_thread_buffer_take(struct ust_channel *chan)
{
	struct ust_thread_slot *slot = &ust_thread_slot;
	uint32_t tid = (uint32_t)ust_ctx_vtid();
	struct ust_rb *rb = NULL;
	uint32_t i, free_owner;

	/*
	 * The slot matches no channel while it changes: a signal handler
	 * that writes meanwhile takes a buffer of its own, which the
	 * interrupted take then overwrites here, and give_back() finds at
	 * the thread's exit.
	 */
	__atomic_store_n(&slot->chan, NULL, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* Acquire: pairs with give_back()'s release. */
	for (i = chan->nr_cpus; i < chan->nr_bufs && !rb; i++) {
		free_owner = 0;
		if (__atomic_compare_exchange_n(&chan->bufs[i].owner, &free_owner, tid, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			rb = &chan->bufs[i];
	}
	/*
	 * glibc keeps the first 32 keys' values in the thread descriptor:
	 * for those pthread_setspecific() only stores, which is what makes it
	 * usable in what may be a signal handler (as perf_counter.c).
	 */
	if (rb && exit_key_ok)
		pthread_setspecific(exit_key, slot);
	/* Taken for the first time: its pages are made while the thread
	 * writes its first ones by page faults. */
	if (rb && !__atomic_exchange_n(&rb->populating, 1, __ATOMIC_RELAXED)) {
		__atomic_store_n(&rb->unpopulated, 1, __ATOMIC_RELAXED);
		if (populate_soon)
			populate_soon();
	}
	/* No event of the thread's there yet: the first goes the slow way. */
	slot->pos = UINT64_MAX;
	slot->rb = rb;
	slot->gen = chan->gen;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&slot->chan, chan, __ATOMIC_RELAXED);
	return slot;
}

void ust_thread_buffer_forget(void)
{
	memset(&ust_thread_slot, 0, sizeof(ust_thread_slot));
}

/* The cursor after an event of ours that ended at pos, with its time. */
static void cursor_set(struct ust_thread_slot *slot, uint64_t pos, uint64_t ts, uint64_t key)
{
	struct ust_rb *rb = slot->rb;

	slot->pos = pos;
	slot->at = ust_rb_pos_ptr(rb, pos);
	slot->room = rb->subbuf_size - ust_rb_subbuf_offset(rb, pos);
	slot->last = ts;
	slot->count = &ust_shm_commits(rb->ctl)[ust_shm_subbuf_index(rb->subbuf_size,
								      rb->subbuf_count, pos)].count;
	slot->key = key;
}

/*
 * The per-CPU buffer's general reservation, which opens and closes
 * packets, writes extended headers and waits for room, with the long form
 * (as the first event of every packet has); correct with one writer as
 * with many. Then the cursor starts again from that event's end.
 */
int ust_thread_write_slow(struct ust_thread_slot *slot, uint32_t long_id, size_t long_len,
			  uint64_t long_key, const void *long_data)
{
	struct ust_rb *rb = slot->rb;
	struct ust_event_ctx ctx;
	uint64_t end;
	int ret;

	ret = ust_rb_reserve_slow(rb, long_id, long_len, &ctx);
	if (ret < 0) {
		slot->pos = UINT64_MAX;
		goto end;
	}
	ust_thread_copy(ctx.payload, long_data, long_len);
	end = ctx.offset + (ctx.len & UST_EVENT_SIZE_MAX);
	/* Read before the commit: once the packet is complete, ustd may
	 * hand the sub-buffer back and a later cycle may begin there. */
	cursor_set(slot, end, __atomic_load_n(&rb->ctl->last_timestamp, __ATOMIC_RELAXED),
		   long_key);
	ust_rb_commit(rb, &ctx);
end:
	/* Release: pairs with the holder's acquire load (shm_thread.h). */
	__atomic_store_n(&rb->ctl->thread_busy, 0, __ATOMIC_RELEASE);
	return ret;
}
