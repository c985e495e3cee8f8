/* SPDX-License-Identifier: LGPL-2.1-only */
/* A channel of the running trace: one ring buffer per possible CPU. */
#ifndef UST_CHANNEL_H
#define UST_CHANNEL_H

#include <stdint.h>
#include "libust/ring_buffer.h"

struct ust_channel {
	char name[UST_SHM_CHANNEL_NAME_MAX];
	uint32_t stream_id;		/* CTF stream class id */
	uint32_t next_event_id;
	uint32_t nr_cpus;
	struct ust_rb *bufs;		/* nr_cpus of them */
};

int ust_channel_create(struct ust_channel **out, const char *name, uint32_t stream_id,
		       uint32_t subbuf_size, uint32_t subbuf_count, const uint8_t uuid[16]);
void ust_channel_destroy(struct ust_channel *chan);
void ust_channel_flush(struct ust_channel *chan);

#endif
