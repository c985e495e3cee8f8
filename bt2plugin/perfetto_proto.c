/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Field numbers are those of protos/perfetto/trace/ in the Perfetto project
 * (trace.proto, trace_packet.proto, track_event/, clock_snapshot.proto,
 * interned_data/interned_data.proto). Perfetto's trace processor reads a
 * sequence's interned names only after a packet of the sequence said
 * SEQ_INCREMENTAL_STATE_CLEARED: the first packet of each sequence does.
 * The later packets omit SEQ_NEEDS_INCREMENTAL_STATE, which only asks the
 * reader to drop them when that state was lost: a file has no such gaps,
 * and the flag would cost 2 bytes a packet.
 */
#include <errno.h>
#include <stdlib.h>

#include "bt2plugin/perfetto_proto.h"

#define TRACE_PACKET			1

#define PACKET_TIMESTAMP		8
#define PACKET_TIMESTAMP_CLOCK_ID	58
#define PACKET_CLOCK_SNAPSHOT		6
#define PACKET_TRACK_EVENT		11
#define PACKET_TRACK_DESCRIPTOR		60
#define PACKET_SEQUENCE_ID		10
#define PACKET_INTERNED_DATA		12
#define PACKET_SEQUENCE_FLAGS		13
#define PACKET_DEFAULTS			59
#define SEQ_INCREMENTAL_STATE_CLEARED	1

#define DEFAULTS_TIMESTAMP_CLOCK_ID	58
#define DEFAULTS_TRACK_EVENT		11
#define TRACK_EVENT_DEFAULTS_TRACK	11

#define CLOCK_SNAPSHOT_CLOCK		1
#define CLOCK_SNAPSHOT_PRIMARY		2
#define CLOCK_ID			1
#define CLOCK_TIMESTAMP			2
#define CLOCK_IS_INCREMENTAL		3
/* The trace's times go out as Perfetto's default trace clock, BOOTTIME:
 * the reader then takes them as they are. */
#define CLOCK_BOOTTIME			6
/* Clock ids 64 to 127 belong to one sequence. */
#define CLOCK_SEQUENCE_DELTA		64

#define TRACK_UUID			1
#define TRACK_NAME			2
#define TRACK_PROCESS			3
#define TRACK_THREAD			4
#define TRACK_PARENT_UUID		5
#define PROCESS_PID			1
#define PROCESS_NAME			6
#define THREAD_PID			1
#define THREAD_TID			2

#define EVENT_TYPE			9
#define EVENT_NAME_IID			10
#define EVENT_NAME			23
#define EVENT_DEBUG_ANNOTATION		4
#define ANNOTATION_NAME			10
#define ANNOTATION_UINT			3

#define INTERNED_EVENT_NAMES		2
#define EVENT_NAME_ENTRY_IID		1
#define EVENT_NAME_ENTRY_NAME		2

void ust_pftrace_init(struct ust_pftrace *t, FILE *f)
{
	*t = (struct ust_pftrace){ .f = f };
}

void ust_pftrace_fini(struct ust_pftrace *t)
{
	ust_pb_fini(&t->pkt);
	ust_pb_fini(&t->msg);
	ust_pb_fini(&t->sub);
	ust_pb_fini(&t->sub2);
}

/* Writes t->pkt as the Trace's next packet. */
static int emit(struct ust_pftrace *t)
{
	struct ust_pb *bufs[] = { &t->msg, &t->sub, &t->sub2, &t->pkt };
	uint8_t head[12];
	size_t n = 0, len;
	int ret = 0;
	unsigned i;

	for (i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		if (ust_pb_check(bufs[i]) < 0)
			ret = -ENOMEM;
	if (ret < 0)
		return ret;
	head[n++] = TRACE_PACKET << 3 | 2;
	for (len = t->pkt.len; len >= 0x80; len >>= 7)
		head[n++] = (uint8_t)(len | 0x80);
	head[n++] = (uint8_t)len;
	fwrite_unlocked(head, 1, n, t->f);
	fwrite_unlocked(t->pkt.buf, 1, t->pkt.len, t->f);
	return 0;
}

static void scratch_reset(struct ust_pftrace *t)
{
	ust_pb_reset(&t->pkt);
	ust_pb_reset(&t->msg);
	ust_pb_reset(&t->sub);
	ust_pb_reset(&t->sub2);
}

int ust_pftrace_process(struct ust_pftrace *t, uint64_t uuid, int64_t pid, const char *name)
{
	scratch_reset(t);
	ust_pb_uint(&t->sub, PROCESS_PID, (uint64_t)pid);
	ust_pb_string(&t->sub, PROCESS_NAME, name);
	ust_pb_uint(&t->msg, TRACK_UUID, uuid);
	ust_pb_msg(&t->msg, TRACK_PROCESS, &t->sub);
	ust_pb_msg(&t->pkt, PACKET_TRACK_DESCRIPTOR, &t->msg);
	return emit(t);
}

int ust_pftrace_track(struct ust_pftrace *t, struct ust_pfseq *s, uint64_t uuid, uint64_t parent,
		      int64_t pid, int64_t tid, const char *name, int64_t ns)
{
	int ret;

	s->id = ++t->nr_seqs;
	s->uuid = uuid;
	s->last_ns = ns;
	/* The descriptor, the sequence's defaults and its fresh state. */
	scratch_reset(t);
	ust_pb_uint(&t->msg, TRACK_UUID, uuid);
	if (name) {
		ust_pb_uint(&t->msg, TRACK_PARENT_UUID, parent);
		ust_pb_string(&t->msg, TRACK_NAME, name);
	} else {
		ust_pb_uint(&t->sub, THREAD_PID, (uint64_t)pid);
		ust_pb_uint(&t->sub, THREAD_TID, (uint64_t)tid);
		ust_pb_msg(&t->msg, TRACK_THREAD, &t->sub);
	}
	ust_pb_msg(&t->pkt, PACKET_TRACK_DESCRIPTOR, &t->msg);
	ust_pb_reset(&t->msg);
	ust_pb_reset(&t->sub);
	ust_pb_uint(&t->sub, TRACK_EVENT_DEFAULTS_TRACK, uuid);
	ust_pb_uint(&t->msg, DEFAULTS_TIMESTAMP_CLOCK_ID, CLOCK_SEQUENCE_DELTA);
	ust_pb_msg(&t->msg, DEFAULTS_TRACK_EVENT, &t->sub);
	ust_pb_msg(&t->pkt, PACKET_DEFAULTS, &t->msg);
	ust_pb_uint(&t->pkt, PACKET_SEQUENCE_ID, s->id);
	ust_pb_uint(&t->pkt, PACKET_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	ret = emit(t);
	if (ret < 0)
		return ret;
	/* The incremental clock starts at ns, which is ns of the trace clock. */
	scratch_reset(t);
	ust_pb_uint(&t->sub, CLOCK_ID, CLOCK_BOOTTIME);
	ust_pb_uint(&t->sub, CLOCK_TIMESTAMP, (uint64_t)ns);
	ust_pb_msg(&t->msg, CLOCK_SNAPSHOT_CLOCK, &t->sub);
	ust_pb_reset(&t->sub);
	ust_pb_uint(&t->sub, CLOCK_ID, CLOCK_SEQUENCE_DELTA);
	ust_pb_uint(&t->sub, CLOCK_TIMESTAMP, (uint64_t)ns);
	ust_pb_uint(&t->sub, CLOCK_IS_INCREMENTAL, 1);
	ust_pb_msg(&t->msg, CLOCK_SNAPSHOT_CLOCK, &t->sub);
	ust_pb_uint(&t->msg, CLOCK_SNAPSHOT_PRIMARY, CLOCK_BOOTTIME);
	ust_pb_msg(&t->pkt, PACKET_CLOCK_SNAPSHOT, &t->msg);
	ust_pb_uint(&t->pkt, PACKET_SEQUENCE_ID, s->id);
	return emit(t);
}

/* The packet's time: a delta on the sequence's clock, or, for a time before
 * the clock's (deltas are unsigned), absolute on the trace clock. */
static void packet_time(struct ust_pftrace *t, struct ust_pfseq *s, int64_t ns)
{
	if (ns >= s->last_ns) {
		ust_pb_uint(&t->pkt, PACKET_TIMESTAMP, (uint64_t)(ns - s->last_ns));
		s->last_ns = ns;
		return;
	}
	ust_pb_uint(&t->pkt, PACKET_TIMESTAMP, (uint64_t)ns);
	ust_pb_uint(&t->pkt, PACKET_TIMESTAMP_CLOCK_ID, CLOCK_BOOTTIME);
}

/* The iid of name on s, interning it in this packet when new. */
static int name_iid(struct ust_pftrace *t, struct ust_pfseq *s, const char *name, uint64_t *iid)
{
	uintptr_t v = (uintptr_t)ust_ptrmap_get(&s->iids, (uintptr_t)name);
	int ret;

	if (v) {
		*iid = v;
		return 0;
	}
	ret = ust_ptrmap_put(&s->iids, (uintptr_t)name, (void *)(uintptr_t)(s->nr_names + 1));
	if (ret < 0)
		return ret;
	*iid = ++s->nr_names;
	ust_pb_uint(&t->sub, EVENT_NAME_ENTRY_IID, *iid);
	ust_pb_string(&t->sub, EVENT_NAME_ENTRY_NAME, name);
	ust_pb_msg(&t->msg, INTERNED_EVENT_NAMES, &t->sub);
	ust_pb_msg(&t->pkt, PACKET_INTERNED_DATA, &t->msg);
	ust_pb_reset(&t->msg);
	return 0;
}

int ust_pftrace_event(struct ust_pftrace *t, struct ust_pfseq *s, enum ust_pf_type type,
		      const char *name, int64_t ns)
{
	uint64_t iid = 0;
	int ret;

	scratch_reset(t);
	if (type != UST_PF_END) {
		ret = name_iid(t, s, name, &iid);
		if (ret < 0)
			return ret;
	}
	packet_time(t, s, ns);
	ust_pb_uint(&t->msg, EVENT_TYPE, type);
	if (iid)
		ust_pb_uint(&t->msg, EVENT_NAME_IID, iid);
	ust_pb_msg(&t->pkt, PACKET_TRACK_EVENT, &t->msg);
	ust_pb_uint(&t->pkt, PACKET_SEQUENCE_ID, s->id);
	return emit(t);
}

/* One packet of a slice: absolute times, as its begin may precede the
 * sequence's last time. */
static int slice_packet(struct ust_pftrace *t, struct ust_pfseq *s, enum ust_pf_type type,
			const char *name, int64_t ns, const char *key, uint64_t value)
{
	scratch_reset(t);
	ust_pb_uint(&t->pkt, PACKET_TIMESTAMP, (uint64_t)ns);
	ust_pb_uint(&t->pkt, PACKET_TIMESTAMP_CLOCK_ID, CLOCK_BOOTTIME);
	ust_pb_uint(&t->msg, EVENT_TYPE, type);
	if (name)
		ust_pb_string(&t->msg, EVENT_NAME, name);
	if (key) {
		ust_pb_string(&t->sub, ANNOTATION_NAME, key);
		ust_pb_uint(&t->sub, ANNOTATION_UINT, value);
		ust_pb_msg(&t->msg, EVENT_DEBUG_ANNOTATION, &t->sub);
	}
	ust_pb_msg(&t->pkt, PACKET_TRACK_EVENT, &t->msg);
	ust_pb_uint(&t->pkt, PACKET_SEQUENCE_ID, s->id);
	return emit(t);
}

int ust_pftrace_slice(struct ust_pftrace *t, struct ust_pfseq *s, const char *name,
		      int64_t begin_ns, int64_t end_ns, const char *key, uint64_t value)
{
	int ret = slice_packet(t, s, UST_PF_BEGIN, name, begin_ns, key, value);

	return ret < 0 ? ret : slice_packet(t, s, UST_PF_END, NULL, end_ns, NULL, 0);
}

void ust_pfseq_fini(struct ust_pfseq *s)
{
	ust_ptrmap_fini(&s->iids, NULL);
}
