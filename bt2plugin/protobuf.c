/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bt2plugin/protobuf.h"

#define WIRE_VARINT	0
#define WIRE_LEN	2
#define VARINT_MAX	10

static bool reserve(struct ust_pb *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 64;
	uint8_t *buf;

	if (b->nomem)
		return false;
	if (b->len + n <= b->cap)
		return true;
	while (cap < b->len + n)
		cap *= 2;
	buf = realloc(b->buf, cap);
	if (!buf) {
		b->nomem = true;
		return false;
	}
	b->buf = buf;
	b->cap = cap;
	return true;
}

/* Seven bits a byte, least significant first, the high bit telling more. */
static void varint(struct ust_pb *b, uint64_t v)
{
	if (!reserve(b, VARINT_MAX))
		return;
	while (v >= 0x80) {
		b->buf[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->buf[b->len++] = (uint8_t)v;
}

void ust_pb_uint(struct ust_pb *b, unsigned field, uint64_t v)
{
	varint(b, (uint64_t)field << 3 | WIRE_VARINT);
	varint(b, v);
}

void ust_pb_bytes(struct ust_pb *b, unsigned field, const void *data, size_t len)
{
	varint(b, (uint64_t)field << 3 | WIRE_LEN);
	varint(b, len);
	if (!len || !reserve(b, len))
		return;
	memcpy(b->buf + b->len, data, len);
	b->len += len;
}

void ust_pb_string(struct ust_pb *b, unsigned field, const char *s)
{
	ust_pb_bytes(b, field, s, strlen(s));
}

int ust_pb_check(struct ust_pb *b)
{
	if (!b->nomem)
		return 0;
	b->nomem = false;
	b->len = 0;
	return -ENOMEM;
}

void ust_pb_fini(struct ust_pb *b)
{
	free(b->buf);
	b->buf = NULL;
	b->len = b->cap = 0;
}
