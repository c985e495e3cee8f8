/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * CTF 1.8 metadata (plain-text TSDL) for the layout of ctf_layout.h. The
 * trace part comes first; stream and event blocks are appended as channels
 * and events appear, each a complete block, so a metadata file is readable
 * after every append.
 */
#ifndef USTCOMM_METADATA_H
#define USTCOMM_METADATA_H

#include <stdint.h>
#include <ust/core.h>
#include "libustcomm/common.h"
#include "libustcomm/clock.h"
#include "libustcomm/strbuf.h"

struct ustcomm_trace_info {
	uint8_t uuid[16];
	const char *hostname;
	const char *procname;
	int32_t vpid;
	/* Streams numbered from ncpus on are thread buffers, not CPUs: their
	 * packets' cpu_id says none (0: not said, every stream is a CPU's). */
	uint32_t ncpus;
	const char *trace_name;
	const struct ustcomm_clock_desc *clock;
};

/* Signature, type aliases, trace, env, clock, packet context and event header. */
USTCOMM_API int ustcomm_metadata_trace(struct ustcomm_strbuf *sb,
				       const struct ustcomm_trace_info *info);
struct ustcomm_ctx_set;
/* stream { id = stream_id; ... }; for one channel, with the event context
 * of its contexts (event_context.h) unless ctx is NULL or empty. */
USTCOMM_API int ustcomm_metadata_stream(struct ustcomm_strbuf *sb, uint32_t stream_id,
					const char *channel, const struct ustcomm_ctx_set *ctx);
/* event { name = "full_name"; id; stream_id; loglevel; fields := ... }; */
USTCOMM_API int ustcomm_metadata_event(struct ustcomm_strbuf *sb, uint32_t stream_id,
				       uint32_t event_id, const char *full_name, int loglevel,
				       const struct ust_field_desc *fields, uint32_t nr_fields);
/* The lines of the event's fields := struct { ... }, alone: what a
 * process of a set with buffers per user sends ustd (protocol.h). */
USTCOMM_API int ustcomm_metadata_fields(struct ustcomm_strbuf *sb,
					const struct ust_field_desc *fields, uint32_t nr_fields);
/* The event's block around those lines, as ustcomm_metadata_event() makes
 * it: ustd's, with the id it gave. */
USTCOMM_API int ustcomm_metadata_event_block(struct ustcomm_strbuf *sb, uint32_t stream_id,
					     uint32_t event_id, const char *full_name,
					     int loglevel, const char *fields_tsdl);
/* True when name is a valid TSDL identifier (fields must be). */
USTCOMM_API int ustcomm_metadata_valid_identifier(const char *name);

#endif
