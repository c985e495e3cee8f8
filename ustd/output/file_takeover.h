/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Taking over a stream file a killed ustd was writing (write_mark.h). The
 * dead ustd gave a sub-buffer back to the writers only once its packet
 * was in the file, and wrote the packet's index entry after that; the
 * packets it had in flight still held their sub-buffers, so the ring
 * holds them too, from its consumed position on, and the next consumer
 * writes them again. The file is cut before the first of those, and the
 * index entries the dead ustd had not written are added: the file and
 * the next consumer's then hold every packet once.
 */
#ifndef USTD_FILE_TAKEOVER_H
#define USTD_FILE_TAKEOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether the packet pkt, len bytes as in the file, holds what its
 * context says (its events parse up to its content_size). */
typedef bool (*ustd_takeover_whole)(const char *pkt, size_t len, void *arg);

struct ustd_takeover {
	uint64_t kept;			/* whole packets left in the file */
	uint64_t indexed;		/* of those, index entries added */
	uint64_t cut;			/* packets cut off: the ring has them */
	uint64_t cut_bytes;		/* bytes cut off, those packets' and any
					 * part of one that never landed */
	bool damaged;			/* cut from a packet whole() refused */
};

/*
 * Waits for the dead ustd's writes to path to land (its lock: an exclusive
 * flock() is granted once the last of them did, io_uring holding the file
 * until then), then keeps the whole packets of the trace uuid (NULL: any)
 * numbered below first_seq, the packet at the ring's consumed position
 * (UINT64_MAX: the ring is gone, all), indexes them and cuts the rest.
 * The packets without an index entry are also read whole and given to
 * whole (NULL: not checked): a packet the dead ustd had copied out of the
 * ring while the disk lagged, and whose write from the ring landed after
 * the writers reused its sub-buffer, holds bytes of another; the file is
 * cut there, since nothing after it was written (the copies were written
 * in file order, and died with ustd). Returns 0 or a negative errno: the
 * file is then not cut, and the index entries added, if any, agree with
 * it.
 */
int ustd_file_takeover(const char *path, const uint8_t *uuid, uint64_t first_seq,
		       ustd_takeover_whole whole, void *arg, struct ustd_takeover *r);

#endif
