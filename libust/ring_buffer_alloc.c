/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Creation and teardown of a stream buffer: a sealed memfd (so that ustd,
 * which maps it too, never sees it shrink) and a non-blocking eventfd.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "libust/ring_buffer.h"
#include "libust/ring_buffer_wait.h"
#include "libustcomm/blocking.h"
#include "libustcomm/ctf_layout.h"
#include "libustcomm/format.h"

/* Serials of the buffers made in this process (struct ust_rb_chain). */
static uint64_t rb_serials;

/* Maps shm_fd (map_size bytes) and takes wakeup_fd: the buffer's own
 * descriptors from here on, closed by ust_rb_destroy(). */
static int rb_map(struct ust_rb *rb, const struct ust_rb_config *cfg, int shm_fd, int wakeup_fd,
		  uint64_t map_size, uint64_t page)
{
	void *mem;

	rb->shm_fd = shm_fd;
	rb->wakeup_fd = wakeup_fd;
	mem = mmap(NULL, map_size, PROT_READ | PROT_WRITE, MAP_SHARED, shm_fd, 0);
	if (mem == MAP_FAILED)
		return -errno;
	rb->ctl = mem;
	rb->map_size = map_size;
	rb->unpopulated = cfg->populate;
	rb->populating = cfg->populate;
	rb->subbuf_size = cfg->subbuf_size;
	rb->subbuf_count = cfg->subbuf_count;
	rb->cpu = cfg->cpu;
	rb->stream_id = cfg->stream_id;
	rb->overwrite = cfg->overwrite;
	rb->thread = cfg->thread;
	rb->blocking_us = cfg->overwrite ? UST_BLOCKING_NEVER : cfg->blocking_us;
	rb->wait_release = ust_rb_wait_release;
	rb->stalled = 0;
	rb->payload_limit = cfg->subbuf_size;
	if (rb->payload_limit > UST_EVENT_SIZE_MAX - UST_EVENT_HEADER_EXTENDED_SIZE)
		rb->payload_limit = UST_EVENT_SIZE_MAX - UST_EVENT_HEADER_EXTENDED_SIZE + 1;
	memcpy(rb->uuid, cfg->uuid, sizeof(rb->uuid));
	rb->data = (char *)mem + ust_shm_data_offset(cfg->subbuf_count, page);
	return 0;
}

/* The mapping's size, or 0 when cfg is not a geometry both sides accept. */
static uint64_t rb_begin(struct ust_rb *rb, const struct ust_rb_config *cfg, uint64_t page)
{
	uint64_t map_size;

	memset(rb, 0, sizeof(*rb));
	rb->shm_fd = -1;
	rb->wakeup_fd = -1;
	/* Never 0, which a thread's chain holds before its first event. */
	rb->serial = __atomic_add_fetch(&rb_serials, 1, __ATOMIC_RELAXED);
	if (!cfg->channel || strlen(cfg->channel) >= UST_SHM_CHANNEL_NAME_MAX ||
	    !ust_shm_sizes_valid(cfg->subbuf_size, cfg->subbuf_count))
		return 0;
	map_size = ust_shm_map_size(cfg->subbuf_size, cfg->subbuf_count, page);
	return (size_t)map_size == map_size ? map_size : 0;
}

int ust_rb_create(struct ust_rb *rb, const struct ust_rb_config *cfg)
{
	char name[UST_SHM_CHANNEL_NAME_MAX + 16];
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t map_size = rb_begin(rb, cfg, page);
	int shm_fd, wakeup_fd = -1, ret;

	if (!map_size)
		return -EINVAL;
	ustcomm_format(name, sizeof(name), "ust-%s-%u", cfg->channel, cfg->cpu);
	/* Sealed at its size: ustd maps it and must never see it shrink (SIGBUS). */
	shm_fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (shm_fd < 0)
		return -errno;
	if (ftruncate(shm_fd, (off_t)map_size) < 0 ||
	    fcntl(shm_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0)
		goto error_errno;
	wakeup_fd = cfg->reuse_wakeup ? cfg->wakeup_fd : eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (wakeup_fd < 0)
		goto error_errno;
	ret = rb_map(rb, cfg, shm_fd, wakeup_fd, map_size, page);
	if (ret < 0)
		goto error;
	ust_shm_ctl_init(rb->ctl, cfg->subbuf_size, cfg->subbuf_count, cfg->stream_id, cfg->cpu,
			 page, cfg->uuid, cfg->channel,
			 (cfg->overwrite ? UST_SHM_FLAG_OVERWRITE : 0) |
			 (cfg->thread ? UST_SHM_FLAG_THREAD : 0));
	return 0;
error_errno:
	ret = -errno;
error:
	rb->shm_fd = shm_fd;
	rb->wakeup_fd = wakeup_fd;
	ust_rb_destroy(rb);
	return ret;
}

int ust_rb_attach(struct ust_rb *rb, const struct ust_rb_config *cfg, int shm_fd, int wakeup_fd)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t map_size = rb_begin(rb, cfg, page);
	const struct ust_shm_ctl *ctl;
	struct stat st;
	int ret;

	if (!map_size || fstat(shm_fd, &st) < 0 || (uint64_t)st.st_size < map_size) {
		ret = -EPROTO;
		goto error;
	}
	ret = rb_map(rb, cfg, shm_fd, wakeup_fd, map_size, page);
	if (ret < 0)
		goto error;
	/* Whoever made it (ustd) says the same in the buffer as in its message. */
	ctl = rb->ctl;
	if (ctl->magic != UST_SHM_MAGIC || ctl->version != UST_SHM_VERSION ||
	    ctl->subbuf_size != cfg->subbuf_size || ctl->subbuf_count != cfg->subbuf_count ||
	    ctl->stream_id != cfg->stream_id || ctl->cpu != cfg->cpu ||
	    ctl->flags != (cfg->overwrite ? UST_SHM_FLAG_OVERWRITE : 0u)) {
		ret = -EPROTO;
		goto destroy;
	}
	return 0;
error:
	rb->shm_fd = shm_fd;
	rb->wakeup_fd = wakeup_fd;
destroy:
	ust_rb_destroy(rb);
	return ret;
}

/*
 * One system call makes every page (MADV_POPULATE_WRITE, Linux 5.14): the
 * writers' first pass then takes no page fault. On an older kernel, or
 * short of memory, the rest is left to page faults, as without it.
 */
void ust_rb_populate(struct ust_rb *rb)
{
	int saved_errno = errno;

	/* A thread that takes a thread buffer sets it while we look. */
	if (!rb->ctl || !__atomic_exchange_n(&rb->unpopulated, 0, __ATOMIC_RELAXED))
		return;
	madvise(rb->ctl, rb->map_size, MADV_POPULATE_WRITE);
	errno = saved_errno;
}

void ust_rb_destroy(struct ust_rb *rb)
{
	if (rb->ctl)
		munmap(rb->ctl, rb->map_size);
	if (rb->shm_fd >= 0)
		close(rb->shm_fd);
	if (rb->wakeup_fd >= 0)
		close(rb->wakeup_fd);
	rb->ctl = NULL;
	rb->data = NULL;
	rb->shm_fd = -1;
	rb->wakeup_fd = -1;
}
