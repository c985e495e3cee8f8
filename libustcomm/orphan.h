/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * An orphan: the trace a program leaves behind when it ends (exit,
 * destroy-trace) while its ustd is gone, for the next ustd to write out
 * (manual 11.9, "When ustd dies or cannot write"). libust writes it
 * (libust/trace_orphan.c), ustd reads it (ustd/orphan.c). One file,
 * <rundir>/orphans/<pid>-<uuid>:
 *
 *   struct ustcomm_orphan_head
 *   records, each a struct ustcomm_msg_header and its payload: exactly the
 *     messages the program sends a ustd it reconnects to (protocol.h),
 *     nr_fds as on the wire, the descriptors themselves not stored;
 *   after each STREAM record, at the next multiple of USTCOMM_ORPHAN_ALIGN,
 *     the image of its buffer (shm_layout.h), ctl->map_size bytes, whose
 *     sub-buffers holding nothing unconsumed are left as holes.
 *
 * The file is written under a name starting with '.' and renamed once
 * complete: a name without the dot is a whole orphan.
 */
#ifndef USTCOMM_ORPHAN_H
#define USTCOMM_ORPHAN_H

#include <stddef.h>
#include <stdint.h>
#include "libustcomm/common.h"
#include "libustcomm/protocol.h"

#define USTCOMM_ORPHAN_MAGIC	0x5553544fu	/* "USTO" */
#define USTCOMM_ORPHAN_VERSION	1u
/* Images are mapped where they lie: 64 KiB is a multiple of every page
 * size of Linux. The padding before them is a hole, not disk space. */
#define USTCOMM_ORPHAN_ALIGN	65536u

struct ustcomm_orphan_head {
	uint32_t magic;
	uint32_t version;
	uint32_t pid;			/* the program's */
	uint32_t reserved;		/* 0 */
};

/* Where the image of the buffer of a STREAM record ending at end lies. */
static inline uint64_t ustcomm_orphan_image_at(uint64_t end)
{
	return (end + USTCOMM_ORPHAN_ALIGN - 1) & ~(uint64_t)(USTCOMM_ORPHAN_ALIGN - 1);
}

#endif
