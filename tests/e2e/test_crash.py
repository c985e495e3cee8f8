# SPDX-License-Identifier: GPL-2.0-only
"""Crash rescue: a traced program dies without saying goodbye (SIGKILL,
SIGSEGV, abort, _exit from a thread) while its threads are writing, and ustd
writes every committed event still in the buffers, also from the packets
left incomplete. Every event a thread saw committed is in the trace exactly
once, nothing else is but the event in flight, and babeltrace2 reads the
trace without error and counts what was lost."""

import os
import random
import re
import signal
import struct
import subprocess
import time

from ustest import (Tap, VerboseUstd, Workspace, app, babeltrace_check, read_trace,
                    read_trace_ints)

t = Tap()
ws = Workspace()
rng = random.Random(int(os.environ.get("SEED", time.time())))
NCPU = os.cpu_count() or 2


def rescued_packets(ustd):
    """(events kept, events lost) of every packet ustd said it rescued."""
    return [(int(m.group(1)), int(m.group(2))) for m in
            (re.search(r"rescued: (\d+) events kept, (\d+) lost", line) for line in ustd.seen)
            if m]


def wait_complete(ustd, pid, timeout=15):
    """The trace directory ustd says it completed for pid, or None."""
    m = ustd.wait_line(r"trace of crasher\[%d\] is complete in (\S+)" % pid, timeout)
    return m.group(1) if m else None


def _alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False



def committed_counts(path, n):
    with open(path, "rb") as f:
        return list(struct.unpack("<%dQ" % n, f.read(8 * n)))


def run(ustd, label, how, threads, events=0, delay=0.0, spin=50, **env):
    state = os.path.join(ws.root, "state")
    # In a sanitizer build the kernel, not ASan's handler, must end the
    # program on SIGSEGV, as it does in a plain build.
    env.setdefault("ASAN_OPTIONS", (os.environ.get("ASAN_OPTIONS", "") +
                                    ":handle_segv=0").lstrip(":"))
    proc = subprocess.Popen([app("crasher"), str(threads), state, how, str(events), str(spin)],
                            env=ws.env(UST_TRACE=1, UST_AUTOPROBE=1, **env),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ws.daemons.append(proc)
    line = proc.stdout.readline().strip()
    child = None
    if line.startswith("child "):
        child = int(line.split()[1])
        line = proc.stdout.readline().strip()
    if line != "ready":
        t.ok(False, "%s: crasher starts" % label, proc.stderr.read())
        return
    if how in ("wait", "inherit"):
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
    try:
        rc = proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = proc.wait()
    want_rc = {"wait": -signal.SIGKILL, "inherit": -signal.SIGKILL, "segv": -signal.SIGSEGV, "abort": -signal.SIGABRT,
               "exit": 3}[how]
    if not t.eq(rc, want_rc, "%s: the program died as asked" % label):
        t.diag(proc.stderr.read())
    before = len(rescued_packets(ustd))
    path = wait_complete(ustd, proc.pid)
    if child:
        # It kept the connection open all along: the pidfd told the death.
        t.ok(_alive(child), "%s: the child holding the connection still runs" % label)
        os.kill(child, signal.SIGKILL)
    if not t.ok(path is not None, "%s: ustd noticed the death and completed the trace" % label):
        return
    committed = committed_counts(state, threads)
    ok, err = babeltrace_check(path)
    t.ok(ok, "%s: babeltrace2 reads the trace without error" % label, err)
    # The events' contexts are checked below when there are any: only the
    # Python bindings give them.
    reader = read_trace if "UST_CHANNELS" in env else read_trace_ints
    events_, discarded = reader(path)
    seen = {}
    dups = extra = missing = 0
    for e in events_:
        if e.name != "ust:crash_event":
            continue
        th, seq = e.fields["thread"], e.fields["seq"]
        s = seen.setdefault(th, set())
        if seq in s:
            dups += 1
        s.add(seq)
        if th >= threads or seq > committed[th]:
            extra += 1
    lost_tail = 0
    for th in range(threads):
        s = seen.get(th, set())
        missing += sum(1 for q in range(committed[th]) if q not in s)
        if committed[th] and committed[th] - 1 not in s:
            lost_tail += 1
    rescued = rescued_packets(ustd)[before:]
    t.diag("%s: %d events, committed %s, discarded %d, missing %d; packets rescued: %d (%d events kept, %d lost)"
           % (label, len(events_), committed, discarded, missing, len(rescued),
              sum(k for k, _ in rescued), sum(l for _, l in rescued)))
    if "UST_CHANNELS" in env:
        bad = [e for e in events_ if e.name == "ust:crash_event" and
               (e.context.get("procname") != "crasher" or e.context.get("vtid", 0) in (0, proc.pid)
                or not e.context.get("ip"))]
        t.eq(len(bad), 0, "%s: every rescued event has its contexts (vtid of a thread, "
             "procname, ip)" % label)
    t.eq(dups, 0, "%s: no event twice" % label)
    t.eq(extra, 0, "%s: no event but the committed ones and those in flight" % label)
    t.ok(missing == 0 or discarded > 0,
         "%s: committed events are all there, or babeltrace2 reports the loss" % label,
         "missing %d, discarded %d" % (missing, discarded))
    t.ok(lost_tail == 0 or discarded > 0,
         "%s: every thread's last committed event was rescued" % label,
         "%d threads lost their last event" % lost_tail)
    return discarded, missing


ustd = VerboseUstd(ws, ws.out, UST_DEBUG=1)
total_missing = 0
for how in ("wait", "segv", "abort", "exit"):
    for i in range(3):
        threads = rng.choice((1, 2, 4))
        label = "%s #%d, %d threads" % ("SIGKILL" if how == "wait" else how, i + 1, threads)
        res = run(ustd, label, how, threads, events=rng.randint(1, 4000),
                  delay=rng.uniform(0.05, 0.4), spin=50)
        total_missing += res[1] if res else 0

# A child that inherited the connection keeps the socket open: ustd learns
# the death from the process itself.
for i in range(2):
    run(ustd, "SIGKILL, connection inherited by a child #%d" % (i + 1), "inherit", 2,
        delay=rng.uniform(0.05, 0.3), spin=50)

# Many threads on few CPUs, preempted anywhere (also between a reservation
# and its commit), and small sub-buffers: many packets left incomplete.
many = 3 * NCPU + 2
for i in range(3):
    how = ("wait", "segv", "exit")[i]
    res = run(ustd, "%d threads on %d CPUs, 4 KiB sub-buffers, %s" % (many, NCPU, how), how,
              many, events=rng.randint(200, 2000), delay=rng.uniform(0.1, 0.4), spin=300,
              UST_SUBBUF_SIZE=4096, UST_SUBBUF_NUM=8)
    total_missing += res[1] if res else 0

# With contexts between each event's header and payload, which the rescue
# walk must step over: vtid, procname and ip, 28 bytes per event.
for i in range(3):
    how = ("wait", "segv", "abort")[i]
    res = run(ustd, "contexts, %d threads, 4 KiB sub-buffers, %s" % (many, how), how, many,
              events=rng.randint(200, 2000), delay=rng.uniform(0.1, 0.4), spin=300,
              UST_SUBBUF_SIZE=4096, UST_SUBBUF_NUM=8, UST_CHANNELS="*:::vtid+procname+ip")
    total_missing += res[1] if res else 0

t.ok(len(rescued_packets(ustd)) > 0,
     "incomplete packets were rescued (%d)" % len(rescued_packets(ustd)))
t.ok(ustd.proc.poll() is None, "ustd is still serving")
t.done()
