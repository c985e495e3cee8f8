# SPDX-License-Identifier: GPL-2.0-only
"""Default buffers flooded at full speed by two threads, once with ustd
running and once with ustd stopped (SIGSTOP) for the whole flood: every
numbered event is either in the trace, once and in order, or counted as
discarded, and the counts agree exactly, as babeltrace2 reports them, as
the packet contexts carry them and as ustd --stats says. Not a timing
test: whether the first flood loses anything depends on the machine."""

from ustest import Tap, Workspace, flood_trace

# Default buffers hold about 350,000 of these 12-byte events per CPU, or
# 700,000 on a machine of one or two CPUs (shm_layout.h): more than that
# per thread overflows them wherever the threads run.
THREADS = 2
PER_THREAD = 1000000

t = Tap()
ws = Workspace()

flood_trace(t, ws, "ustd running", THREADS, PER_THREAD, False)
lost = flood_trace(t, ws, "ustd stopped", THREADS, PER_THREAD, True)
t.ok(lost is not None and lost > 0, "with ustd stopped the default buffers overflowed")
t.done()
