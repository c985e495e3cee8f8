/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Writing protocol buffers by hand: varints and length-delimited fields into
 * a growable buffer. A nested message is written into a buffer of its own
 * and appended with ust_pb_msg(), which needs its length first. Enough for
 * the few Perfetto messages of perfetto_proto.c; nothing is ever parsed.
 */
#ifndef UST_BT2_PROTOBUF_H
#define UST_BT2_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ust_pb {
	uint8_t *buf;
	size_t len, cap;
	bool nomem;		/* a write failed: the content is incomplete */
};

static inline void ust_pb_reset(struct ust_pb *b)
{
	b->len = 0;
}

/* Field field as a varint (wire type 0): integers, enums, bools. */
void ust_pb_uint(struct ust_pb *b, unsigned field, uint64_t v);
/* Field field as length-delimited bytes (wire type 2): strings, messages. */
void ust_pb_bytes(struct ust_pb *b, unsigned field, const void *data, size_t len);
void ust_pb_string(struct ust_pb *b, unsigned field, const char *s);
static inline void ust_pb_msg(struct ust_pb *b, unsigned field, const struct ust_pb *sub)
{
	ust_pb_bytes(b, field, sub->buf, sub->len);
}
/* 0, or -ENOMEM when a write since the last call failed (then cleared). */
int ust_pb_check(struct ust_pb *b);
void ust_pb_fini(struct ust_pb *b);

#endif
