/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Counts as messages arrive, prints at the end: memory holds one entry per
 * event class, event name, CPU, process and thread, never per event. Event
 * rows are per name, whatever the number of traces (each has its own
 * classes): a directory of per-PID traces gives one row per name. Traced
 * functions make a profile of their own (func_profile.h), with the options
 * of uftrace's report and graph (func_opts.h).
 * Spans keep their durations, for exact percentiles (span_stats.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>

#include "bt2plugin/discarded.h"
#include "bt2plugin/event_ids.h"
#include "bt2plugin/func_profile.h"
#include "bt2plugin/ptrmap.h"
#include "bt2plugin/sink.h"
#include "bt2plugin/span_stats.h"
#include "bt2plugin/summary_print.h"
#include "bt2plugin/summary_sink.h"

struct summary {
	struct ust_sink sink;
	struct ust_out out;
	bool xml;
	struct ust_ids_cache ids;
	struct ust_ptrmap by_class;	/* bt_event_class * -> row of by_name */
	struct ust_ptrmap by_name;	/* name hash -> struct ust_sum_row, chained */
	struct ust_ptrmap by_proc;	/* pid key -> struct ust_sum_row */
	struct ust_ptrmap by_cpu;	/* cpu key -> struct ust_sum_row */
	struct ust_ptrmap by_thread;	/* (pid, tid) key -> struct ust_sum_row */
	struct ust_ptrmap func_kinds;	/* bt_event_class * -> ust_func_kind + 1 */
	struct ust_func_profile prof;
	struct ust_func_streams func_streams;
	struct ust_span_stats spans;
	struct ust_sum_totals totals;
};

static int func_event(struct summary *s, const bt_event *ev, const bt_clock_snapshot *cs,
		      const struct ust_event_ids *ids, int64_t ns)
{
	const bt_event_class *ec = bt_event_borrow_class_const(ev);
	uintptr_t kind = (uintptr_t)ust_ptrmap_get(&s->func_kinds, (uintptr_t)ec);
	struct ust_func_call call;

	if (!kind) {
		kind = ust_func_kind_of(ec) + 1;
		if (ust_ptrmap_put(&s->func_kinds, (uintptr_t)ec, (void *)kind) < 0)
			return -ENOMEM;
	}
	if (kind == UST_FUNC_NONE + 1)
		return 0;
	if ((kind == UST_FUNC_ENTRY + 1 || kind == UST_FUNC_EXIT + 1) &&
	    ust_func_stream_decode(&s->func_streams, ev, cs, ns, ids->tid, &call) < 0)
		return -ENOMEM;
	return ust_func_profile_event(&s->prof, (enum ust_func_kind)(kind - 1),
				      ids->pid == UST_ID_UNKNOWN ? 0 : ids->pid, &call,
				      bt_event_borrow_payload_field_const(ev));
}

static struct ust_sum_row *row_get(struct ust_ptrmap *m, uintptr_t key)
{
	struct ust_sum_row *r = ust_ptrmap_get(m, key);

	if (r)
		return r;
	r = calloc(1, sizeof(*r));
	if (!r || ust_ptrmap_put(m, key, r) < 0) {
		free(r);
		return NULL;
	}
	return r;
}

static uintptr_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return (uintptr_t)(h | (UINT64_C(1) << 63));
}

/* The row of the event name of ec, shared by the classes of that name of
 * every trace; looked up by name once per class. */
static struct ust_sum_row *name_row(struct summary *s, const bt_event_class *ec)
{
	struct ust_sum_row *r = ust_ptrmap_get(&s->by_class, (uintptr_t)ec), *head;
	const char *name;
	uintptr_t key;

	if (r)
		return r;
	name = bt_event_class_get_name(ec);
	name = name ? name : "(unnamed)";
	key = name_hash(name);
	head = ust_ptrmap_get(&s->by_name, key);
	for (r = head; r && strcmp(r->name, name); r = r->next)
		;
	if (!r) {
		r = calloc(1, sizeof(*r));
		if (!r)
			return NULL;
		r->name = strdup(name);
		if (!r->name || (!head && ust_ptrmap_put(&s->by_name, key, r) < 0)) {
			free(r->name);
			free(r);
			return NULL;
		}
		if (head) {
			r->next = head->next;
			head->next = r;
		}
	}
	if (ust_ptrmap_put(&s->by_class, (uintptr_t)ec, r) < 0)
		return NULL;
	return r;
}

static void name_rows_free(void *p)
{
	struct ust_sum_row *r = p, *next;

	for (; r; r = next) {
		next = r->next;
		free(r->name);
		free(r);
	}
}

/* The process row of ids, named after the events' procname when they have
 * one and the pid is known, else after the trace. */
static struct ust_sum_row *proc_row(struct summary *s, const struct ust_event_ids *ids,
				    const bt_trace *trace)
{
	int64_t pid = ids->pid == UST_ID_UNKNOWN ? 0 : ids->pid;
	struct ust_sum_row *r = row_get(&s->by_proc, ((uintptr_t)1 << 63) | (uint32_t)pid);
	const char *name;

	if (!r || r->name)
		return r;
	name = ids->pid != UST_ID_UNKNOWN && ids->procname ? ids->procname :
	       ust_trace_procname(trace);
	r->pid = pid;
	r->name = strdup(name ? name : "trace");
	return r->name ? r : NULL;
}

static void row_free(void *p)
{
	struct ust_sum_row *r = p;

	free(r->name);
	free(r);
}

static void row_count(struct ust_sum_row *r, int64_t ns)
{
	if (!r->count++)
		r->first_ns = ns;
	r->last_ns = ns;
}

static int on_event(struct summary *s, const bt_message *msg)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	const bt_event_class *ec = bt_event_borrow_class_const(ev);
	const bt_stream *stream = bt_event_borrow_stream_const(ev);
	struct ust_sum_totals *t = &s->totals;
	struct ust_event_ids ids;
	struct ust_sum_row *r;
	int64_t ns = t->last_ns;
	int ret;

	if (bt_stream_class_borrow_default_clock_class_const(bt_stream_borrow_class_const(stream)) &&
	    bt_clock_snapshot_get_ns_from_origin(bt_message_event_borrow_default_clock_snapshot_const(msg),
						 &ns) != BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK)
		ns = t->last_ns;
	if (!t->events++)
		t->first_ns = ns;
	t->last_ns = ns;
	r = name_row(s, ec);
	if (!r)
		return -ENOMEM;
	row_count(r, ns);
	ret = ust_event_ids_get(&s->ids, ev, &ids);
	if (ret < 0)
		return ret;
	r = proc_row(s, &ids, bt_stream_borrow_trace_const(stream));
	if (!r)
		return -ENOMEM;
	row_count(r, ns);
	if (ids.cpu != UST_ID_UNKNOWN) {
		r = row_get(&s->by_cpu, ((uintptr_t)1 << 63) | (uint32_t)ids.cpu);
		if (!r)
			return -ENOMEM;
		r->cpu = ids.cpu;
		row_count(r, ns);
	}
	/* Spans pair on the tracks of sink.ust.perfetto: per thread, else per CPU. */
	ret = ust_span_stats_event(&s->spans, ec, ((uintptr_t)1 << 63) |
				   ((uintptr_t)((ids.pid == UST_ID_UNKNOWN ? 0 : ids.pid) & 0x7fffffff) << 32) |
				   (ids.tid != UST_ID_UNKNOWN ? (uint32_t)ids.tid :
				    ids.cpu != UST_ID_UNKNOWN ? 0x40000000u + (uint32_t)ids.cpu : 0), ns);
	if (ret < 0)
		return ret;
	if (ids.tid != UST_ID_UNKNOWN) {
		int64_t pid = ids.pid == UST_ID_UNKNOWN ? 0 : ids.pid;

		r = row_get(&s->by_thread, ((uintptr_t)1 << 63) |
			    ((uintptr_t)(pid & 0x7fffffff) << 32) | (uint32_t)ids.tid);
		if (!r)
			return -ENOMEM;
		r->pid = pid;
		r->tid = ids.tid;
		row_count(r, ns);
	}
	return func_event(s, ev, bt_stream_class_borrow_default_clock_class_const(
				  bt_stream_borrow_class_const(stream)) ?
			  bt_message_event_borrow_default_clock_snapshot_const(msg) : NULL, &ids, ns);
}

static int on_msg(void *data, const bt_message *msg)
{
	struct summary *s = data;
	struct ust_discarded d;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		return on_event(s, msg);
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		s->totals.packets++;
		return 0;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		ust_discarded_read(msg, &d);
		if (!d.suspect)
			ust_func_profile_loss(&s->prof, d.have_count && !d.packets ? d.count : 0);
		if (d.suspect)
			s->totals.suspect++;
		else if (d.have_count && d.packets)
			s->totals.discarded_packets += d.count;
		else if (d.have_count)
			s->totals.discarded += d.count;
		return 0;
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		s->totals.streams++;
		return 0;
	default:
		return 0;
	}
}

static uint64_t dir_bytes;

static int dir_size_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (flag == FTW_F && S_ISREG(st->st_mode))
		dir_bytes += (uint64_t)st->st_size;
	return 0;
}

/* nftw() has no user data: the sum goes through a static, which is safe
 * because babeltrace2 initializes components on one thread. */
static int ust_dir_size(const char *dir, uint64_t *bytes)
{
	dir_bytes = 0;
	if (nftw(dir, dir_size_one, 16, FTW_PHYS) < 0)
		return -errno;
	*bytes = dir_bytes;
	return 0;
}

/* The function profile's options (func_opts.h), before the first event. */
static int func_params(struct summary *s, const bt_value *params)
{
	const char *const *key;
	const char *value, *why = "";
	int ret = 0;

	for (key = ust_func_opts_keys; *key && ret >= 0; key++) {
		value = ust_sink_param(params, *key);
		ret = value ? ust_func_opts_set(&s->prof.opts, *key, value, &why) : 0;
		if (ret == -EINVAL)
			ust_sink_error(&s->sink, "parameter `%s`: `%s`: %s", *key, value, why);
		else if (ret < 0)
			ust_sink_error(&s->sink, "parameter `%s`: %s", *key, strerror(-ret));
	}
	return ret;
}

bt_component_class_initialize_method_status
ust_summary_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
		 const bt_value *params, void *init_data)
{
	static const char *const allowed[] = { "path", "mi", "trace-dir", "func-sort", "func-rows",
		"func-graph", "func-filter", "func-notrace", "func-depth", "func-time", NULL };
	bt_component_class_initialize_method_status status;
	struct summary *s = calloc(1, sizeof(*s));
	const char *path, *mi, *dir;
	int ret;

	(void)config;
	(void)init_data;
	if (!s)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	status = ust_sink_init(&s->sink, self, on_msg, s);
	if (status != BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK)
		goto end;
	status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	if (ust_sink_check_params(&s->sink, params, allowed) < 0)
		goto end;
	mi = ust_sink_param(params, "mi");
	if (mi && strcmp(mi, "xml")) {
		ust_sink_error(&s->sink, "parameter `mi`: `%s` is not a format; the only one is \"xml\"", mi);
		goto end;
	}
	s->xml = mi != NULL;
	if (func_params(s, params) < 0)
		goto end;
	/* Packet sizes do not reach a sink (the CTF source consumes them):
	 * the size is what the trace takes on disk, when we are told where. */
	dir = ust_sink_param(params, "trace-dir");
	if (dir) {
		ret = ust_dir_size(dir, &s->totals.bytes);
		if (ret < 0) {
			ust_sink_error(&s->sink, "parameter `trace-dir`: %s: %s", dir, strerror(-ret));
			goto end;
		}
		s->totals.have_bytes = true;
	}
	path = ust_sink_param(params, "path");
	path = path && *path ? path : "-";
	ret = ust_out_open(&s->out, path);
	if (ret < 0) {
		ust_sink_error(&s->sink, "cannot create %s: %s", path, strerror(-ret));
		goto end;
	}
	bt_self_component_set_data(s->sink.self, s);
	status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
end:
	if (status != BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK) {
		ust_func_opts_fini(&s->prof.opts);
		free(s);
	}
	return status;
}

bt_component_class_sink_graph_is_configured_method_status
ust_summary_graph_is_configured(bt_self_component_sink *self)
{
	struct summary *s = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));

	return ust_sink_graph_is_configured(&s->sink, self);
}

/* The map's rows as an array, for sorting. */
static struct ust_sum_row **rows_of(const struct ust_ptrmap *m)
{
	struct ust_sum_row **rows = calloc(m->nr + 1, sizeof(*rows));
	size_t i, n = 0;

	if (!rows)
		return NULL;
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].key)
			rows[n++] = m->slots[i].value;
	return rows;
}

/* The rows of the name chains as an array, for sorting. */
static struct ust_sum_row **name_rows_of(const struct ust_ptrmap *m, size_t *nr)
{
	struct ust_sum_row **rows, *r;
	size_t i, n = 0;

	for (i = 0; i < m->cap; i++)
		for (r = m->slots[i].key ? m->slots[i].value : NULL; r; r = r->next)
			n++;
	rows = calloc(n + 1, sizeof(*rows));
	if (!rows)
		return NULL;
	n = 0;
	for (i = 0; i < m->cap; i++)
		for (r = m->slots[i].key ? m->slots[i].value : NULL; r; r = r->next)
			rows[n++] = r;
	*nr = n;
	return rows;
}

bt_component_class_sink_consume_method_status ust_summary_consume(bt_self_component_sink *self)
{
	struct summary *s = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
	bt_component_class_sink_consume_method_status status = ust_sink_consume(&s->sink);
	struct ust_sum_tables tables;
	size_t nr_names = 0;
	int ret = -ENOMEM;

	if (status != BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END)
		return status;
	tables = (struct ust_sum_tables) {
		.events = name_rows_of(&s->by_name, &nr_names), .nr_events = 0,
		.procs = rows_of(&s->by_proc), .nr_procs = s->by_proc.nr,
		.cpus = rows_of(&s->by_cpu), .nr_cpus = s->by_cpu.nr,
		.threads = rows_of(&s->by_thread), .nr_threads = s->by_thread.nr,
	};
	tables.nr_events = nr_names;
	tables.spans = ust_span_stats_rows(&s->spans, &tables.nr_spans);
	if (tables.events && tables.procs && tables.cpus && tables.threads && tables.spans) {
		ust_sum_print(s->out.f, &s->totals, &tables, s->xml);
		ust_func_profile_print(&s->prof, s->out.f, s->xml);
		ust_sum_print_end(s->out.f, s->xml);
		ret = ust_out_commit(&s->out);
	}
	free(tables.events);
	free(tables.procs);
	free(tables.cpus);
	free(tables.threads);
	free(tables.spans);
	if (ret < 0) {
		ust_sink_error(&s->sink, "writing the summary: %s", strerror(-ret));
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	return status;
}

void ust_summary_finalize(bt_self_component_sink *self)
{
	struct summary *s = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));

	if (!s)
		return;
	ust_out_abort(&s->out);
	ust_sink_fini(&s->sink);
	ust_ids_cache_fini(&s->ids);
	ust_ptrmap_fini(&s->by_class, NULL);
	ust_ptrmap_fini(&s->by_name, name_rows_free);
	ust_ptrmap_fini(&s->by_proc, row_free);
	ust_ptrmap_fini(&s->by_cpu, free);
	ust_ptrmap_fini(&s->by_thread, free);
	ust_ptrmap_fini(&s->func_kinds, NULL);
	ust_func_profile_fini(&s->prof);
	ust_func_streams_fini(&s->func_streams);
	ust_span_stats_fini(&s->spans);
	free(s);
}
