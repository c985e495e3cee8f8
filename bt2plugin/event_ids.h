/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Which process, thread and CPU an event belongs to, for any CTF trace:
 * the vpid/vtid contexts when the event has them (LTTng's contexts, UST's),
 * else the trace environment's vpid and the packet context's cpu_id; and
 * the procname context, which is all that names the processes of a trace
 * whose buffers several share (LTTng's per-UID buffers).
 */
#ifndef UST_BT2_EVENT_IDS_H
#define UST_BT2_EVENT_IDS_H

#include <stdint.h>
#include <babeltrace2/babeltrace.h>

#define UST_ID_UNKNOWN INT64_MIN

struct ust_event_ids {
	int64_t pid;
	int64_t tid;
	int64_t cpu;
	const char *procname;	/* the event's procname context, or NULL */
};

/* Where a stream class keeps each identifier: looked up by name once. */
struct ust_ids_layout {
	const bt_stream_class *sc;
	int64_t ctx_pid, ctx_tid;	/* member index in the common context, or -1 */
	int64_t ctx_procname;		/* the same, of a string member */
	int64_t pkt_cpu;		/* member index in the packet context, or -1 */
	const bt_trace *trace;		/* the last trace seen with this class, */
	int64_t trace_pid;		/* and its environment's vpid */
	int64_t trace_ncpus;		/* and ncpus (UST_ID_UNKNOWN: not said) */
};

struct ust_ids_cache {
	struct ust_ids_layout *layouts;
	size_t nr, cap;
};

/* Returns 0 or -ENOMEM. */
int ust_event_ids_get(struct ust_ids_cache *cache, const bt_event *ev,
		      struct ust_event_ids *ids);
void ust_ids_cache_fini(struct ust_ids_cache *cache);

/* The trace environment's procname (UST, LTTng), else the trace's name,
 * else NULL. */
const char *ust_trace_procname(const bt_trace *trace);
/* The trace environment's vpid, else UST_ID_UNKNOWN. */
int64_t ust_trace_pid(const bt_trace *trace);
/* The same of ncpus: UST's streams from there on are thread buffers
 * (libust/thread_buffer.h), whose packets' cpu_id names no CPU. */
int64_t ust_trace_ncpus(const bt_trace *trace);

#endif
