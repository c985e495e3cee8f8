/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <ust/core.h>
#include "libustcomm/field_size.h"
#include "ustd/conn/layouts.h"

/* Channels are at most 64 per trace (libust); more stream ids is abuse. */
#define LAYOUT_STREAM_MAX	256u

static int layouts_grow(void **arr, uint32_t *nr, uint32_t want, size_t elem)
{
	uint32_t n = *nr ? *nr : 8;
	void *p;

	if (want < *nr)
		return 0;
	while (n <= want)
		n *= 2;
	p = realloc(*arr, (size_t)n * elem);
	if (!p)
		return -ENOMEM;
	memset((char *)p + (size_t)*nr * elem, 0, (size_t)(n - *nr) * elem);
	*arr = p;
	*nr = n;
	return 0;
}

int ustd_layouts_add(struct ustd_layouts *l, const struct ustcomm_event_layout *el)
{
	struct ustd_stream_layouts *sl;
	struct ustd_event_layout *ev;
	size_t len = (size_t)el->nr_fields * sizeof(struct ustcomm_field_layout);
	int ret;

	if (el->stream_id >= LAYOUT_STREAM_MAX || el->event_id >= USTD_LAYOUT_ID_MAX)
		return -ERANGE;
	ret = layouts_grow((void **)&l->streams, &l->nr, el->stream_id, sizeof(*l->streams));
	if (ret < 0)
		return ret;
	sl = &l->streams[el->stream_id];
	ret = layouts_grow((void **)&sl->ev, &sl->nr, el->event_id, sizeof(*sl->ev));
	if (ret < 0)
		return ret;
	ev = &sl->ev[el->event_id];
	if (ev->known)
		return -EEXIST;
	ev->fields = malloc(len ? len : 1);
	if (!ev->fields)
		return -ENOMEM;
	memcpy(ev->fields, el + 1, len);
	ev->nr_fields = el->nr_fields;
	ev->known = 1;
	return 0;
}

const struct ustd_event_layout *ustd_layouts_find(const struct ustd_layouts *l,
						  uint32_t stream_id, uint32_t event_id)
{
	const struct ustd_stream_layouts *sl;

	if (stream_id >= l->nr)
		return NULL;
	sl = &l->streams[stream_id];
	if (event_id >= sl->nr || !sl->ev[event_id].known)
		return NULL;
	return &sl->ev[event_id];
}

void ustd_layouts_free(struct ustd_layouts *l)
{
	uint32_t i, j;

	for (i = 0; i < l->nr; i++) {
		for (j = 0; j < l->streams[i].nr; j++)
			free(l->streams[i].ev[j].fields);
		free(l->streams[i].ev);
	}
	free(l->streams);
	l->streams = NULL;
	l->nr = 0;
}

int64_t ustd_layout_payload_size(const struct ustd_event_layout *ev, const char *p,
				 size_t avail)
{
	uint64_t off = 0;
	int64_t n;
	uint32_t i;

	for (i = 0; i < ev->nr_fields; i++) {
		n = ustcomm_field_size(&ev->fields[i], p + off, avail - off);
		if (n < 0)
			return -1;
		off += (uint64_t)n;
	}
	return (int64_t)off;
}
