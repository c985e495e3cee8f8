/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The contexts a channel can record with each of its events (add-context):
 * their names, their fixed sizes and their CTF declarations. Every context
 * has a fixed size, so a stream's event context has one size that ustd
 * learns with the stream (protocol.h) and steps over when it walks a packet
 * after a crash. In a packet the context sits between the event header and
 * the payload, in the order the contexts were added.
 */
#ifndef USTCOMM_EVENT_CONTEXT_H
#define USTCOMM_EVENT_CONTEXT_H

#include <stdint.h>
#include "libustcomm/common.h"
#include "libustcomm/strbuf.h"

enum ustcomm_ctx {
	USTCOMM_CTX_VPID,
	USTCOMM_CTX_VTID,
	USTCOMM_CTX_PROCNAME,
	USTCOMM_CTX_PTHREAD_ID,
	USTCOMM_CTX_IP,
	/* Per-thread perf counters, from here to the end. */
	USTCOMM_CTX_PERF_CYCLES,
	USTCOMM_CTX_PERF_INSTRUCTIONS,
	USTCOMM_CTX_PERF_CACHE_MISSES,
	USTCOMM_CTX_PERF_PAGE_FAULTS,
	USTCOMM_CTX_NR,
};
#define USTCOMM_CTX_PERF_FIRST	USTCOMM_CTX_PERF_CYCLES
#define USTCOMM_CTX_PERF_NR	(USTCOMM_CTX_NR - USTCOMM_CTX_PERF_FIRST)
/* The procname context: the kernel's 15-character comm and its NUL. */
#define USTCOMM_CTX_PROCNAME_SIZE 16
/* Every context at once takes 72 bytes; more is not a stream of ours. */
#define USTCOMM_CTX_SIZE_MAX	128
/* What to tell a user who gave an unknown context. */
#define USTCOMM_CTX_CHOICES \
	"vpid, vtid, procname, pthread_id, ip, perf:thread:cycles, " \
	"perf:thread:instructions, perf:thread:cache-misses, perf:thread:page-faults"

/* A channel's contexts, in the order they are recorded. */
struct ustcomm_ctx_set {
	uint8_t nr;
	uint8_t ids[USTCOMM_CTX_NR];
};

/* "vtid" -> USTCOMM_CTX_VTID; LTTng's "perf:thread:cpu-cycles" and
 * "perf:thread:cache-misses" spellings too. -EINVAL when unknown.
 * Async-signal-safe. */
USTCOMM_API int ustcomm_ctx_parse(const char *name);
/* USTCOMM_CTX_VTID -> "vtid"; NULL out of range. */
USTCOMM_API const char *ustcomm_ctx_name(int id);
/* Bytes the context takes in each event. */
USTCOMM_API uint32_t ustcomm_ctx_size(int id);
USTCOMM_API uint32_t ustcomm_ctx_set_size(const struct ustcomm_ctx_set *set);
/* Whether the set holds id. */
USTCOMM_API int ustcomm_ctx_set_has(const struct ustcomm_ctx_set *set, int id);
/* Appends the set's field declarations, one per line, for a stream's
 * event.context struct. */
USTCOMM_API void ustcomm_ctx_set_declare(struct ustcomm_strbuf *sb,
					 const struct ustcomm_ctx_set *set);

#endif
