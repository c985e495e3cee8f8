#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Bounded disk over a long run (issue 23): a program tracing as fast as
it can for 60 s under usttrace --tracefile-size 1M --tracefile-count 4.
While it runs, the trace directory is sampled every 100 ms: no stream
ever holds more than 4 files, nor more than 4 MiB plus one packet. After
it, babeltrace2 reads the files left cleanly, and the events in them are
exactly the newest of the program's numbering (pinned to one CPU, one
stream holds the one thread's events; the blocking timeout makes the
writer wait for ustd instead of discarding, so the count is exact)."""

import os
import re
import shutil
import subprocess
import threading
import time

import tracefile_check as tc
import ustest
from ustest import Tap, Workspace, app, full_speed_alone, read_trace_ints

SECONDS = int(os.environ.get("UST_TRACEFILE_SECONDS", "60"))
SIZE, COUNT, PACKET = 1 << 20, 4, 64 << 10

# A minute at full speed.
full_speed_alone()
t = Tap()
TASKSET = shutil.which("taskset")
if not TASKSET:
    t.ok(True, "# SKIP taskset (util-linux) is not installed")
    t.done()
CPU = min(os.sched_getaffinity(0))
ws = Workspace()
proc = subprocess.Popen([ustest.USTTRACE, "-o", ws.out, "--subbuf-size", "64k", "--subbuf-num", "8",
                         "--blocking-timeout", "inf", "--tracefile-size", "1M",
                         "--tracefile-count", str(COUNT), TASKSET, "-c", str(CPU), app("stress"),
                         "-d", str(SECONDS)],
                        env=ws.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
ws.daemons.append(proc)

samples, problems, peak = 0, [], {}
done = threading.Event()


def sample():
    global samples
    while not done.is_set():
        for trace in ws.trace_dirs():
            bad = tc.disk_problems(trace, SIZE, COUNT, PACKET)
            if bad and len(problems) < 20:
                problems.append("%.1f s: %s" % (time.time() - start, bad))
            for stream, files in tc.stream_files(trace).items():
                peak[stream] = max(peak.get(stream, 0), sum(files.values()))
        samples += 1
        time.sleep(0.1)


start = time.time()
sampler = threading.Thread(target=sample)
sampler.start()
out, err = proc.communicate(timeout=SECONDS + 240)
done.set()
sampler.join()
m = re.search(r"^emitted 0 (\d+)$", out, re.M)
n = int(m.group(1)) if m else None
t.ok(proc.returncode == 0 and n, "usttrace ran the program %d s" % SECONDS, err)
t.ok(samples >= SECONDS * 5, "disk use sampled during the run (%d samples)" % samples)
t.eq(problems, [], "never more than %d files nor %d bytes plus one packet per stream"
     % (COUNT, COUNT * SIZE))
t.diag("peak bytes per stream: %r; events emitted: %s" % (peak, n))
t.diag(err)
trace = ws.trace_dirs()[0]
t.eq(tc.disk_problems(trace, SIZE, COUNT, PACKET), [], "the files left keep the bound too")
busy = tc.stream_files(trace).get("ust_%d" % CPU, {})
t.eq(sorted(busy), list(range(COUNT)), "the busy stream wrapped around its %d files" % COUNT)
t.eq(ustest.stream_problems(trace, padded=True), [],
     "every file has its own index matching its packets")
ok, why = tc.babeltrace_ok(trace)
t.ok(ok, "babeltrace2 reads the files left", why)
events, discarded = read_trace_ints(trace)
events = [e for e in events if e.name == "ust:stress"]
t.eq(discarded, 0, "nothing discarded")
t.eq(tc.suffix_problems(events, "seq", (n or 0) - 1), [],
     "the events left are the newest %d of %s, in order, none missing or doubled"
     % (len(events), n))
t.ok(events and events[0].fields["seq"] > 0, "the older files were removed along the run")
t.done()
