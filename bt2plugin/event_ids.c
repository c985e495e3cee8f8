/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bt2plugin/event_ids.h"

static int64_t member_index(const bt_field_class *fc, const char *const *names)
{
	uint64_t i, n;
	size_t k;

	if (!fc || bt_field_class_get_type(fc) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return -1;
	n = bt_field_class_structure_get_member_count(fc);
	for (k = 0; names[k]; k++)
		for (i = 0; i < n; i++)
			if (!strcmp(bt_field_class_structure_member_get_name(
				bt_field_class_structure_borrow_member_by_index_const(fc, i)),
				names[k]))
				return (int64_t)i;
	return -1;
}

static int64_t int_value(const bt_field *f)
{
	bt_field_class_type t = bt_field_get_class_type(f);

	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return bt_field_integer_signed_get_value(f);
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		return (int64_t)bt_field_integer_unsigned_get_value(f);
	return UST_ID_UNKNOWN;
}

static int64_t member_int(const bt_field *s, int64_t idx)
{
	if (!s || idx < 0)
		return UST_ID_UNKNOWN;
	return int_value(bt_field_structure_borrow_member_field_by_index_const(s, (uint64_t)idx));
}

static struct ust_ids_layout *layout_of(struct ust_ids_cache *c,
					       const bt_stream_class *sc)
{
	static const char *const pid_names[] = { "vpid", "pid", NULL };
	static const char *const tid_names[] = { "vtid", "tid", NULL };
	static const char *const cpu_names[] = { "cpu_id", NULL };
	static const char *const procname_names[] = { "procname", NULL };
	const bt_field_class *common;
	struct ust_ids_layout *l;
	size_t i;

	for (i = 0; i < c->nr; i++)
		if (c->layouts[i].sc == sc)
			return &c->layouts[i];
	if (c->nr == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 8;

		l = realloc(c->layouts, cap * sizeof(*l));
		if (!l)
			return NULL;
		c->layouts = l;
		c->cap = cap;
	}
	l = &c->layouts[c->nr++];
	l->sc = sc;
	l->trace = NULL;
	common = bt_stream_class_borrow_event_common_context_field_class_const(sc);
	l->ctx_pid = member_index(common, pid_names);
	l->ctx_tid = member_index(common, tid_names);
	l->ctx_procname = member_index(common, procname_names);
	if (l->ctx_procname >= 0 &&
	    bt_field_class_get_type(bt_field_class_structure_member_borrow_field_class_const(
		    bt_field_class_structure_borrow_member_by_index_const(common,
			    (uint64_t)l->ctx_procname))) != BT_FIELD_CLASS_TYPE_STRING)
		l->ctx_procname = -1;
	l->pkt_cpu = member_index(bt_stream_class_borrow_packet_context_field_class_const(sc),
				  cpu_names);
	return l;
}

int ust_event_ids_get(struct ust_ids_cache *cache, const bt_event *ev,
		      struct ust_event_ids *ids)
{
	const bt_stream *stream = bt_event_borrow_stream_const(ev);
	const bt_field *common = bt_event_borrow_common_context_field_const(ev);
	struct ust_ids_layout *l = layout_of(cache, bt_stream_borrow_class_const(stream));
	const bt_packet *pkt;

	if (!l)
		return -ENOMEM;
	/* The environment is looked up by name: once per trace. */
	if (l->trace != bt_stream_borrow_trace_const(stream)) {
		l->trace = bt_stream_borrow_trace_const(stream);
		l->trace_pid = ust_trace_pid(l->trace);
		l->trace_ncpus = ust_trace_ncpus(l->trace);
	}
	ids->pid = member_int(common, l->ctx_pid);
	if (ids->pid == UST_ID_UNKNOWN)
		ids->pid = l->trace_pid;
	ids->tid = member_int(common, l->ctx_tid);
	ids->procname = common && l->ctx_procname >= 0 ?
		bt_field_string_get_value(bt_field_structure_borrow_member_field_by_index_const(
			common, (uint64_t)l->ctx_procname)) : NULL;
	ids->cpu = UST_ID_UNKNOWN;
	if (l->pkt_cpu >= 0 && (pkt = bt_event_borrow_packet_const(ev)))
		ids->cpu = member_int(bt_packet_borrow_context_field_const(pkt), l->pkt_cpu);
	if (l->trace_ncpus != UST_ID_UNKNOWN && ids->cpu >= l->trace_ncpus)
		ids->cpu = UST_ID_UNKNOWN;
	return 0;
}

void ust_ids_cache_fini(struct ust_ids_cache *cache)
{
	free(cache->layouts);
	memset(cache, 0, sizeof(*cache));
}

const char *ust_trace_procname(const bt_trace *trace)
{
	const bt_value *v = bt_trace_borrow_environment_entry_value_by_name_const(trace,
										   "procname");

	if (v && bt_value_is_string(v))
		return bt_value_string_get(v);
	return bt_trace_get_name(trace);
}

static int64_t env_int(const bt_trace *trace, const char *name)
{
	const bt_value *v = bt_trace_borrow_environment_entry_value_by_name_const(trace, name);

	if (v && bt_value_is_signed_integer(v))
		return bt_value_integer_signed_get(v);
	if (v && bt_value_is_unsigned_integer(v))
		return (int64_t)bt_value_integer_unsigned_get(v);
	return UST_ID_UNKNOWN;
}

int64_t ust_trace_pid(const bt_trace *trace)
{
	return env_int(trace, "vpid");
}

int64_t ust_trace_ncpus(const bt_trace *trace)
{
	return env_int(trace, "ncpus");
}
