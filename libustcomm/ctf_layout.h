/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Byte layout of a packet (one sub-buffer) as it sits in shared memory and,
 * unchanged, on disk. The metadata writer declares exactly this layout; the
 * ring-buffer writer fills it; the consumer reads and (after a crash) fixes
 * it. All fields are little-endian and byte-packed (every CTF field is
 * declared with align = 8 bits), so there is never any padding between
 * fields or events.
 *
 *   packet header   @0  u32 magic   @4 u8 uuid[16]   @20 u32 stream_id
 *                   @24 u64 stream_instance_id (the CPU number)
 *   packet context  @32 u64 timestamp_begin  @40 u64 timestamp_end
 *                   @48 u64 content_size (bits)  @56 u64 packet_size (bits)
 *                   @64 u64 packet_seq_num  @72 u64 events_discarded
 *                   @80 u32 cpu_id
 *   events          @84 ...
 *
 * Event header, compact form (id <= 30 and less than 2^27 clock ticks since
 * the previous event of the packet, or since timestamp_begin):
 *   one u32 = id | (timestamp & (2^27 - 1)) << 5                 (4 bytes)
 * Extended form:
 *   u8 31 (the 5-bit id escape, 3 bits of padding), u32 id, u64 timestamp
 *                                                                (13 bytes)
 */
#ifndef USTCOMM_CTF_LAYOUT_H
#define USTCOMM_CTF_LAYOUT_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#define UST_CTF_MAGIC			0xC1FC1FC1u

#define UST_PKT_MAGIC			0
#define UST_PKT_UUID			4
#define UST_PKT_STREAM_ID		20
#define UST_PKT_STREAM_INSTANCE_ID	24
#define UST_PKT_TIMESTAMP_BEGIN		32
#define UST_PKT_TIMESTAMP_END		40
#define UST_PKT_CONTENT_SIZE		48
#define UST_PKT_PACKET_SIZE		56
#define UST_PKT_SEQ_NUM			64
#define UST_PKT_EVENTS_DISCARDED	72
#define UST_PKT_CPU_ID			80
#define UST_PKT_HEADER_SIZE		84

#define UST_EVENT_ID_EXTENDED		31u
/* Id 0 is never given: the first byte of every event is non-zero
 * (shm_layout.h relies on it to tell finished events after a crash). */
#define UST_EVENT_ID_FIRST		1u
#define UST_EVENT_COMPACT_MAX_ID	30u
#define UST_EVENT_COMPACT_TS_BITS	27
#define UST_EVENT_HEADER_COMPACT_SIZE	4
#define UST_EVENT_HEADER_EXTENDED_SIZE	13
/* Header plus payload; larger events are dropped and counted. */
#define UST_EVENT_SIZE_MAX		((1u << 24) - 1)

/* Unaligned little-endian stores and loads; the build targets are LE. */
static inline void ust_put_u32(char *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void ust_put_u64(char *p, uint64_t v) { memcpy(p, &v, 8); }
static inline uint32_t ust_get_u32(const char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t ust_get_u64(const char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* The bytes of the packet whose header and context are at pkt, when its
 * context is consistent (the magic, whole bytes, content within the
 * packet and past the header, the packet at most max bytes): the ring's
 * drain and the repair of a killed ustd's files trust no other. 0, or
 * -EPROTO. */
static inline int ust_pkt_len(const char *pkt, uint64_t max, uint64_t *len)
{
	uint64_t content_size = ust_get_u64(pkt + UST_PKT_CONTENT_SIZE);
	uint64_t packet_size = ust_get_u64(pkt + UST_PKT_PACKET_SIZE);

	if (ust_get_u32(pkt + UST_PKT_MAGIC) != UST_CTF_MAGIC ||
	    content_size > packet_size || packet_size % 8 ||
	    content_size < UST_PKT_HEADER_SIZE * 8 || packet_size / 8 > max)
		return -EPROTO;
	*len = packet_size / 8;
	return 0;
}

/* True when the event can use the 4-byte header (writer rule of CTF-NOTES 5). */
static inline int ust_event_header_is_compact(uint32_t id, uint64_t ts, uint64_t prev_ts)
{
	return id <= UST_EVENT_COMPACT_MAX_ID &&
		((ts - prev_ts) >> UST_EVENT_COMPACT_TS_BITS) == 0;
}

static inline unsigned ust_event_header_size(int compact)
{
	return compact ? UST_EVENT_HEADER_COMPACT_SIZE : UST_EVENT_HEADER_EXTENDED_SIZE;
}

/*
 * Writes the event header at p with 0 for its first byte, and returns that
 * byte: the writer stores it last (shm_layout.h). *size is the header's.
 */
static inline uint8_t ust_event_header_write_tail(char *p, int compact, uint32_t id,
						  uint64_t ts, unsigned *size)
{
	uint32_t word;

	if (compact) {
		word = id | (uint32_t)(ts << 5);
		ust_put_u32(p, word & ~UINT32_C(0xff));
		*size = UST_EVENT_HEADER_COMPACT_SIZE;
		return (uint8_t)word;
	}
	p[0] = 0;
	ust_put_u32(p + 1, id);
	ust_put_u64(p + 5, ts);
	*size = UST_EVENT_HEADER_EXTENDED_SIZE;
	return (uint8_t)UST_EVENT_ID_EXTENDED;
}

/* Writes the whole event header at p at once; returns its size. */
static inline unsigned ust_event_header_write(char *p, int compact, uint32_t id, uint64_t ts)
{
	unsigned size;

	p[0] = (char)ust_event_header_write_tail(p, compact, id, ts, &size);
	return size;
}

#endif
