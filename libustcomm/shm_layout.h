/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Layout of one stream buffer (one channel on one CPU) in shared memory.
 *
 * The tracer creates it in a memfd and hands the descriptor to ustd; from
 * then on both sides work on it through atomic operations only. Every field
 * has a fixed width and an explicit offset so that a 32-bit application and
 * a 64-bit ustd agree on it.
 *
 *   [struct ust_shm_ctl][struct ust_shm_commit x subbuf_count][pad to page]
 *   [sub-buffer 0][sub-buffer 1]...[sub-buffer subbuf_count - 1]
 *
 * Positions are free-running 64-bit byte counts that never wrap in practice:
 * position p lives in sub-buffer (p / subbuf_size) % subbuf_count, at byte
 * p % subbuf_size. The sub-buffer that starts at position b is in its cycle
 * b / (subbuf_size * subbuf_count).
 *
 * Invariants (the ring buffer's contract between writers and consumer):
 *  - write_offset only grows, in ust_rb_reserve() and in the switches of
 *    shm_head.h (ust_rb_flush() in the writers, ustd's live flush), by
 *    one compare-and-exchange of the pair (write_offset, last_timestamp)
 *    (16 bytes on x86-64, which is why the two are adjacent and 16-byte
 *    aligned). A reservation never ends exactly on a sub-buffer
 *    boundary: the last byte of a sub-buffer is always padding, so every
 *    packet is closed by an explicit switch that records its context.
 *  - last_timestamp is the time of the reservation that moved write_offset
 *    to its current value (an event, a packet switch or a flush), stored
 *    by the same compare-and-exchange; the next reservation takes a time
 *    no smaller. Where no 16-byte compare-and-exchange exists it is stored
 *    after the 8-byte one and may lag: then it is only the time of some
 *    reservation at or before write_offset (ring_buffer.c).
 *  - A writer may begin the sub-buffer at position b only when
 *    b + subbuf_size - consumed <= subbuf_size * subbuf_count (it is free);
 *    in overwrite mode, only when the cycle before (which began at b minus
 *    one ring) is complete, i.e. its commit count reached that cycle's
 *    target.
 *  - The first byte of an event is never 0 (event ids start at 1, and the
 *    extended header starts with 31) and is stored last, with release
 *    semantics, just before the event's commit. A sub-buffer is all zeroes
 *    when a cycle begins in it: the consumer clears it before it releases
 *    it, the memfd starts zeroed, and in overwrite mode each writer clears
 *    the first byte of its event right after reserving it. So after a
 *    crash, an event whose first byte is non-zero is complete, and one
 *    whose first byte is 0 was reserved but never finished (crash rescue,
 *    ustd).
 *  - commit[i].count grows by exactly subbuf_size per cycle of sub-buffer i:
 *    the packet header, every event and the closing padding are each added
 *    once, after their bytes are written (the adds are full barriers). So the
 *    sub-buffer of cycle c is complete, with every byte final, exactly when
 *    commit[i].count == (c + 1) * subbuf_size.
 *  - consumed only grows, by subbuf_size, stored by the consumer with release
 *    semantics after it is done reading the packet; writers load it with
 *    acquire semantics before reusing that sub-buffer.
 *  - events_discarded counts every event dropped because the buffer was
 *    full; the closer of each packet copies it into the packet context.
 *  - release_seq grows by one after every store of consumed, by a full
 *    barrier; waiters counts the writers between announcing a wait and
 *    leaving it. A writer that waits for a release (the blocking timeout,
 *    ring_buffer_wait.c) loads release_seq, adds itself to waiters (full
 *    barrier), looks at consumed again and sleeps on release_seq only if
 *    that sub-buffer is still taken and release_seq has not moved; the
 *    consumer stores consumed, increments release_seq (full barrier), then
 *    wakes the sleepers when waiters is not 0. Either the writer sees the
 *    new consumed or the consumer sees the waiter, so no wake-up is lost.
 */
#ifndef USTCOMM_SHM_LAYOUT_H
#define USTCOMM_SHM_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#define UST_SHM_MAGIC		0x55535453u	/* "USTS" */
#define UST_SHM_VERSION		1u
#define UST_CACHELINE		64
#define UST_SHM_CHANNEL_NAME_MAX 64

/* Limits enforced on both sides (the consumer must not trust the tracer). */
#define UST_SUBBUF_SIZE_MIN	4096u
#define UST_SUBBUF_SIZE_MAX	(64u << 20)
#define UST_SUBBUF_NUM_MIN	2u
#define UST_SUBBUF_NUM_MAX	256u
#define UST_SUBBUF_SIZE_DEFAULT	(256u << 10)
#define UST_SUBBUF_NUM_DEFAULT	16u
/* For a channel of at most UST_FEW_BUFFERS buffers. */
#define UST_SUBBUF_NUM_FEW_BUFFERS 32u
#define UST_FEW_BUFFERS		2u

/*
 * Sub-buffers per buffer when none are asked for, for a channel of
 * nr_buffers buffers (one per possible CPU, and its thread buffers). A
 * ring must hold what the writers write while ustd waits for a CPU. Where
 * the writers can take every CPU, ustd at its ordinary priority waits up
 * to 4 or 5 ms, and 16 sub-buffers (4 MiB, 7 ms of one writer at full
 * speed) discarded in 10 to 21 runs of 100; 32 in 0 to 2 (manual 10.7).
 * Twice the ring for one or two buffers is at most the memory of four
 * buffers of the usual depth; beyond, the rings would grow with every CPU
 * and thread buffer, and a program rarely has a writer at full speed on
 * each.
 */
static inline uint32_t ust_subbuf_num_default(uint32_t nr_buffers)
{
	return nr_buffers <= UST_FEW_BUFFERS ? UST_SUBBUF_NUM_FEW_BUFFERS : UST_SUBBUF_NUM_DEFAULT;
}

/*
 * Flight-recorder mode: writers never wait for the consumer; a sub-buffer
 * may be opened again as soon as its previous cycle is complete, so the
 * ring keeps the most recent data and ustd reads it only on demand
 * (snapshot, exit, crash). The consumer never moves consumed.
 */
#define UST_SHM_FLAG_OVERWRITE	1u
/*
 * A thread buffer (shm_thread.h): one thread at a time writes it, with
 * plain loads and stores of write_offset, last_timestamp and the commit
 * counts instead of atomic operations, between its store of 1 and its
 * release store of 0 into thread_busy. Anyone else who moves the position
 * (a flush, in the application or in ustd) must first hold the buffer
 * (ust_shm_thread_hold()): it stores 1 into flush_req, makes every thread
 * of the writing process pass a full barrier (membarrier), and waits for
 * thread_busy to be 0. A writer that loads flush_req 1 after its store of
 * thread_busy writes its event elsewhere (the per-CPU buffer). Either the
 * writer sees the request or the holder sees the writer busy: the
 * membarrier is the barrier the writer's side leaves out. Never with
 * UST_SHM_FLAG_OVERWRITE.
 */
#define UST_SHM_FLAG_THREAD	2u
/* Thread buffers a channel may have (UST_THREAD_BUFFERS, usttrace
 * --thread-buffers). */
#define UST_THREAD_BUFFERS_MAX	256u
#define UST_SHM_FLAGS_KNOWN	(UST_SHM_FLAG_OVERWRITE | UST_SHM_FLAG_THREAD)

struct ust_shm_ctl {
	/* Set once by the tracer before the descriptor is handed out. */
	uint32_t magic;			/* @0 */
	uint32_t version;		/* @4 */
	uint32_t subbuf_size;		/* @8  bytes, power of two */
	uint32_t subbuf_count;		/* @12 power of two */
	uint32_t stream_id;		/* @16 CTF stream class id (channel) */
	uint32_t cpu;			/* @20 */
	uint64_t data_offset;		/* @24 offset of sub-buffer 0, page aligned */
	uint64_t map_size;		/* @32 total size of the memfd */
	uint8_t uuid[16];		/* @40 trace uuid */
	char channel[UST_SHM_CHANNEL_NAME_MAX];	/* @56 NUL-terminated */
	uint32_t flags;			/* @120 UST_SHM_FLAG_* */
	uint8_t reserved0[4];		/* @124 */

	/* Writers' cache line. */
	uint64_t write_offset;		/* @128 \ one 16-byte compare-and-exchange */
	uint64_t last_timestamp;	/* @136 / time of the reservation ending there */
	uint64_t events_discarded;	/* @144 */
	uint32_t thread_busy;		/* @152 thread buffer: its writer is in a write */
	uint32_t flush_req;		/* @156 thread buffer: someone holds it */
	uint8_t reserved1[32];		/* @160 */

	/* Consumer's cache line. */
	uint64_t consumed;		/* @192 */
	uint32_t release_seq;		/* @200 futex word: +1 per release of a sub-buffer */
	uint32_t waiters;		/* @204 writers waiting for a release */
	uint8_t reserved2[48];		/* @208 */
};					/* 256 bytes */

struct ust_shm_commit {
	uint64_t count;			/* bytes committed, cumulative over cycles */
	uint8_t reserved[56];
};

_Static_assert(sizeof(struct ust_shm_ctl) == 256, "shm ctl layout");
_Static_assert(offsetof(struct ust_shm_ctl, write_offset) == 128, "shm ctl layout");
_Static_assert(offsetof(struct ust_shm_ctl, last_timestamp) == 136, "16-byte pair");
_Static_assert(offsetof(struct ust_shm_ctl, write_offset) % 16 == 0, "16-byte pair");
_Static_assert(offsetof(struct ust_shm_ctl, thread_busy) == 152, "shm ctl layout");
_Static_assert(offsetof(struct ust_shm_ctl, consumed) == 192, "shm ctl layout");
_Static_assert(offsetof(struct ust_shm_ctl, release_seq) == 200, "shm ctl layout");
_Static_assert(sizeof(struct ust_shm_commit) == 64, "shm commit layout");

static inline struct ust_shm_commit *ust_shm_commits(struct ust_shm_ctl *ctl)
{
	return (struct ust_shm_commit *)(ctl + 1);
}

static inline uint64_t ust_shm_data_offset(uint32_t subbuf_count, uint64_t page_size)
{
	uint64_t end = sizeof(struct ust_shm_ctl) +
		(uint64_t)subbuf_count * sizeof(struct ust_shm_commit);

	return (end + page_size - 1) & ~(page_size - 1);
}

static inline uint64_t ust_shm_map_size(uint32_t subbuf_size, uint32_t subbuf_count,
					uint64_t page_size)
{
	return ust_shm_data_offset(subbuf_count, page_size) +
		(uint64_t)subbuf_size * subbuf_count;
}

/*
 * The helpers below take the sizes as arguments, never from the shared
 * header: each side computes addresses only from its own private, validated
 * copies, since the other side could scribble on the header. The sizes are
 * powers of two (ust_shm_sizes_valid()), so they divide by shifting: a
 * 64-bit division by a size only known at run time costs tens of cycles,
 * and the writer computes these on every event.
 */

/* Index of the sub-buffer holding position pos. */
static inline uint32_t ust_shm_subbuf_index(uint32_t subbuf_size, uint32_t subbuf_count,
					    uint64_t pos)
{
	return (uint32_t)(pos >> __builtin_ctz(subbuf_size)) & (subbuf_count - 1);
}

/* Commit count at which the sub-buffer starting at position begin is complete. */
static inline uint64_t ust_shm_commit_target(uint32_t subbuf_size, uint32_t subbuf_count,
					     uint64_t begin)
{
	unsigned int ring_shift = __builtin_ctz(subbuf_size) + __builtin_ctz(subbuf_count);

	return ((begin >> ring_shift) + 1) << __builtin_ctz(subbuf_size);
}

static inline int ust_is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* The geometry both sides accept. */
static inline int ust_shm_sizes_valid(uint32_t subbuf_size, uint32_t subbuf_count)
{
	return ust_is_pow2(subbuf_size) && ust_is_pow2(subbuf_count) &&
		subbuf_size >= UST_SUBBUF_SIZE_MIN && subbuf_size <= UST_SUBBUF_SIZE_MAX &&
		subbuf_count >= UST_SUBBUF_NUM_MIN && subbuf_count <= UST_SUBBUF_NUM_MAX;
}

/*
 * Fills the header of a new, zero-filled buffer of map_size bytes (the
 * memfd starts zeroed: positions, counts and consumed start at 0); by its
 * creator, before anyone else maps it: libust for its own buffers, ustd
 * for the rings of buffers per user.
 */
static inline void ust_shm_ctl_init(struct ust_shm_ctl *ctl, uint32_t subbuf_size,
				    uint32_t subbuf_count, uint32_t stream_id, uint32_t cpu,
				    uint64_t page_size, const uint8_t uuid[16],
				    const char *channel, uint32_t flags)
{
	size_t i;

	ctl->magic = UST_SHM_MAGIC;
	ctl->version = UST_SHM_VERSION;
	ctl->subbuf_size = subbuf_size;
	ctl->subbuf_count = subbuf_count;
	ctl->stream_id = stream_id;
	ctl->cpu = cpu;
	ctl->data_offset = ust_shm_data_offset(subbuf_count, page_size);
	ctl->map_size = ust_shm_map_size(subbuf_size, subbuf_count, page_size);
	for (i = 0; i < sizeof(ctl->uuid); i++)
		ctl->uuid[i] = uuid[i];
	for (i = 0; i + 1 < sizeof(ctl->channel) && channel[i]; i++)
		ctl->channel[i] = channel[i];
	ctl->flags = flags;
}

#endif
