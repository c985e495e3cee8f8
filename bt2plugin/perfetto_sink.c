/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Mapping (manual 8.6): one process per traced process,
 * one track per thread where the events carry vtid, else one per CPU;
 * every event once, as a span begin ("B"), a span end ("E") or an instant
 * ("i") with its fields as args (payload members named as they are, but
 * for a leading '$' doubled, so that "$ctx" and "$ectx", the contexts,
 * never collide with one); numeric fields named counter_* also as counter
 * samples ("C"); discarded events as spans on tracks of their own, per
 * stream, where they never overlap (bt2plugin/discarded.h).
 * Function events (func_names.h) are spans named after the function, in
 * category "func", an exit closing the innermost open span when it is
 * that function's; the statedump events that name them are instants.
 * The JSON goes out as messages arrive: memory holds one entry per event
 * class and per track, never per event.
 * With format=proto (the default for a path ending in .pftrace or
 * .perfetto-trace), the same tracks, spans and instants go out in Perfetto's
 * own format (perfetto_proto.h) instead, named but without args or
 * counters: a compact file for long function traces.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bt2plugin/discarded.h"
#include "bt2plugin/event_ids.h"
#include "bt2plugin/func_names.h"
#include "bt2plugin/func_stream.h"
#include "bt2plugin/json.h"
#include "bt2plugin/perfetto_proto.h"
#include "bt2plugin/ptrmap.h"
#include "bt2plugin/perfetto_sink.h"
#include "bt2plugin/sink.h"

/* Tracks of events without a thread: one per CPU, numbered above any tid. */
#define CPU_TRACK_BASE		0x40000000
/* Tracks of discarded ranges: numbered down from here, one per lane. */
#define DISCARDED_TRACK		0x7ffffffe
/* Deeper nesting is still written; only the end's check is skipped. */
#define SPAN_DEPTH_MAX		256
#define COUNTER_PREFIX		"counter_"

enum ev_kind { EV_INSTANT, EV_BEGIN, EV_END };

struct ev_class {
	enum ev_kind kind;
	enum ust_func_kind func;
	char *name;			/* event name; for spans without the suffix */
	char *full;			/* event name */
	/* Written once per class, so that an event costs its numbers only:
	 * `,"name":...,"cat":...,"pid":` as a span and as an instant. */
	char *head_span, *head_instant;
	uint64_t nr_members;
	char **keys;			/* `"member":` of each payload member */
	uint64_t nr_counters;
	uint64_t *counters;		/* payload member indexes */
};

/* A process named once: after its events' procname context when they
 * carry one (ctx_named), else after its trace. */
struct proc {
	bool ctx_named;
};

struct track {
	int64_t pid, tid;
	struct proc *proc;
	unsigned depth;
	const char *open[SPAN_DEPTH_MAX];	/* ev_class names of open spans */
	struct ust_pfseq seq;			/* format=proto */
};

struct perfetto {
	struct ust_sink sink;
	struct ust_out out;
	struct ust_ids_cache ids;
	struct ust_ptrmap classes;	/* bt_event_class * -> struct ev_class */
	struct ust_ptrmap tracks;	/* track key -> struct track */
	struct ust_ptrmap procs;	/* pid key -> struct proc */
	struct ust_lanes lanes;
	struct ust_func_names funcs;
	bool proto;			/* format=proto: pf, else JSON */
	struct ust_pftrace pf;
	struct ust_func_streams func_streams;
	int64_t last_ns;
	/* Times are written relative to the first one: a JSON reader parses
	 * them as doubles, which hold microseconds since 1970 only to about
	 * a quarter of a microsecond. */
	int64_t origin_ns;
	bool have_origin;
	uint64_t events, discarded, suspect;
	bool any;			/* an element was written: next needs a comma */
};

static void ev_class_free(void *p)
{
	struct ev_class *c = p;
	uint64_t i;

	for (i = 0; c->keys && i < c->nr_members; i++)
		free(c->keys[i]);
	free(c->keys);
	free(c->head_span);
	free(c->head_instant);
	free(c->name);
	free(c->full);
	free(c->counters);
	free(c);
}

/* The JSON text of prefix, string s (escaped), suffix; NULL without memory. */
static char *json_text(const char *prefix, const char *s, const char *suffix)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fputs_unlocked(prefix, f);
	ust_json_string(f, s);
	fputs_unlocked(suffix, f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static bool has_suffix(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len > n && !memcmp(s + len - n, suffix, n);
}

/* `"NAME":` of a payload member, with a leading '$' doubled: keys with one
 * '$' are the sink's own. */
static char *payload_key(const char *comma, const char *name)
{
	char *dollar, *key;

	if (name[0] != '$')
		return json_text(comma, name, ":");
	if (asprintf(&dollar, "$%s", name) < 0)
		return NULL;
	key = json_text(comma, dollar, ":");
	free(dollar);
	return key;
}

static struct ev_class *ev_class_new(const bt_event_class *ec)
{
	static const char *const begins[] = { "_begin", "_entry" };
	static const char *const ends[] = { "_end", "_exit" };
	const bt_field_class *payload = bt_event_class_borrow_payload_field_class_const(ec);
	const char *name = bt_event_class_get_name(ec);
	struct ev_class *c = calloc(1, sizeof(*c));
	size_t len, i;
	uint64_t n, k;

	if (!c)
		return NULL;
	name = name ? name : "(unnamed)";
	len = strlen(name);
	c->name = strdup(name);
	c->full = strdup(name);
	if (!c->name || !c->full)
		goto fail;
	for (i = 0; i < 2; i++) {
		if (has_suffix(name, len, begins[i])) {
			c->kind = EV_BEGIN;
			c->name[len - strlen(begins[i])] = '\0';
		} else if (has_suffix(name, len, ends[i])) {
			c->kind = EV_END;
			c->name[len - strlen(ends[i])] = '\0';
		}
	}
	c->func = ust_func_kind_of(ec);
	c->head_span = json_text("\",\"name\":", c->name, ",\"cat\":\"span\",\"pid\":");
	c->head_instant = json_text("\",\"name\":", name, ",\"cat\":\"event\",\"pid\":");
	n = payload ? bt_field_class_structure_get_member_count(payload) : 0;
	c->nr_members = n;
	c->counters = calloc(n ? n : 1, sizeof(*c->counters));
	c->keys = calloc(n ? n : 1, sizeof(*c->keys));
	if (!c->head_span || !c->head_instant || !c->counters || !c->keys)
		goto fail;
	for (k = 0; k < n; k++) {
		const bt_field_class_structure_member *m =
			bt_field_class_structure_borrow_member_by_index_const(payload, k);
		bt_field_class_type t = bt_field_class_get_type(
			bt_field_class_structure_member_borrow_field_class_const(m));

		c->keys[k] = payload_key(k ? "," : "", bt_field_class_structure_member_get_name(m));
		if (!c->keys[k])
			goto fail;

		if (strncmp(bt_field_class_structure_member_get_name(m), COUNTER_PREFIX,
			    strlen(COUNTER_PREFIX)))
			continue;
		if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_INTEGER) ||
		    bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_REAL))
			c->counters[c->nr_counters++] = k;
	}
	return c;
fail:
	ev_class_free(c);
	return NULL;
}

static void element_start(struct perfetto *p)
{
	if (p->any)
		fputs_unlocked(",\n", p->out.f);
	p->any = true;
}

static void meta_name(struct perfetto *p, const char *what, int64_t pid, int64_t tid,
		      const char *name)
{
	element_start(p);
	fprintf(p->out.f, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%" PRId64 ",\"tid\":%" PRId64
		",\"args\":{\"name\":", what, pid, tid);
	ust_json_string(p->out.f, name);
	fputs_unlocked("}}", p->out.f);
}

/* Process tracks are numbered apart from the thread tracks (track_key()). */
static uint64_t proc_uuid(int64_t pid)
{
	return ((uint64_t)1 << 62) | (uint32_t)pid;
}

static int name_process(struct perfetto *p, int64_t pid, const char *name)
{
	if (p->proto)
		return ust_pftrace_process(&p->pf, proc_uuid(pid), pid, name);
	meta_name(p, "process_name", pid, 0, name);
	return 0;
}

/*
 * The process of pid, named on first use after the procname context of its
 * event when there is one and the pid is known (several processes share
 * pid 0 when it is not), else after its trace (ust_trace_procname()).
 */
static struct proc *proc_get(struct perfetto *p, int64_t pid, const bt_trace *trace,
			     const char *procname)
{
	uintptr_t key = ((uintptr_t)1 << 63) | (uint32_t)pid;
	struct proc *pr = ust_ptrmap_get(&p->procs, key);

	if (pr)
		return pr;
	pr = calloc(1, sizeof(*pr));
	if (!pr || ust_ptrmap_put(&p->procs, key, pr) < 0) {
		free(pr);
		return NULL;
	}
	pr->ctx_named = procname != NULL;
	if (!procname)
		procname = ust_trace_procname(trace);
	if (name_process(p, pid, procname ? procname : "trace") < 0)
		return NULL;
	return pr;
}

static uintptr_t track_key(int64_t pid, int64_t tid)
{
	return ((uintptr_t)1 << 63) | ((uintptr_t)(pid & 0x7fffffff) << 32) | (uint32_t)tid;
}

static void track_free(void *data)
{
	struct track *t = data;

	ust_pfseq_fini(&t->seq);
	free(t);
}

/* The track, created (and named) on first use; ns: the time of its first
 * event, where its proto sequence's clock starts. */
static struct track *track_get(struct perfetto *p, int64_t pid, int64_t tid,
			       const bt_trace *trace, const char *procname, const char *name,
			       int64_t ns)
{
	uintptr_t key = track_key(pid, tid);
	struct track *t = ust_ptrmap_get(&p->tracks, key);
	struct proc *pr;

	if (t)
		return t;
	pr = proc_get(p, pid, trace, procname);
	if (!pr)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t || ust_ptrmap_put(&p->tracks, key, t) < 0) {
		free(t);
		return NULL;
	}
	t->pid = pid;
	t->tid = tid;
	t->proc = pr;
	if (p->proto) {
		if (ust_pftrace_track(&p->pf, &t->seq, key, proc_uuid(pid), pid, tid, name, ns) < 0)
			return NULL;
	} else if (name) {
		meta_name(p, "thread_name", pid, tid, name);
	}
	return t;
}

static struct track *track_of(struct perfetto *p, const struct ust_event_ids *ids,
			      const bt_trace *trace, int64_t ns)
{
	int64_t pid = ids->pid == UST_ID_UNKNOWN ? 0 : ids->pid;
	int64_t tid = ids->tid != UST_ID_UNKNOWN ? ids->tid :
		      ids->cpu != UST_ID_UNKNOWN ? CPU_TRACK_BASE + ids->cpu : 0;
	const char *procname = ids->pid == UST_ID_UNKNOWN ? NULL : ids->procname;
	struct track *t;
	char name[32];

	if (ids->tid != UST_ID_UNKNOWN || ids->cpu == UST_ID_UNKNOWN) {
		t = track_get(p, pid, tid, trace, procname, NULL, ns);
	} else {
		snprintf(name, sizeof(name), "CPU %" PRId64, ids->cpu);
		t = track_get(p, pid, tid, trace, procname, name, ns);
	}
	/* The process got its name from a track without events (losses)
	 * before any of its events told its procname. */
	if (t && procname && !t->proc->ctx_named) {
		t->proc->ctx_named = true;
		if (name_process(p, pid, procname) < 0)
			return NULL;
	}
	return t;
}

/*
 * The phase of a function event named *name (ust_func_names_get()). An
 * exit that names no function (*name NULL: libust-func's) closes the
 * innermost open call, and takes its name; without one it is an instant.
 */
static const char *func_ph_of(struct track *t, const struct ev_class *c, const char **name)
{
	if (c->func == UST_FUNC_ENTRY) {
		if (t->depth < SPAN_DEPTH_MAX)
			t->open[t->depth] = *name;
		t->depth++;
		return "B";
	}
	if (t->depth > 0 && (t->depth > SPAN_DEPTH_MAX || !*name ||
			     !strcmp(t->open[t->depth - 1], *name))) {
		if (!*name && t->depth <= SPAN_DEPTH_MAX)
			*name = t->open[t->depth - 1];
		t->depth--;
		return "E";
	}
	return "i";
}

static const char *ph_of(struct track *t, const struct ev_class *c)
{
	if (c->kind == EV_BEGIN) {
		if (t->depth < SPAN_DEPTH_MAX)
			t->open[t->depth] = c->name;
		t->depth++;
		return "B";
	}
	/* An end closes the innermost open span; one that does not match it
	 * (or comes without a begin) stays visible as an instant. */
	if (c->kind == EV_END && t->depth > 0 &&
	    (t->depth > SPAN_DEPTH_MAX || !strcmp(t->open[t->depth - 1], c->name))) {
		t->depth--;
		return "E";
	}
	return "i";
}

/* `PID,"tid":TID,"ts":TS`: the rest of an element's head. */
static void write_ids_ts(struct perfetto *p, int64_t pid, int64_t tid, int64_t ns)
{
	FILE *f = p->out.f;

	ust_json_i64(f, pid);
	fputs_unlocked(",\"tid\":", f);
	ust_json_i64(f, tid);
	fputs_unlocked(",\"ts\":", f);
	if (!p->have_origin) {
		p->origin_ns = ns;
		p->have_origin = true;
	}
	ust_json_us(f, ns - p->origin_ns);
}

static void write_head(struct perfetto *p, const char *ph, const char *name, const char *cat,
		       int64_t pid, int64_t tid, int64_t ns)
{
	FILE *f = p->out.f;

	element_start(p);
	fprintf(f, "{\"ph\":\"%s\",\"name\":", ph);
	ust_json_string(f, name);
	fprintf(f, ",\"cat\":\"%s\",\"pid\":", cat);
	write_ids_ts(p, pid, tid, ns);
}

static void write_counters(struct perfetto *p, const struct ev_class *c, const bt_field *payload,
			   int64_t pid, int64_t ns)
{
	const bt_field_class *fc = bt_field_borrow_class_const(payload);
	uint64_t i;

	for (i = 0; i < c->nr_counters; i++) {
		const char *name = bt_field_class_structure_member_get_name(
			bt_field_class_structure_borrow_member_by_index_const(fc, c->counters[i]));

		write_head(p, "C", name + strlen(COUNTER_PREFIX), "counter", pid, 0, ns);
		fputs_unlocked(",\"args\":{\"value\":", p->out.f);
		ust_json_field(p->out.f,
			bt_field_structure_borrow_member_field_by_index_const(payload, c->counters[i]));
		fputs_unlocked("}}", p->out.f);
	}
}

static int64_t msg_ns(struct perfetto *p, const bt_clock_snapshot *cs)
{
	int64_t ns;

	if (cs && bt_clock_snapshot_get_ns_from_origin(cs, &ns) ==
		  BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK)
		p->last_ns = ns;
	return p->last_ns;
}

/* An event in Perfetto's format: its phase and name only. */
static int proto_event(struct perfetto *p, struct track *t, const char *ph, const char *name,
		       int64_t ns)
{
	enum ust_pf_type type = ph[0] == 'B' ? UST_PF_BEGIN : ph[0] == 'E' ? UST_PF_END :
				UST_PF_INSTANT;

	p->events++;
	return ust_pftrace_event(&p->pf, &t->seq, type, name, ns);
}

static int on_event(struct perfetto *p, const bt_message *msg)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	const bt_event_class *ec = bt_event_borrow_class_const(ev);
	const bt_stream *stream = bt_event_borrow_stream_const(ev);
	const bt_field *payload = bt_event_borrow_payload_field_const(ev);
	const bt_field *common = bt_event_borrow_common_context_field_const(ev);
	const bt_field *specific = bt_event_borrow_specific_context_field_const(ev);
	struct ev_class *c = ust_ptrmap_get(&p->classes, (uintptr_t)ec);
	struct ust_event_ids ids;
	struct ust_func_call call;
	struct track *t;
	const char *ph;
	int64_t ns = p->last_ns;
	uint64_t i;
	int ret;

	if (!c) {
		c = ev_class_new(ec);
		if (!c)
			return -ENOMEM;
		ret = ust_ptrmap_put(&p->classes, (uintptr_t)ec, c);
		if (ret < 0) {
			ev_class_free(c);
			return ret;
		}
	}
	if (bt_stream_class_borrow_default_clock_class_const(bt_stream_borrow_class_const(stream)))
		ns = msg_ns(p, bt_message_event_borrow_default_clock_snapshot_const(msg));
	ret = ust_event_ids_get(&p->ids, ev, &ids);
	if (ret < 0)
		return ret;
	if (c->func == UST_FUNC_ENTRY || c->func == UST_FUNC_EXIT) {
		const bt_clock_snapshot *cs = bt_stream_class_borrow_default_clock_class_const(
			bt_stream_borrow_class_const(stream)) ?
			bt_message_event_borrow_default_clock_snapshot_const(msg) : NULL;

		ret = ust_func_stream_decode(&p->func_streams, ev, cs, ns, ids.tid, &call);
		if (ret < 0)
			return ret;
		ids.tid = call.tid;
	}
	t = track_of(p, &ids, bt_stream_borrow_trace_const(stream), ns);
	if (!t)
		return -ENOMEM;
	if (c->func == UST_FUNC_BIN_INFO || c->func == UST_FUNC_BUILD_ID ||
	    c->func == UST_FUNC_PLT_BIND) {
		ret = ust_func_names_add(&p->funcs, t->pid, c->func, payload);
		if (ret < 0)
			return ret;
	}
	if (c->func == UST_FUNC_ENTRY || c->func == UST_FUNC_EXIT) {
		const char *fname = NULL;

		if (call.has_addr) {
			fname = ust_func_names_get(&p->funcs, t->pid, call.addr);
			if (!fname)
				return -ENOMEM;
		}
		ph = func_ph_of(t, c, &fname);
		if (!fname)
			fname = bt_event_class_get_name(ec);
		if (p->proto)
			return proto_event(p, t, ph, ph[0] == 'i' ? c->full : fname,
					   ph[0] == 'i' ? ns : call.ns);
		if (ph[0] == 'i')
			write_head(p, ph, bt_event_class_get_name(ec), "event", t->pid, t->tid, ns);
		else
			write_head(p, ph, fname, "func", t->pid, t->tid, call.ns);
	} else {
		ph = ph_of(t, c);
		if (p->proto)
			return proto_event(p, t, ph, ph[0] == 'i' ? c->full : c->name, ns);
		element_start(p);
		fputs_unlocked("{\"ph\":\"", p->out.f);
		fputs_unlocked(ph, p->out.f);
		fputs_unlocked(ph[0] == 'i' ? c->head_instant : c->head_span, p->out.f);
		write_ids_ts(p, t->pid, t->tid, ns);
	}
	fputs_unlocked(ph[0] == 'i' ? ",\"s\":\"t\",\"args\":{" : ",\"args\":{", p->out.f);
	for (i = 0; i < c->nr_members; i++) {
		fputs_unlocked(c->keys[i], p->out.f);
		ust_json_field(p->out.f, bt_field_structure_borrow_member_field_by_index_const(payload, i));
	}
	ret = c->nr_members > 0;
	/* Two objects: the stream's and the event's contexts may have a
	 * member of the same name. */
	if (common) {
		fputs_unlocked(ret ? ",\"$ctx\":{" : "\"$ctx\":{", p->out.f);
		ust_json_members(p->out.f, common, 0);
		putc_unlocked('}', p->out.f);
		ret = 1;
	}
	if (specific) {
		fputs_unlocked(ret ? ",\"$ectx\":{" : "\"$ectx\":{", p->out.f);
		ust_json_members(p->out.f, specific, 0);
		putc_unlocked('}', p->out.f);
	}
	fputs_unlocked("}}", p->out.f);
	if (c->nr_counters)
		write_counters(p, c, payload, t->pid, ns);
	p->events++;
	return 0;
}

/* A span over the range the loss happened in, on a lane of its stream
 * (one track per stream unless its ranges overlap), in the process of the
 * trace, so that holes in the timeline are not mistaken for idleness. */
static int on_discarded(struct perfetto *p, const bt_message *msg)
{
	const bt_trace *trace;
	struct ust_discarded d;
	struct track *t;
	int64_t pid, tid;
	unsigned lane;
	char name[64];
	int ret;

	ust_discarded_read(msg, &d);
	trace = bt_stream_borrow_trace_const(d.stream);
	if (d.have_times) {
		/* A range that ends before it begins is drawn as an instant. */
		if (d.end_ns < d.begin_ns)
			d.end_ns = d.begin_ns;
		p->last_ns = d.end_ns;
	} else {
		d.begin_ns = d.end_ns = p->last_ns;
	}
	pid = ust_trace_pid(trace);
	pid = pid == UST_ID_UNKNOWN ? 0 : pid;
	ret = ust_lanes_place(&p->lanes, d.stream, d.begin_ns, d.end_ns, &tid, &lane);
	if (ret < 0)
		return ret;
	if (lane)
		snprintf(name, sizeof(name), "events discarded, stream %" PRIu64 " (%u)",
			 bt_stream_get_id(d.stream), lane + 1);
	else
		snprintf(name, sizeof(name), "events discarded, stream %" PRIu64,
			 bt_stream_get_id(d.stream));
	t = track_get(p, pid, tid, trace, NULL, name, d.begin_ns);
	if (!t)
		return -ENOMEM;
	if (d.suspect)
		p->suspect++;
	else if (!d.packets)
		p->discarded += d.count;
	if (p->proto)
		return ust_pftrace_slice(&p->pf, &t->seq, d.packets ? "packets discarded" :
					 "events discarded", d.begin_ns, d.end_ns,
					 d.have_count && !d.suspect ? "count" : NULL, d.count);
	write_head(p, "X", d.packets ? "packets discarded" : "events discarded", "discarded",
		   pid, tid, d.begin_ns);
	fputs_unlocked(",\"dur\":", p->out.f);
	ust_json_us(p->out.f, d.end_ns - d.begin_ns);
	fputs_unlocked(",\"args\":{\"count\":", p->out.f);
	if (d.have_count && !d.suspect)
		ust_json_u64(p->out.f, d.count);
	else
		fputs_unlocked("null", p->out.f);
	/* As a string: JavaScript's numbers would round it. */
	if (d.suspect)
		fprintf(p->out.f, ",\"suspect_count\":\"%" PRIu64 "\"", d.count);
	fprintf(p->out.f, ",\"stream\":%" PRIu64 "}}", bt_stream_get_id(d.stream));
	return 0;
}

static int on_msg(void *data, const bt_message *msg)
{
	struct perfetto *p = data;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		return on_event(p, msg);
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return on_discarded(p, msg);
	case BT_MESSAGE_TYPE_STREAM_END:
		ust_lanes_stream_end(&p->lanes, bt_message_stream_end_borrow_stream_const(msg));
		return 0;
	default:
		return 0;
	}
}

bt_component_class_initialize_method_status
ust_perfetto_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
		  const bt_value *params, void *init_data)
{
	static const char *const allowed[] = { "path", "format", NULL };
	bt_component_class_initialize_method_status status;
	struct perfetto *p = calloc(1, sizeof(*p));
	const char *path, *format;
	int ret;

	(void)config;
	(void)init_data;
	if (!p)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	status = ust_sink_init(&p->sink, self, on_msg, p);
	if (status != BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK)
		goto end;
	status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	if (ust_sink_check_params(&p->sink, params, allowed) < 0)
		goto end;
	path = ust_sink_param(params, "path");
	if (!path || !*path) {
		ust_sink_error(&p->sink, "missing parameter `path`: the file to write, e.g. -p 'path=\"trace.json\"'");
		goto end;
	}
	format = ust_sink_param(params, "format");
	if (!format)
		format = has_suffix(path, strlen(path), ".pftrace") ||
			 has_suffix(path, strlen(path), ".perfetto-trace") ? "proto" : "json";
	if (strcmp(format, "json") && strcmp(format, "proto")) {
		ust_sink_error(&p->sink, "parameter `format`: \"%s\" is neither \"json\" nor \"proto\"",
			       format);
		goto end;
	}
	p->proto = !strcmp(format, "proto");
	ret = ust_out_open(&p->out, path);
	if (ret < 0) {
		ust_sink_error(&p->sink, "cannot create %s: %s", path, strerror(-ret));
		goto end;
	}
	ust_lanes_init(&p->lanes, DISCARDED_TRACK);
	if (p->proto)
		ust_pftrace_init(&p->pf, p->out.f);
	else
		fputs_unlocked("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", p->out.f);
	bt_self_component_set_data(p->sink.self, p);
	status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
end:
	if (status != BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK)
		free(p);
	return status;
}

bt_component_class_sink_graph_is_configured_method_status
ust_perfetto_graph_is_configured(bt_self_component_sink *self)
{
	struct perfetto *p = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));

	return ust_sink_graph_is_configured(&p->sink, self);
}

bt_component_class_sink_consume_method_status ust_perfetto_consume(bt_self_component_sink *self)
{
	struct perfetto *p = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
	bt_component_class_sink_consume_method_status status = ust_sink_consume(&p->sink);
	int ret;

	if (status != BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END)
		return status;
	/* The counts let a reader check that nothing was cut off. */
	if (!p->proto)
		fprintf(p->out.f, "\n],\"otherData\":{\"producer\":\"sink.ust.perfetto\",\"events\":%"
			PRIu64 ",\"events_discarded\":%" PRIu64 ",\"discarded_suspect\":%" PRIu64
			",\"origin_ns\":%" PRId64 "}}\n", p->events, p->discarded, p->suspect,
			p->origin_ns);
	ret = ust_out_commit(&p->out);
	if (ret < 0) {
		ust_sink_error(&p->sink, "writing the %s file: %s", p->proto ? "Perfetto" : "JSON",
			       strerror(-ret));
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	return status;
}

void ust_perfetto_finalize(bt_self_component_sink *self)
{
	struct perfetto *p = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));

	if (!p)
		return;
	/* Still open here means the graph did not end: nothing partial stays. */
	ust_out_abort(&p->out);
	ust_sink_fini(&p->sink);
	ust_ids_cache_fini(&p->ids);
	ust_ptrmap_fini(&p->classes, ev_class_free);
	ust_ptrmap_fini(&p->tracks, track_free);
	ust_ptrmap_fini(&p->procs, free);
	ust_lanes_fini(&p->lanes);
	ust_func_names_fini(&p->funcs);
	ust_pftrace_fini(&p->pf);
	ust_func_streams_fini(&p->func_streams);
	free(p);
}
