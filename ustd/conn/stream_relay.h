/* SPDX-License-Identifier: GPL-2.0-only */
/* A relayed stream's packets (stream_relay.c). */
#ifndef USTD_STREAM_RELAY_H
#define USTD_STREAM_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ustd/relay/sink.h"

struct ustcomm_cbuf;

/* The sink's send (relay/sink.h) for a trace streamed to relayd. */
int ustd_stream_relay_packet(struct ustd_sink *sink, struct ustd_stream_out *out, uint64_t ring,
			     const char *packet, size_t len, struct ustcomm_cbuf *release,
			     bool *released);

#endif
