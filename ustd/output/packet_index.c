/* SPDX-License-Identifier: GPL-2.0-only */
#include <endian.h>
#include "libustcomm/ctf_layout.h"
#include "ustd/output/packet_index.h"

void ustd_index_file_header(struct ust_index_file_header *h)
{
	h->magic = htobe32(UST_INDEX_MAGIC);
	h->major = htobe32(UST_INDEX_MAJOR);
	h->minor = htobe32(UST_INDEX_MINOR);
	h->entry_len = htobe32(sizeof(struct ust_index_entry));
}

void ustd_index_entry(struct ust_index_entry *e, const char *pkt, uint64_t offset)
{
	e->offset = htobe64(offset);
	e->packet_size = htobe64(ust_get_u64(pkt + UST_PKT_PACKET_SIZE));
	e->content_size = htobe64(ust_get_u64(pkt + UST_PKT_CONTENT_SIZE));
	e->timestamp_begin = htobe64(ust_get_u64(pkt + UST_PKT_TIMESTAMP_BEGIN));
	e->timestamp_end = htobe64(ust_get_u64(pkt + UST_PKT_TIMESTAMP_END));
	e->events_discarded = htobe64(ust_get_u64(pkt + UST_PKT_EVENTS_DISCARDED));
	e->stream_id = htobe64(ust_get_u32(pkt + UST_PKT_STREAM_ID));
	e->stream_instance_id = htobe64(ust_get_u64(pkt + UST_PKT_STREAM_INSTANCE_ID));
	e->packet_seq_num = htobe64(ust_get_u64(pkt + UST_PKT_SEQ_NUM));
}
