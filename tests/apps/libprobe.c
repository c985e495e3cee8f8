/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The library dlclose_main loads and unloads over and over: a marker, a
 * typed event and a tracepoint of its own, and a probe on the program's
 * tracepoint. It never disconnects that probe itself: libust does when
 * the library is unloaded, before its code goes away.
 */
#define UST_CREATE_PROBES
#include "dlclose_tp.h"

DEFINE_TRACE(libprobe_tp);

void libprobe_work(unsigned thread, unsigned long seq);

void libprobe_work(unsigned thread, unsigned long seq)
{
	trace_mark(libprobe, work, "thread %u seq %lu", thread, seq);
	trace_libprobe_ev_work(thread, seq);
	trace_libprobe_tp(thread, seq);
}

/*
 * Runs in the program's threads, called from the program's code, at any
 * time. It lingers, so that the unload often finds a thread inside it:
 * libust must wait for that thread before the code goes away.
 */
static void on_main_tp(void *data, unsigned thread, unsigned long seq)
{
	volatile unsigned spin;

	(void)data;
	trace_mark(libprobe, probe, "thread %u seq %lu", thread, seq);
	for (spin = 0; spin < 50000; spin++)
		;
}

static void __attribute__((constructor)) libprobe_init(void)
{
	register_trace_dlclose_main_tp(on_main_tp, NULL);
}
