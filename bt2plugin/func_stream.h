/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The thread and function of a function event. libust-func's long forms
 * (ust_func:entry {tid, addr}, ust_func:exit {tid}) say both and start a
 * run in their stream; its short forms (entry_cont {addr_lo}, exit_cont)
 * continue the run: the thread of the stream's previous function event,
 * the upper half of the address of its last entry (libust-func/func_tp.h).
 * A vtid context, when the stream has one, names the thread instead; the
 * events of LTTng-UST and of older UST (addr, call_site) name the function
 * of their exit too.
 */
#ifndef UST_BT2_FUNC_STREAM_H
#define UST_BT2_FUNC_STREAM_H

#include <stdint.h>
#include <babeltrace2/babeltrace.h>
#include "bt2plugin/ptrmap.h"

struct ust_func_call {
	int64_t tid;		/* UST_ID_UNKNOWN (event_ids.h) when none says */
	int64_t ns;		/* when: the event's time, or for ust_func:entry_at
				 * (written at its call's exit) its start field's */
	uint64_t addr;		/* the function; for an exit, 0 when it names none */
	int has_addr;
};

struct ust_func_streams {
	struct ust_ptrmap runs;	/* bt_stream * -> its run */
};

/* Decodes entry or exit ev of time ns (its clock snapshot cs, or NULL),
 * whose vtid context is ctx_tid (or UST_ID_UNKNOWN); 0 or -ENOMEM. */
int ust_func_stream_decode(struct ust_func_streams *fs, const bt_event *ev,
			   const bt_clock_snapshot *cs, int64_t ns, int64_t ctx_tid,
			   struct ust_func_call *call);
void ust_func_streams_fini(struct ust_func_streams *fs);

#endif
