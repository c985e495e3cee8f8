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

#include "libust/ring_buffer.h"
#include "libust/ring_buffer_wait.h"
#include "libustcomm/blocking.h"
#include "libustcomm/ctf_layout.h"
#include "libustcomm/format.h"

/* Serials of the buffers made in this process (struct ust_rb_chain). */
static uint64_t rb_serials;

int ust_rb_create(struct ust_rb *rb, const struct ust_rb_config *cfg)
{
	char name[UST_SHM_CHANNEL_NAME_MAX + 16];
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t map_size;
	struct ust_shm_ctl *ctl;
	void *mem;
	int ret;

	memset(rb, 0, sizeof(*rb));
	rb->shm_fd = -1;
	rb->wakeup_fd = -1;
	/* Never 0, which a thread's chain holds before its first event. */
	rb->serial = __atomic_add_fetch(&rb_serials, 1, __ATOMIC_RELAXED);
	if (!cfg->channel || strlen(cfg->channel) >= UST_SHM_CHANNEL_NAME_MAX ||
	    !ust_shm_sizes_valid(cfg->subbuf_size, cfg->subbuf_count)) {
		ret = -EINVAL;
		goto end;
	}
	map_size = ust_shm_map_size(cfg->subbuf_size, cfg->subbuf_count, page);
	if ((size_t)map_size != map_size) {
		ret = -ENOMEM;
		goto end;
	}

	ustcomm_format(name, sizeof(name), "ust-%s-%u", cfg->channel, cfg->cpu);
	/* Sealed at its size: ustd maps it and must never see it shrink (SIGBUS). */
	rb->shm_fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (rb->shm_fd < 0 || ftruncate(rb->shm_fd, (off_t)map_size) < 0 ||
	    fcntl(rb->shm_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0) {
		ret = -errno;
		goto error;
	}
	mem = mmap(NULL, map_size, PROT_READ | PROT_WRITE, MAP_SHARED, rb->shm_fd, 0);
	if (mem == MAP_FAILED) {
		ret = -errno;
		goto error;
	}
	rb->ctl = mem;
	rb->map_size = map_size;
	rb->unpopulated = cfg->populate;
	rb->wakeup_fd = cfg->reuse_wakeup ? cfg->wakeup_fd :
		eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (rb->wakeup_fd < 0) {
		ret = -errno;
		goto error;
	}

	rb->subbuf_size = cfg->subbuf_size;
	rb->subbuf_count = cfg->subbuf_count;
	rb->cpu = cfg->cpu;
	rb->stream_id = cfg->stream_id;
	rb->overwrite = cfg->overwrite;
	rb->blocking_us = cfg->overwrite ? UST_BLOCKING_NEVER : cfg->blocking_us;
	rb->wait_release = ust_rb_wait_release;
	rb->stalled = 0;
	rb->payload_limit = cfg->subbuf_size;
	if (rb->payload_limit > UST_EVENT_SIZE_MAX - UST_EVENT_HEADER_EXTENDED_SIZE)
		rb->payload_limit = UST_EVENT_SIZE_MAX - UST_EVENT_HEADER_EXTENDED_SIZE + 1;
	memcpy(rb->uuid, cfg->uuid, sizeof(rb->uuid));
	rb->data = (char *)mem + ust_shm_data_offset(cfg->subbuf_count, page);

	/* The memfd is zero-filled: positions, counts and consumed start at 0. */
	ctl = rb->ctl;
	ctl->magic = UST_SHM_MAGIC;
	ctl->version = UST_SHM_VERSION;
	ctl->subbuf_size = cfg->subbuf_size;
	ctl->subbuf_count = cfg->subbuf_count;
	ctl->stream_id = cfg->stream_id;
	ctl->cpu = cfg->cpu;
	ctl->data_offset = ust_shm_data_offset(cfg->subbuf_count, page);
	ctl->map_size = map_size;
	memcpy(ctl->uuid, cfg->uuid, sizeof(ctl->uuid));
	strcpy(ctl->channel, cfg->channel);
	ctl->flags = cfg->overwrite ? UST_SHM_FLAG_OVERWRITE : 0;
	ret = 0;
	goto end;
error:
	ust_rb_destroy(rb);
end:
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

	if (!rb->unpopulated || !rb->ctl)
		return;
	rb->unpopulated = 0;
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
