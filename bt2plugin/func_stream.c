/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <stdlib.h>

#include "bt2plugin/event_ids.h"
#include "bt2plugin/func_stream.h"

struct run {
	int64_t tid;
	uint64_t high;		/* the upper half of the last entry's address */
	int high_known;
};

static const bt_field *member_int(const bt_field *payload, const char *name)
{
	const bt_field *f;

	if (!payload || bt_field_get_class_type(payload) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return NULL;
	f = bt_field_structure_borrow_member_field_by_name_const(payload, name);
	if (!f || !bt_field_class_type_is(bt_field_get_class_type(f),
					  BT_FIELD_CLASS_TYPE_INTEGER))
		return NULL;
	return f;
}

static uint64_t int_value(const bt_field *f)
{
	if (bt_field_class_type_is(bt_field_get_class_type(f),
				   BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		return bt_field_integer_unsigned_get_value(f);
	return (uint64_t)bt_field_integer_signed_get_value(f);
}

static struct run *run_of(struct ust_func_streams *fs, const bt_stream *s)
{
	struct run *r = ust_ptrmap_get(&fs->runs, (uintptr_t)s);

	if (r)
		return r;
	r = calloc(1, sizeof(*r));
	if (!r || ust_ptrmap_put(&fs->runs, (uintptr_t)s, r) < 0) {
		free(r);
		return NULL;
	}
	r->tid = UST_ID_UNKNOWN;
	return r;
}

/* The time of a start field of cs's clock, from cs's time ns. */
static int64_t start_ns(const bt_clock_snapshot *cs, int64_t ns, uint64_t start)
{
	uint64_t now = bt_clock_snapshot_get_value(cs);
	uint64_t freq = bt_clock_class_get_frequency(bt_clock_snapshot_borrow_clock_class_const(cs));

	if (!freq || start > now)
		return ns;
	return ns - (int64_t)((unsigned __int128)(now - start) * 1000000000u / freq);
}

int ust_func_stream_decode(struct ust_func_streams *fs, const bt_event *ev,
			   const bt_clock_snapshot *cs, int64_t ns, int64_t ctx_tid,
			   struct ust_func_call *call)
{
	const bt_field *payload = bt_event_borrow_payload_field_const(ev);
	struct run *r = run_of(fs, bt_event_borrow_stream_const(ev));
	const bt_field *f;

	if (!r)
		return -ENOMEM;
	f = member_int(payload, "tid");
	if (f) {
		r->tid = (int64_t)int_value(f);
		/* A long exit: the next entry is long too. */
		r->high_known = 0;
	}
	call->tid = ctx_tid != UST_ID_UNKNOWN ? ctx_tid : r->tid;
	call->ns = ns;
	if (cs && (f = member_int(payload, "start")))
		call->ns = start_ns(cs, ns, int_value(f));
	call->addr = 0;
	call->has_addr = 0;
	if ((f = member_int(payload, "addr"))) {
		call->addr = int_value(f);
		call->has_addr = 1;
		r->high = call->addr >> 32;
		r->high_known = 1;
	} else if ((f = member_int(payload, "addr_lo"))) {
		call->addr = (uint32_t)int_value(f) | (r->high_known ? r->high << 32 : 0);
		call->has_addr = 1;
	}
	return 0;
}

void ust_func_streams_fini(struct ust_func_streams *fs)
{
	ust_ptrmap_fini(&fs->runs, free);
}
