/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A disabled site evaluates none of its arguments: trace_mark(), ust_trace()
 * and ust_event() are each given counter++ while nothing is tracing, and the
 * counter must not move. Then a probe is connected to the tracepoint, to
 * show that the same call does evaluate its argument, once, and reaches the
 * probe. Run untraced (no UST_AUTOPROBE). Speaks TAP; exits 1 on a failure.
 */
#include <errno.h>

#include <ust/marker.h>
#include <ust/tracepoint.h>
#define UST_CREATE_PROBES
#include <ust/tracepoint_event.h>

#include "tests/unit/tap.h"

DECLARE_TRACE(side_effects_tp, TP_PROTO(int value), TP_ARGS(value));
DEFINE_TRACE(side_effects_tp);

TRACE_EVENT(side_effects, typed,
	TP_ARGS(int, value, const char *, label),
	TP_FIELDS(
		ctf_integer(int, value, value)
		ctf_string(label, label)))

static int counter;
static int probe_calls, probe_value = -1;

static void probe(void *data, int value)
{
	probe_calls++;
	probe_value = value;
	*(int *)data = 1;
}

int main(void)
{
	int probe_data = 0;

	tap_plan(9);

	trace_mark(ust, side_effects, "value %d", counter++);
	tap_ok(counter == 0, "a disabled trace_mark() evaluates no argument (counter %d)", counter);

	ust_trace(side_effects_tp, counter++);
	tap_ok(counter == 0, "a disabled ust_trace() evaluates no argument (counter %d)", counter);

	ust_event(side_effects, typed, counter++, "label");
	tap_ok(counter == 0, "a disabled ust_event() evaluates no argument (counter %d)", counter);

	tap_ok(register_trace_side_effects_tp(probe, &probe_data) == 0,
	       "a probe connects to the tracepoint");
	ust_trace(side_effects_tp, counter++);
	tap_ok(counter == 1 && probe_calls == 1 && probe_value == 0 && probe_data == 1,
	       "an enabled ust_trace() evaluates its argument once and calls the probe with it "
	       "(counter %d, calls %d, value %d)", counter, probe_calls, probe_value);
	tap_ok(register_trace_side_effects_tp(probe, &probe_data) == -EEXIST,
	       "connecting the same probe and data twice is -EEXIST");
	tap_ok(unregister_trace_side_effects_tp(probe, &probe_data) == 0,
	       "the probe disconnects");
	ust_trace(side_effects_tp, counter++);
	tap_ok(counter == 1 && probe_calls == 1,
	       "disconnected again, ust_trace() evaluates nothing (counter %d, calls %d)",
	       counter, probe_calls);
	tap_ok(unregister_trace_side_effects_tp(probe, &probe_data) == -ENOENT,
	       "disconnecting an unknown probe is -ENOENT");
	return tap_done();
}
