/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The memory a trace's buffers may take, checked before any is allocated,
 * so that a geometry too large for the machine is refused in words instead
 * of leaving the kernel's OOM killer to pick a victim (any process of the
 * machine, or of the program's memory cgroup).
 *
 * What is available is the smaller of the kernel's estimate for the whole
 * machine (MemAvailable in /proc/meminfo) and the headroom of the memory
 * cgroups the process is in: for each of its cgroup and every ancestor up
 * to the root of the mounted hierarchy, the limit minus the usage, the
 * usage less its inactive page cache (which the kernel reclaims before it
 * kills: the cgroup's analogue of MemAvailable). cgroup v2 (memory.max,
 * memory.current) or v1 (memory.limit_in_bytes, memory.usage_in_bytes),
 * whichever has the memory controller. The buffers are memfds (shmem):
 * they are charged to the cgroup and cannot be swapped out unless there
 * is swap, which is not counted.
 *
 * The rule: the buffers about to be allocated may take at most
 * 1/USTCOMM_MEM_SHARE of what is available, so that the program itself,
 * ustd and the rest of the machine keep the other part. Buffers allocated
 * before are counted as used already (the kernel's figures include them).
 *
 * Async-signal-safe: open/read/close on /proc and /sys, stack buffers and
 * ustcomm_format(); libust calls it from its control server's signal
 * handler.
 */
#ifndef USTCOMM_MEM_AVAIL_H
#define USTCOMM_MEM_AVAIL_H

#include <stddef.h>
#include <stdint.h>
#include "libustcomm/common.h"

/* A trace may take at most this fraction (1/2) of the memory available. */
#define USTCOMM_MEM_SHARE	2

#define USTCOMM_MEM_UNKNOWN	UINT64_MAX

struct ustcomm_mem_avail {
	uint64_t meminfo;	/* MemAvailable in bytes, or USTCOMM_MEM_UNKNOWN */
	uint64_t cg_limit;	/* the tightest memory cgroup's limit, or USTCOMM_MEM_UNKNOWN */
	uint64_t cg_used;	/* its usage less inactive page cache */
	uint64_t avail;		/* the smaller headroom, or USTCOMM_MEM_UNKNOWN */
};

/* Reads what is available now. Nothing it cannot read limits anything. */
USTCOMM_API void ustcomm_mem_avail(struct ustcomm_mem_avail *ma);

/* What a trace (or a channel of it) is about to allocate. */
struct ustcomm_mem_request {
	uint64_t bytes;		/* every buffer, control pages included */
	uint32_t subbuf_size;	/* of the largest channel */
	uint32_t subbuf_num;
	uint32_t nr_cpus;	/* buffers per channel: one per possible CPU */
	uint32_t nr_threads;	/* and thread buffers (of the channel added last) */
	uint32_t nr_channels;
	int mixed;		/* channels of different geometries */
};

/* Adds one channel of nr_cpus + nr_threads buffers of that geometry to
 * req (zeroed before the first); the refusal names both counts. */
USTCOMM_API void ustcomm_mem_request_add(struct ustcomm_mem_request *req, uint32_t subbuf_size,
					 uint32_t subbuf_num, uint32_t nr_cpus,
					 uint32_t nr_threads);

/*
 * 0 when req fits in ma's share (USTCOMM_MEM_SHARE), else -ENOMEM with the
 * reason in why, naming the sizes and what is available: "buffers of
 * 64 MiB x 256 sub-buffers x 2 CPUs x 1 channel = 32 GiB exceed half of
 * the memory available (23.1 GiB MemAvailable, cgroup limit 512 MiB with
 * 40 MiB used)". The caller adds what the user should do.
 */
USTCOMM_API int ustcomm_mem_check(const struct ustcomm_mem_request *req,
				  const struct ustcomm_mem_avail *ma, char *why, size_t len);

/* "512 MiB", "23.1 GiB", "4 KiB", "100 bytes": binary units, one decimal
 * when it is not a whole number of them. Returns ustcomm_format()'s. */
USTCOMM_API int ustcomm_format_bytes(char *buf, size_t len, uint64_t v);

#endif
