/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ustd/relay/relay_pending.h"

struct ustd_pending_pkt {
	struct ustd_pending_pkt *next;
	uint64_t seq;
	size_t len;
	size_t cap;			/* bytes of data */
	char data[];
};

static struct ustd_pending_stream *pending_stream(struct ustd_relay_pending *p,
						  struct ustd_stream_out *out,
						  const uint64_t *confirmed, uint64_t ring)
{
	struct ustd_pending_stream *ps;
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < p->nr_streams; i++) {
		if (p->streams[i].out == out)
			return &p->streams[i];
	}
	ps = realloc(p->streams, (p->nr_streams + 1) * sizeof(*ps));
	if (!ps)
		return NULL;
	p->streams = ps;
	ps = &p->streams[p->nr_streams++];
	*ps = (struct ustd_pending_stream) { .out = out, .confirmed = confirmed, .ring = ring };
	ps->tail = &ps->head;
	for (i = 0; i < p->nr_streams; i++)
		total += p->streams[i].ring;
	p->max = total > p->min ? total : p->min;
	return ps;
}

/*
 * Copies are recycled, up to the bound: a fresh allocation of a
 * sub-buffer's size comes from mmap() or a heap just trimmed, and the page
 * faults of filling it made ustd so much slower at full speed that the
 * writers discarded 4 times as many events (manual 9.5).
 */
static void pending_pop(struct ustd_relay_pending *p, struct ustd_pending_stream *ps)
{
	struct ustd_pending_pkt *pkt = ps->head;

	ps->head = pkt->next;
	if (!ps->head)
		ps->tail = &ps->head;
	p->bytes -= pkt->len;
	if (p->bytes + p->free_bytes + pkt->cap > p->max) {
		free(pkt);
		return;
	}
	pkt->next = p->free;
	p->free = pkt;
	p->free_bytes += pkt->cap;
}

static struct ustd_pending_pkt *pending_alloc(struct ustd_relay_pending *p, size_t len)
{
	struct ustd_pending_pkt *pkt = p->free;

	if (pkt) {
		p->free = pkt->next;
		p->free_bytes -= pkt->cap;
		if (pkt->cap >= len)
			return pkt;
		free(pkt);
	}
	pkt = malloc(sizeof(*pkt) + len);
	if (pkt)
		pkt->cap = len;
	return pkt;
}

static void pending_drop(struct ustd_relay_pending *p, struct ustd_pending_stream *ps)
{
	while (ps->head && ps->head->seq < *ps->confirmed)
		pending_pop(p, ps);
}

int ustd_relay_pending_keep(struct ustd_relay_pending *p, struct ustd_stream_out *out,
			    const uint64_t *confirmed, uint64_t ring, uint64_t seq,
			    const char *pkt, size_t len, const char **kept)
{
	struct ustd_pending_stream *ps = pending_stream(p, out, confirmed, ring);
	struct ustd_pending_pkt *copy;

	if (!ps)
		return -ENOMEM;
	pending_drop(p, ps);
	copy = pending_alloc(p, len);
	if (!copy)
		return -ENOMEM;
	copy->next = NULL;
	copy->seq = seq;
	copy->len = len;
	memcpy(copy->data, pkt, len);
	*ps->tail = copy;
	ps->tail = &copy->next;
	p->bytes += len;
	*kept = copy->data;
	return 0;
}

void ustd_relay_pending_drop_confirmed(struct ustd_relay_pending *p)
{
	size_t i;

	for (i = 0; i < p->nr_streams; i++)
		pending_drop(p, &p->streams[i]);
}

bool ustd_relay_pending_over(const struct ustd_relay_pending *p)
{
	return p->bytes > p->max;
}

bool ustd_relay_pending_has(const struct ustd_relay_pending *p,
			    const struct ustd_stream_out *out)
{
	size_t i;

	for (i = 0; i < p->nr_streams; i++) {
		if (p->streams[i].out == out)
			return p->streams[i].head != NULL;
	}
	return false;
}

int ustd_relay_pending_flush(struct ustd_relay_pending *p, struct ustd_stream_out *out,
			     int (*write)(struct ustd_stream_out *out, const char *pkt,
					  size_t len))
{
	size_t i;
	int ret = 0;

	for (i = 0; i < p->nr_streams && p->streams[i].out != out; i++)
		;
	if (i == p->nr_streams)
		return 0;
	while (ret == 0 && p->streams[i].head) {
		ret = write(out, p->streams[i].head->data, p->streams[i].head->len);
		if (ret == 0)
			pending_pop(p, &p->streams[i]);
	}
	return ret;
}

void ustd_relay_pending_free(struct ustd_relay_pending *p)
{
	struct ustd_pending_pkt *pkt;
	size_t i;

	for (i = 0; i < p->nr_streams; i++) {
		while (p->streams[i].head)
			pending_pop(p, &p->streams[i]);
	}
	while ((pkt = p->free)) {
		p->free = pkt->next;
		free(pkt);
	}
	free(p->streams);
	*p = (struct ustd_relay_pending) { .min = p->min };
}
