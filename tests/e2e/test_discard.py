# SPDX-License-Identifier: GPL-2.0-only
"""A full buffer in discard mode drops new events and counts them: what
babeltrace2 reports as discarded is exactly what is missing. Small
buffers (2 x 4 KiB) flooded while ustd is stopped, so that they overflow
whatever the speed of the machine; test_flood does the same with the
default buffers."""

from ustest import Tap, Workspace, flood_trace

t = Tap()
ws = Workspace()
lost = flood_trace(t, ws, "small buffers", 1, 300000, True,
                   UST_SUBBUF_SIZE=4096, UST_SUBBUF_NUM=2)
t.ok(lost is not None and lost > 0, "small buffers overflowed")
t.done()
