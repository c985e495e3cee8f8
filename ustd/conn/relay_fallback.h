/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The local fallback of a relayed trace: the directory <output>/<SESSION>
 * that takes the packets lttng-relayd may lack. It is opened when relayd
 * goes away, or earlier, while the trace stays relayed, when relayd is so
 * far behind that the copies kept for it pass their bound
 * (relay_pending.h). Either way it begins with all the metadata sent so
 * far and then follows it.
 *
 * A packet relayd was sent goes there byte for byte as it was sent, not
 * padded to whole pages as local packets are: when relayd has it too, the
 * two copies have the same packet_size, times and packet_seq_num, and
 * babeltrace2 given both directories reads them as one packet (manual
 * 9.5).
 */
#ifndef USTD_RELAY_FALLBACK_H
#define USTD_RELAY_FALLBACK_H

#include <stddef.h>
#include "ustd/conn/conn.h"

/* Creates the directory (once) and a file for every stream that has
 * none: the open ones and the closed ones with copies left. */
int ustd_fallback_open(struct ustd_app *app);

/* Writes every copy relayd has not confirmed to its stream's file, in
 * order, and forgets it. */
int ustd_fallback_write_kept(struct ustd_app *app);

/* sink->spill of a relayed trace (stream.h). */
int ustd_fallback_spill(struct ustd_sink *sink, struct ustd_stream_out *out, const char *pkt,
			size_t len);

/* The trace that sink belongs to. */
struct ustd_app *ustd_fallback_app(struct ustd_sink *sink);

#endif
