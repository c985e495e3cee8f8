/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The packet index of LTTng's format (CTF index 1.1): one fixed-size entry
 * per packet, all big-endian, telling a reader where each packet is and
 * what time it covers without reading the stream. ustd writes it beside
 * every local stream file (index/<stream>.idx) and sends the same entry
 * to lttng-relayd with every packet.
 */
#ifndef USTD_PACKET_INDEX_H
#define USTD_PACKET_INDEX_H

#include <stdint.h>

#define USTD_INDEX_MAGIC	0xC1F1DCC1u
#define USTD_INDEX_MAJOR	1u
#define USTD_INDEX_MINOR	1u

struct ustd_index_file_header {
	uint32_t magic;
	uint32_t major;
	uint32_t minor;
	uint32_t entry_len;		/* sizeof(struct ustd_index_entry) */
} __attribute__((packed));

struct ustd_index_entry {
	uint64_t offset;		/* of the packet in its file, bytes */
	uint64_t packet_size;		/* bits */
	uint64_t content_size;		/* bits */
	uint64_t timestamp_begin;
	uint64_t timestamp_end;
	uint64_t events_discarded;
	uint64_t stream_id;		/* CTF stream class */
	uint64_t stream_instance_id;	/* the CPU */
	uint64_t packet_seq_num;
} __attribute__((packed));

/* The file header, in its on-disk byte order. */
void ustd_index_file_header(struct ustd_index_file_header *h);

/* The entry of the packet pkt (its header and context, ctf_layout.h)
 * found at offset in its file, in on-disk byte order. */
void ustd_index_entry(struct ustd_index_entry *e, const char *pkt, uint64_t offset);

#endif
