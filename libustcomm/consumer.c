/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The consumer's side of a stream buffer (shm_layout.h). The mapping is
 * shared with a process we do not trust to be correct (it may be buggy,
 * crashed mid-write or hostile): every size used to compute an address is a
 * private copy validated once, and every packet field is read once into a
 * local before it is checked and used.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <urcu/arch.h>
#include <urcu/uatomic.h>

#include "libustcomm/consumer.h"
#include "libustcomm/ctf_layout.h"
#include "libustcomm/shm_futex.h"
#include "libustcomm/shm_head.h"
#include "libustcomm/shm_thread.h"

USTCOMM_API int ustcomm_cbuf_map(struct ustcomm_cbuf *cb, int shm_fd,
				 uint32_t subbuf_size, uint32_t subbuf_count)
{
	return ustcomm_cbuf_map_at(cb, shm_fd, 0, 0, subbuf_size, subbuf_count);
}

USTCOMM_API int ustcomm_cbuf_map_at(struct ustcomm_cbuf *cb, int fd, uint64_t offset, int copy,
				    uint32_t subbuf_size, uint32_t subbuf_count)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t map_size, data_offset, consumed;
	struct ust_shm_ctl *ctl;
	struct stat st;
	void *mem;
	int ret;

	memset(cb, 0, sizeof(*cb));
	if (!ust_shm_sizes_valid(subbuf_size, subbuf_count)) {
		ret = -EPROTO;
		goto end;
	}
	data_offset = ust_shm_data_offset(subbuf_count, page);
	map_size = ust_shm_map_size(subbuf_size, subbuf_count, page);
	if ((size_t)map_size != map_size) {
		ret = -ENOMEM;
		goto end;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto end;
	}
	/* A shorter file would fault (SIGBUS) on access past its end. */
	if (st.st_size < 0 || (uint64_t)st.st_size < offset ||
	    (uint64_t)st.st_size - offset < map_size || (off_t)offset < 0) {
		ret = -EPROTO;
		goto end;
	}
	mem = mmap(NULL, map_size, PROT_READ | PROT_WRITE, copy ? MAP_PRIVATE : MAP_SHARED, fd,
		   (off_t)offset);
	if (mem == MAP_FAILED) {
		ret = -errno;
		goto end;
	}
	ctl = mem;
	consumed = uatomic_read(&ctl->consumed);
	if (ctl->magic != UST_SHM_MAGIC || ctl->version != UST_SHM_VERSION ||
	    ctl->subbuf_size != subbuf_size || ctl->subbuf_count != subbuf_count ||
	    ctl->data_offset != data_offset || ctl->map_size != map_size ||
	    (consumed & (subbuf_size - 1))) {
		munmap(mem, map_size);
		ret = -EPROTO;
		goto end;
	}
	cb->ctl = ctl;
	cb->data = (char *)mem + data_offset;
	cb->map_size = map_size;
	cb->subbuf_size = subbuf_size;
	cb->subbuf_count = subbuf_count;
	cb->consumed = consumed;
	ret = 0;
end:
	return ret;
}

USTCOMM_API void ustcomm_cbuf_unmap(struct ustcomm_cbuf *cb)
{
	if (cb->ctl)
		munmap(cb->ctl, cb->map_size);
	cb->ctl = NULL;
	cb->data = NULL;
}

USTCOMM_API int ustcomm_cbuf_get(struct ustcomm_cbuf *cb, const char **packet, size_t *len)
{
	return ustcomm_cbuf_get_at(cb, cb->consumed, packet, len);
}

USTCOMM_API int ustcomm_cbuf_get_at(const struct ustcomm_cbuf *cb, uint64_t begin,
				    const char **packet, size_t *len)
{
	uint32_t idx = ust_shm_subbuf_index(cb->subbuf_size, cb->subbuf_count, begin);
	uint64_t target = ust_shm_commit_target(cb->subbuf_size, cb->subbuf_count, begin);
	const char *pkt = cb->data + (size_t)idx * cb->subbuf_size;
	uint64_t count;
	int ret;

	count = uatomic_read(&ust_shm_commits(cb->ctl)[idx].count);
	/*
	 * Pairs with the full barrier of the writer's uatomic_add_return()
	 * on the count: the packet's bytes are read after the count that
	 * says they are final.
	 */
	cmm_smp_rmb();
	if (count < target) {
		ret = 0;
		goto end;
	}
	/* Writers cannot start the next cycle before we release this one. */
	if (count > target) {
		ret = -EPROTO;
		goto end;
	}
	ret = ustcomm_cbuf_packet_len(cb, pkt, len);
	if (ret < 0)
		goto end;
	*packet = pkt;
	ret = 1;
end:
	return ret;
}

USTCOMM_API int ustcomm_cbuf_packet_len(const struct ustcomm_cbuf *cb, const char *pkt,
					size_t *len)
{
	uint64_t bytes;
	int ret = ust_pkt_len(pkt, cb->subbuf_size, &bytes);

	if (ret == 0)
		*len = (size_t)bytes;
	return ret;
}

USTCOMM_API const char *ustcomm_cbuf_subbuf(const struct ustcomm_cbuf *cb, uint64_t begin)
{
	uint32_t idx = ust_shm_subbuf_index(cb->subbuf_size, cb->subbuf_count, begin);

	return cb->data + (size_t)idx * cb->subbuf_size;
}

USTCOMM_API uint64_t ustcomm_cbuf_commit_count(const struct ustcomm_cbuf *cb, uint64_t begin)
{
	uint32_t idx = ust_shm_subbuf_index(cb->subbuf_size, cb->subbuf_count, begin);
	uint64_t count = uatomic_read(&ust_shm_commits(cb->ctl)[idx].count);

	/* Pairs with the full barrier of the writers' commit adds: the bytes
	 * the count covers are read after it. */
	cmm_smp_rmb();
	return count;
}

USTCOMM_API void ustcomm_cbuf_writer_state(const struct ustcomm_cbuf *cb,
					   struct ustcomm_writer_state *ws)
{
	ws->write_offset = uatomic_read(&cb->ctl->write_offset);
	/* Pairs with the full barrier of the writers' compare-and-exchange,
	 * as in rb_head_read(): the time is not older than the offset. */
	cmm_smp_rmb();
	ws->last_timestamp = uatomic_read(&cb->ctl->last_timestamp);
	ws->events_discarded = uatomic_read(&cb->ctl->events_discarded);
}

USTCOMM_API int ustcomm_cbuf_copy_stable(const struct ustcomm_cbuf *cb, uint64_t begin,
					 char *dst, size_t *len)
{
	uint64_t ring = (uint64_t)cb->subbuf_size * cb->subbuf_count;
	uint64_t target = ust_shm_commit_target(cb->subbuf_size, cb->subbuf_count, begin);
	uint64_t count, wo;

	/* The count's rmb orders the copy after it: every byte is final. */
	if (ustcomm_cbuf_commit_count(cb, begin) != target)
		return 0;
	memcpy(dst, ustcomm_cbuf_subbuf(cb, begin), cb->subbuf_size);
	/*
	 * A writer of the next cycle moves write_offset past begin + ring
	 * (a full-barrier compare-and-exchange) before its first store
	 * into this sub-buffer, and adds to the count after its stores. This
	 * rmb orders our loads of the copy before the loads below: if the
	 * copy saw any store of that writer, we see its exchange here.
	 */
	cmm_smp_rmb();
	count = uatomic_read(&ust_shm_commits(cb->ctl)[ust_shm_subbuf_index(cb->subbuf_size,
			cb->subbuf_count, begin)].count);
	wo = uatomic_read(&cb->ctl->write_offset);
	if (count != target || wo > begin + ring)
		return 0;
	return ustcomm_cbuf_packet_len(cb, dst, len) < 0 ? -EPROTO : 1;
}

USTCOMM_API void ustcomm_cbuf_put(struct ustcomm_cbuf *cb)
{
	uint32_t idx = ust_shm_subbuf_index(cb->subbuf_size, cb->subbuf_count, cb->consumed);

	/*
	 * Every cycle begins on zeroes, so that after a crash an event whose
	 * first byte is still 0 is known to be unfinished (shm_layout.h).
	 */
	memset(cb->data + (size_t)idx * cb->subbuf_size, 0, cb->subbuf_size);
	/*
	 * Release: our reads of the packet, and our zeroes, complete before
	 * writers can see the sub-buffer free. Pairs with the writer's load
	 * of consumed followed by cmm_smp_rmb() and its full-barrier cmpxchg
	 * in ust_rb_reserve(), which precede its first store into the
	 * sub-buffer.
	 */
	cmm_smp_mb();
	cb->consumed += cb->subbuf_size;
	uatomic_set(&cb->ctl->consumed, cb->consumed);
	/*
	 * Writers with a blocking timeout may sleep until a release
	 * (ring_buffer_wait.c). The add is a full barrier between our store
	 * of consumed and our load of waiters; it pairs with the full barrier
	 * of the writer's add to waiters, between that add and its load of
	 * consumed (shm_layout.h): a writer that missed our release is
	 * counted in waiters, and is woken. One load per packet otherwise.
	 */
	uatomic_add_return(&cb->ctl->release_seq, 1);
	if (uatomic_read(&cb->ctl->waiters))
		ust_shm_futex_wake_all(&cb->ctl->release_seq);
}

/* A full barrier, as every writer's add is: whoever sees the count
 * complete sees what was stored in the sub-buffer before. */
static void cbuf_complete(struct ustcomm_cbuf *cb, uint64_t begin)
{
	uint32_t idx = ust_shm_subbuf_index(cb->subbuf_size, cb->subbuf_count, begin);
	uint64_t target = ust_shm_commit_target(cb->subbuf_size, cb->subbuf_count, begin);
	uint64_t count = uatomic_read(&ust_shm_commits(cb->ctl)[idx].count);

	if (count < target)
		uatomic_add_return(&ust_shm_commits(cb->ctl)[idx].count, target - count);
}

USTCOMM_API void ustcomm_cbuf_release_stalled(struct ustcomm_cbuf *cb)
{
	/* Completed before the release: the next cycle's opener sees it. */
	cbuf_complete(cb, cb->consumed);
	ustcomm_cbuf_put(cb);
}

USTCOMM_API void ustcomm_cbuf_repair(struct ustcomm_cbuf *cb, uint64_t begin, const char *pkt,
				     size_t len)
{
	char *sub = cb->data + (size_t)ust_shm_subbuf_index(cb->subbuf_size, cb->subbuf_count,
							    begin) * cb->subbuf_size;

	if (pkt && len <= cb->subbuf_size) {
		memcpy(sub, pkt, len);
		memset(sub + len, 0, cb->subbuf_size - len);
	}
	cbuf_complete(cb, begin);
}

USTCOMM_API uint64_t ustcomm_cbuf_write_position(const struct ustcomm_cbuf *cb)
{
	uint64_t pos = uatomic_read(&cb->ctl->write_offset);

	/*
	 * Pairs with the full barrier of the writers' cmpxchg: everything a
	 * writer did before reserving at pos (sending metadata to ustd
	 * included) happened before this load.
	 */
	cmm_smp_rmb();
	return pos;
}

USTCOMM_API int ustcomm_cbuf_next_ends_before(const struct ustcomm_cbuf *cb, uint64_t pos)
{
	return cb->consumed + cb->subbuf_size <= pos;
}

/* A writer that keeps moving the pair wins: the next tick tries again. */
#define CBUF_FLUSH_TRIES	64
/* How long ustd's loop waits for a thread buffer's writer to leave its
 * write before it leaves the packet open until the next flush. */
#define CBUF_HOLD_NS		(200 * 1000)

/*
 * Closes the packet of [begin, begin + used) at ts: its context, then the
 * commit of the rest of the sub-buffer (the padding, or all of an empty
 * packet), whose add is a full barrier that publishes the context before
 * the count (pairs with the rmb of ustcomm_cbuf_get()).
 */
static int cbuf_close(struct ustcomm_cbuf *cb, uint64_t begin, uint64_t used, uint64_t ts,
		      uint64_t discarded, uint64_t commit_len)
{
	uint32_t i = ust_shm_subbuf_index(cb->subbuf_size, cb->subbuf_count, begin);
	uint64_t target = ust_shm_commit_target(cb->subbuf_size, cb->subbuf_count, begin);

	ust_shm_packet_close(cb->data + (size_t)i * cb->subbuf_size, used, ts, discarded);
	return uatomic_add_return(&ust_shm_commits(cb->ctl)[i].count, commit_len) == target;
}

USTCOMM_API int ustcomm_cbuf_flush(struct ustcomm_cbuf *cb, int tsc,
				   const struct ustcomm_packet_id *empty)
{
	uint64_t ring = (uint64_t)cb->subbuf_size * cb->subbuf_count;
	/* An empty packet only in a sub-buffer we released. */
	uint64_t empty_limit = cb->consumed + ring - cb->subbuf_size;
	struct ust_shm_switch sw;
	char *pkt;
	int ret = 0;

	if (cb->thread && ust_shm_thread_hold(cb->ctl, CBUF_HOLD_NS) < 0)
		return 0;
	if (!ust_shm_switch_out(cb->ctl, cb->subbuf_size, tsc, empty ? &empty_limit : NULL,
				CBUF_FLUSH_TRIES, &sw))
		goto end;
	/* The packet is ours to close now, as it would be a writer's that
	 * switched: no reservation can land in it any more. */
	if (sw.used) {
		ret = cbuf_close(cb, sw.begin, sw.used, sw.ts, sw.discarded,
				 cb->subbuf_size - sw.used);
		goto end;
	}
	pkt = cb->data + (size_t)ust_shm_subbuf_index(cb->subbuf_size, cb->subbuf_count,
						      sw.begin) * cb->subbuf_size;
	ust_shm_packet_open(pkt, empty->uuid, empty->stream_id, empty->cpu,
			    sw.begin / cb->subbuf_size, sw.ts);
	ret = cbuf_close(cb, sw.begin, UST_PKT_HEADER_SIZE, sw.ts, sw.discarded,
			 cb->subbuf_size);
end:
	if (cb->thread)
		ust_shm_thread_release(cb->ctl);
	return ret;
}
