/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The payload layouts of one application's events (USTCOMM_MSG_EVENT_LAYOUT),
 * per stream and event id, and the walk that sizes one event in a buffer
 * the application left behind. Everything read from the buffer is bounded:
 * the process that wrote it may have crashed halfway.
 */
#ifndef USTD_LAYOUTS_H
#define USTD_LAYOUTS_H

#include <stddef.h>
#include <stdint.h>
#include "libustcomm/protocol.h"

/* Ids are handed out from UST_EVENT_ID_FIRST upwards, one per enabled event:
 * a cap keeps a hostile application from making ustd allocate without end. */
#define USTD_LAYOUT_ID_MAX	65536u

struct ustd_event_layout {
	uint32_t nr_fields;
	struct ustcomm_field_layout *fields;	/* NULL: id unknown */
	int known;
};

struct ustd_stream_layouts {
	struct ustd_event_layout *ev;	/* indexed by event id */
	uint32_t nr;
};

struct ustd_layouts {
	struct ustd_stream_layouts *streams;	/* indexed by stream id */
	uint32_t nr;
};

/* Records a layout that ustcomm_check_event_layout() accepted. Returns 0,
 * -EEXIST for an id described twice, -ERANGE past the caps, -ENOMEM. */
int ustd_layouts_add(struct ustd_layouts *l, const struct ustcomm_event_layout *el);
const struct ustd_event_layout *ustd_layouts_find(const struct ustd_layouts *l,
						  uint32_t stream_id, uint32_t event_id);
void ustd_layouts_free(struct ustd_layouts *l);

/* Size of the payload at p with at most avail bytes readable, or -1 when it
 * does not fit (a string without its NUL, a sequence running past the end). */
int64_t ustd_layout_payload_size(const struct ustd_event_layout *ev, const char *p,
				 size_t avail);

#endif
