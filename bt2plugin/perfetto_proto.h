/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Perfetto's own trace format (protos/perfetto/trace/ of the Perfetto
 * project): a Trace, that is TracePackets one after the other, each as
 * field 1 of the Trace. Every track is a packet sequence of its own, so that
 * its packets can lean on state the sequence set up once: the track
 * (TrackEventDefaults), the names already written (InternedData event_names)
 * and an incremental clock, which makes a timestamp the delta from the
 * previous packet of the sequence. A function call (begin and end) then
 * costs about 25 bytes.
 */
#ifndef UST_BT2_PERFETTO_PROTO_H
#define UST_BT2_PERFETTO_PROTO_H

#include <stdint.h>
#include <stdio.h>

#include "bt2plugin/protobuf.h"
#include "bt2plugin/ptrmap.h"

struct ust_pftrace {
	FILE *f;
	uint32_t nr_seqs;
	struct ust_pb pkt, msg, sub, sub2;	/* scratch, by nesting depth */
};

/* The packet sequence of one track. */
struct ust_pfseq {
	uint32_t id;			/* 0: not started */
	uint64_t uuid;
	int64_t last_ns;		/* the incremental clock's value */
	uint64_t nr_names;
	struct ust_ptrmap iids;		/* name pointer -> its iid */
};

enum ust_pf_type { UST_PF_BEGIN = 1, UST_PF_END = 2, UST_PF_INSTANT = 3 };

void ust_pftrace_init(struct ust_pftrace *t, FILE *f);
void ust_pftrace_fini(struct ust_pftrace *t);

/* A process track: uuid, pid and name; again with the same uuid renames it. */
int ust_pftrace_process(struct ust_pftrace *t, uint64_t uuid, int64_t pid, const char *name);

/*
 * Starts the sequence of a track: the track of thread tid of pid when name
 * is NULL, else a track called name under the process track parent. ns is
 * the clock's first value: the sequence's events must not come earlier
 * (they are written with absolute times if they do).
 */
int ust_pftrace_track(struct ust_pftrace *t, struct ust_pfseq *s, uint64_t uuid, uint64_t parent,
		      int64_t pid, int64_t tid, const char *name, int64_t ns);

/*
 * An event at ns on the track of s: a slice's begin or an instant, named
 * name (interned by pointer: name must stay valid and unchanged while s
 * lives), or the end of the innermost open slice (name unused).
 */
int ust_pftrace_event(struct ust_pftrace *t, struct ust_pfseq *s, enum ust_pf_type type,
		      const char *name, int64_t ns);

/* A slice from begin_ns to end_ns with a debug annotation key = value
 * unless key is NULL. */
int ust_pftrace_slice(struct ust_pftrace *t, struct ust_pfseq *s, const char *name,
		      int64_t begin_ns, int64_t end_ns, const char *key, uint64_t value);

void ust_pfseq_fini(struct ust_pfseq *s);

#endif
