/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include <urcu/uatomic.h>

#include "libust/channel.h"
#include "libust/lock.h"
#include "libust/sigsafe_alloc.h"
#include "libustcomm/blocking.h"
#include "libustcomm/ctf_layout.h"
#include "libustcomm/shm_thread.h"

/*
 * Eventfds of retired buffers, for the next buffers to use (channel.h).
 * Under ust_lock(), like every caller here.
 */
#define SPARE_WAKEUPS_MAX	256
static int spare_wakeups[SPARE_WAKEUPS_MAX];
static unsigned nr_spare_wakeups;

/* Channel generations (struct ust_channel). */
static uint64_t channel_gens;

int ust_channel_create(struct ust_channel **out, const char *name, uint32_t stream_id,
		       uint32_t nr_cpus, uint32_t nr_threads, uint32_t subbuf_size,
		       uint32_t subbuf_count, int overwrite, const uint8_t uuid[16],
		       const struct ustcomm_ctx_set *ctx)
{
	struct ust_rb_config cfg = {
		.subbuf_size = subbuf_size,
		.subbuf_count = subbuf_count,
		.stream_id = stream_id,
		.channel = name,
		.overwrite = overwrite,
	};
	struct ust_channel *chan;
	cpu_set_t allowed;
	uint32_t i, ready;
	int ret;

	/*
	 * The buffers of the CPUs this process may run on are written from
	 * the first events: their pages are made before (populate,
	 * ust_channel_populate()), not one by one by page faults in the
	 * event path during the first pass over the ring (5 us each on the
	 * README's machine). The others take memory only if a thread ever
	 * runs there. Without the mask, all are made.
	 */
	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
		memset(&allowed, 0xff, sizeof(allowed));
	chan = ust_zalloc(sizeof(*chan));
	if (!chan)
		return -ENOMEM;
	/* Written with plain stores, which a flight recorder's snapshot
	 * (by ustd, at any time) could not hold off. */
	if (overwrite || ust_shm_thread_register() < 0)
		nr_threads = 0;
	/*
	 * With thread buffers, the per-CPU ones only take what the threads'
	 * own do not (7.4 of the manual): as many thread buffers as the
	 * process has CPUs get their pages made instead, the others once a
	 * thread takes them.
	 */
	ready = (uint32_t)CPU_COUNT(&allowed);
	if (ready > nr_threads)
		ready = nr_threads;
	chan->bufs = ust_zalloc((nr_cpus + nr_threads) * sizeof(*chan->bufs));
	if (!chan->bufs) {
		ret = -ENOMEM;
		goto end;
	}
	memcpy(chan->name, name, strnlen(name, sizeof(chan->name) - 1));
	chan->stream_id = stream_id;
	chan->gen = __atomic_add_fetch(&channel_gens, 1, __ATOMIC_RELAXED);
	chan->next_event_id = UST_EVENT_ID_FIRST;
	chan->ctx = *ctx;
	chan->ctx_size = ustcomm_ctx_set_size(ctx);
	memcpy(cfg.uuid, uuid, sizeof(cfg.uuid));
	/* The per-CPU buffers (index: the CPU), then the thread buffers. */
	for (i = 0; i < nr_cpus + nr_threads; i++) {
		cfg.cpu = i;
		cfg.thread = i >= nr_cpus;
		cfg.populate = cfg.thread ? i - nr_cpus < ready :
			!nr_threads && (i >= CPU_SETSIZE || CPU_ISSET(i, &allowed));
		cfg.reuse_wakeup = nr_spare_wakeups > 0;
		if (cfg.reuse_wakeup)
			cfg.wakeup_fd = spare_wakeups[--nr_spare_wakeups];
		ret = ust_rb_create(&chan->bufs[i], &cfg);
		if (ret < 0)
			goto end;
		chan->nr_bufs = i + 1;
		if (!cfg.thread)
			chan->nr_cpus = i + 1;
	}
	*out = chan;
	return 0;
end:
	ust_channel_destroy(chan);
	return ret;
}

int ust_channel_attach(struct ust_channel **out, const char *name, uint32_t stream_id,
		       uint32_t nr_cpus, uint32_t subbuf_size, uint32_t subbuf_count,
		       int overwrite, const uint8_t uuid[16], const struct ustcomm_ctx_set *ctx,
		       int *shm_fds, int *wakeup_fds)
{
	struct ust_rb_config cfg = {
		.subbuf_size = subbuf_size,
		.subbuf_count = subbuf_count,
		.stream_id = stream_id,
		.channel = name,
		.overwrite = overwrite,
		/* ustd made the pages; this maps them before the first events. */
		.populate = 1,
	};
	struct ust_channel *chan;
	uint32_t i;
	int ret = -ENOMEM;

	chan = ust_zalloc(sizeof(*chan));
	if (chan)
		chan->bufs = ust_zalloc(nr_cpus * sizeof(*chan->bufs));
	if (!chan || !chan->bufs)
		goto end;
	memcpy(chan->name, name, strnlen(name, sizeof(chan->name) - 1));
	chan->stream_id = stream_id;
	chan->gen = __atomic_add_fetch(&channel_gens, 1, __ATOMIC_RELAXED);
	chan->shared = 1;
	chan->ctx = *ctx;
	chan->ctx_size = ustcomm_ctx_set_size(ctx);
	memcpy(cfg.uuid, uuid, sizeof(cfg.uuid));
	for (i = 0; i < nr_cpus; i++) {
		cfg.cpu = i;
		ret = ust_rb_attach(&chan->bufs[i], &cfg, shm_fds[i], wakeup_fds[i]);
		shm_fds[i] = wakeup_fds[i] = -1;
		if (ret < 0)
			goto end;
		/* The mapping is all the writers need: ustd holds the memfd. */
		close(chan->bufs[i].shm_fd);
		chan->bufs[i].shm_fd = -1;
		chan->nr_cpus = chan->nr_bufs = i + 1;
	}
	*out = chan;
	return 0;
end:
	for (i = 0; i < nr_cpus; i++) {
		if (shm_fds[i] >= 0)
			close(shm_fds[i]);
		if (wakeup_fds[i] >= 0)
			close(wakeup_fds[i]);
		shm_fds[i] = wakeup_fds[i] = -1;
	}
	ust_channel_destroy(chan);
	return ret;
}

void ust_channel_populate(struct ust_channel *chan)
{
	uint32_t i;

	for (i = 0; i < chan->nr_bufs; i++)
		ust_rb_populate(&chan->bufs[i]);
}

struct ust_rb *ust_channel_unpopulated(struct ust_channel *chan)
{
	uint32_t i;

	for (i = 0; i < chan->nr_bufs; i++)
		if (__atomic_load_n(&chan->bufs[i].unpopulated, __ATOMIC_RELAXED))
			return &chan->bufs[i];
	return NULL;
}

void ust_channel_destroy(struct ust_channel *chan)
{
	uint32_t i;

	if (!chan)
		return;
	for (i = 0; i < chan->nr_bufs; i++)
		ust_rb_destroy(&chan->bufs[i]);
	ust_free(chan->bufs);
	ust_free(chan);
}

void ust_channel_retire(struct ust_channel *chan, int release_memory)
{
	struct ust_rb *rb;
	uint32_t i;

	__atomic_store_n(&chan->retired, 1, __ATOMIC_RELAXED);
	for (i = 0; i < chan->nr_bufs; i++) {
		rb = &chan->bufs[i];
		/* A late writer must not wait for a buffer nobody drains. */
		uatomic_set(&rb->blocking_us, UST_BLOCKING_NEVER);
		/* A shared ring's memory is the other processes' too. */
		if (release_memory && !chan->shared)
			fallocate(rb->shm_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
				  (off_t)rb->map_size);
		if (rb->shm_fd >= 0)
			close(rb->shm_fd);
		rb->shm_fd = -1;
		if (nr_spare_wakeups < SPARE_WAKEUPS_MAX)
			spare_wakeups[nr_spare_wakeups++] = rb->wakeup_fd;
	}
}

void ust_channel_flush(struct ust_channel *chan)
{
	uint32_t i;

	/* A shared ring's open packet holds other processes' events too:
	 * ustd closes it when the session needs it (stop, rotation), not
	 * every process that ends, which would leave packets of a few
	 * events behind each short-lived worker. */
	if (chan->shared)
		return;
	for (i = 0; i < chan->nr_bufs; i++)
		ust_rb_flush(&chan->bufs[i]);
}

void ust_channel_set_blocking(struct ust_channel *chan, uint32_t us,
			      int (*consumer_alive)(void))
{
	uint32_t i;

	for (i = 0; i < chan->nr_bufs; i++) {
		if (chan->bufs[i].overwrite)
			continue;
		__atomic_store_n(&chan->bufs[i].consumer_alive, consumer_alive, __ATOMIC_RELAXED);
		uatomic_set(&chan->bufs[i].blocking_us, us);
	}
}
