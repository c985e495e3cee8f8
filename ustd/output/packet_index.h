/* SPDX-License-Identifier: GPL-2.0-only */
/* Writing the packet index (libustcomm/packet_index.h). */
#ifndef USTD_PACKET_INDEX_H
#define USTD_PACKET_INDEX_H

#include "libustcomm/packet_index.h"

/* The file header, in its on-disk byte order. */
void ustd_index_file_header(struct ust_index_file_header *h);

/* The entry of the packet pkt (its header and context, ctf_layout.h)
 * found at offset in its file, in on-disk byte order. */
void ustd_index_entry(struct ust_index_entry *e, const char *pkt, uint64_t offset);

#endif
