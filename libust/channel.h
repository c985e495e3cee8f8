/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * A channel of the running trace: one ring buffer per possible CPU, and
 * the thread buffers after them (thread_buffer.h), when asked for.
 *
 * A channel is never unmapped while other threads may write: a writer that
 * loaded an event's binding and was preempted before its commit may touch
 * the buffer arbitrarily later, and the control path (a signal handler,
 * with no thread to wait in) cannot wait for it. Destroying a trace
 * therefore retires its channels: their memory goes back to the kernel
 * (holes punched in the memfds, once ustd has written them out), their
 * address ranges stay mapped, so a late writer stores into fresh zero
 * pages nobody reads; the eventfds are kept and reused by later buffers,
 * so a late wakeup costs ustd one spurious read, never a write into a file
 * of the application's that took the descriptor's number.
 */
#ifndef UST_CHANNEL_H
#define UST_CHANNEL_H

#include <stdint.h>
#include "libust/ring_buffer.h"
#include "libustcomm/event_context.h"

struct ust_channel {
	char name[UST_SHM_CHANNEL_NAME_MAX];
	uint32_t stream_id;		/* CTF stream class id */
	uint32_t next_event_id;
	uint32_t nr_cpus;
	/* nr_cpus per-CPU buffers (index: the CPU), then thread buffers. */
	uint32_t nr_bufs;
	struct ust_rb *bufs;
	/* Unique in the process: a thread's cached thread buffer is of this
	 * channel only while the generations match (thread_buffer.h). */
	uint64_t gen;
	/* 1 once retired: its thread buffers' slots may be given to other
	 * channels (thread_buffer.c). */
	int retired;
	/* Recorded between each event's header and payload; fixed for the
	 * channel's life, as its stream's metadata declares them. */
	uint32_t ctx_size;
	struct ustcomm_ctx_set ctx;
	/* Bounded disk, told to ustd with each stream (protocol.h). */
	uint64_t tracefile_size;
	uint32_t tracefile_count;
	/* A channel without buffers (nr_cpus 0) stands for buffers still to
	 * be made: the write path calls this first, then looks at the
	 * event's binding again (trace_fork.c). Negative: discard. */
	int (*make_buffers)(void);
	/* Buffers per user: the rings are ustd's, shared with the other
	 * processes of the uid (ust_channel_attach()). */
	int shared;
};

/* With nr_threads thread buffers (0 for a flight recorder, or when the
 * kernel cannot make them: libustcomm/shm_thread.h). Async-signal-safe
 * (memory from ust_zalloc, buffers from system calls). */
int ust_channel_create(struct ust_channel **out, const char *name, uint32_t stream_id,
		       uint32_t nr_cpus, uint32_t nr_threads, uint32_t subbuf_size,
		       uint32_t subbuf_count, int overwrite, const uint8_t uuid[16],
		       const struct ustcomm_ctx_set *ctx);
/* A channel on rings ustd made (buffers per user): nr_cpus of them, each
 * given as its memfd and eventfd, which it takes (all of them, even on
 * error: each is closed or -1 on return). Async-signal-safe. */
int ust_channel_attach(struct ust_channel **out, const char *name, uint32_t stream_id,
		       uint32_t nr_cpus, uint32_t subbuf_size, uint32_t subbuf_count,
		       int overwrite, const uint8_t uuid[16], const struct ustcomm_ctx_set *ctx,
		       int *shm_fds, int *wakeup_fds);
/* Makes the pages of the buffers of the CPUs the process may run on: 2 to
 * 3 ms for 4 MiB. Whoever makes a channel where a program waits for it
 * (start-up, an event) leaves this to the listener thread when there is
 * one (libust/control.c). Async-signal-safe. */
void ust_channel_populate(struct ust_channel *chan);
/* A buffer of the channel whose pages are still to be made, or NULL. */
struct ust_rb *ust_channel_unpopulated(struct ust_channel *chan);
/* Unmaps and frees: only where no thread can be writing (fork child, errors). */
void ust_channel_destroy(struct ust_channel *chan);
/* See above; release_memory once ustd no longer reads the buffers. */
void ust_channel_retire(struct ust_channel *chan, int release_memory);
void ust_channel_flush(struct ust_channel *chan);
/* The blocking timeout of every buffer of the channel (libustcomm/blocking.h);
 * at any time: writers read it when they find the ring full. */
void ust_channel_set_blocking(struct ust_channel *chan, uint32_t us,
			      int (*consumer_alive)(void));

#endif
