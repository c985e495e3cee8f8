# SPDX-License-Identifier: GPL-2.0-only
"""ustd's writeback thread (ustd/writeback.c), which serves --page-cache
and the direct path's lags: a trace much larger than its page-cache
window leaves only about the window of each stream file in the page cache
once written (the kernel, left alone, keeps all of it: the machine has
gigabytes free), gives back the blocks it reserved ahead, and the trace
reads cleanly. fincore(1) (util-linux) counts the cached pages."""

import os
import re
import subprocess
import time

from ustest import Tap, VerboseUstd, Workspace, blocks_past_end, flood_one_cpu

MIB = 1 << 20
WINDOW = 16 * MIB
# 12-byte events: about 96 MB, several windows, from one thread.
EVENTS = 8000000

t = Tap()
ws = Workspace()
out = os.path.join(ws.root, "big")
os.mkdir(out)
ustd = VerboseUstd(ws, out, ["--stats", "--page-cache"])
# One CPU, so that its events go to one stream file (46 + 49 MB seen
# over two files otherwise, neither three windows long).
proc = flood_one_cpu(t, ws, EVENTS, "flood done", UST_TRACE=1, UST_AUTOPROBE="ust:flood")
proc.stdin.close()
t.eq(proc.wait(timeout=120), 0, "program exits 0")
stats = ustd.wait_line(r"drain of flood\[\d+\]: (\d+) packets, (\d+) events discarded")
t.ok(stats, "ustd says the trace is complete", ustd.seen)
dirs = [d for d, _, files in os.walk(out) if "metadata" in files]
trace = dirs[0] if len(dirs) == 1 else None
t.ok(trace, "one trace", dirs)

streams = [os.path.join(trace, f) for f in os.listdir(trace)
           if re.fullmatch(r"\w+_\d+", f)] if trace else []


def cached(path):
    res = subprocess.run(["fincore", "--bytes", "--noheadings", "--output", "RES", path],
                         capture_output=True, text=True)
    return int(res.stdout.split()[0]) if res.returncode == 0 and res.stdout.split() else None


big = [f for f in streams if os.path.getsize(f) >= 3 * WINDOW]
t.ok(big, "at least one stream file holds three windows (%s)"
     % {os.path.basename(f): os.path.getsize(f) for f in streams})
# ustd waits for a range's writeback before it drops it, so what stays
# cached is the window and the MiB steps around it. The writeback thread's
# last pass follows the drain's close by a moment: polled.
BOUND = 2 * WINDOW
for f in big:
    size, res = os.path.getsize(f), cached(f)
    deadline = time.monotonic() + 20
    while (res is None or res > BOUND) and time.monotonic() < deadline:
        time.sleep(0.1)
        res = cached(f)
    t.ok(res is not None and res <= BOUND,
         "%s: %d MiB in the page cache of %d MiB written (window %d MiB)"
         % (os.path.basename(f), (res or 0) // MIB, size // MIB, WINDOW // MIB),
         "fincore: %r" % res)

deadline = time.monotonic() + 10
held = blocks_past_end(trace) if trace else {}
while held and time.monotonic() < deadline:
    time.sleep(0.05)
    held = blocks_past_end(trace)
t.ok(trace and not held, "no stream file holds the blocks reserved past its end", held)

if trace:
    res = subprocess.run(["babeltrace2", "--output-format=dummy", trace],
                         capture_output=True, text=True, timeout=300)
    t.ok(res.returncode == 0 and "ERROR" not in res.stderr,
         "babeltrace2 reads the whole trace", res.stderr[-2000:])
ustd.stop()
t.done()
