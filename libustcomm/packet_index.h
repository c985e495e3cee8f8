/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The packet index of LTTng's format (CTF index 1.1): one fixed-size entry
 * per packet, all big-endian, telling a reader where each packet is and
 * what time it covers without reading the stream. ustd writes it beside
 * every local stream file (index/<stream>.idx) and sends the same entry
 * to lttng-relayd with every packet; loss.c reads the last one.
 */
#ifndef USTCOMM_PACKET_INDEX_H
#define USTCOMM_PACKET_INDEX_H

#include <stdint.h>

#define UST_INDEX_MAGIC		0xC1F1DCC1u
#define UST_INDEX_MAJOR		1u
#define UST_INDEX_MINOR		1u
#define UST_INDEX_DIR		"index"
#define UST_INDEX_SUFFIX	".idx"

struct ust_index_file_header {
	uint32_t magic;
	uint32_t major;
	uint32_t minor;
	uint32_t entry_len;		/* sizeof(struct ust_index_entry) */
} __attribute__((packed));

struct ust_index_entry {
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

#endif
