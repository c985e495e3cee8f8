# SPDX-License-Identifier: GPL-2.0-only
"""Tracing from signal handlers: threads trace in a loop while two timer
signals per thread, tens of thousands a second, run handlers that trace too,
interrupting the loop's events and each other's. Every numbered event is
recorded exactly once or counted as discarded, the trace decodes, and the
times never go back within a stream."""

import os
import shutil
import signal
import subprocess
import tempfile

from ustest import Tap, Workspace, app, babeltrace_check, read_trace_ints

# 50 000 loop events per thread give thousands of handler runs, hundreds
# nested in the other handler (the checks below ask for 1 000 and 1); more
# only lengthen the three reads of the trace.
THREADS, LOOP, PERIOD_US = 2, 50000, 20
# With ustd stopped and tiny buffers nearly every event is discarded, which
# is quick: the same loop ran 8 times shorter, 1 400 handler runs and 0 of
# B in A once in CI (about 4 expected). Eight times the loop gives the
# handlers as long as with large buffers; only the recorded events are read.
LOOP_DISCARDING = 8 * LOOP
KINDS = ("loop", "sig_a", "sig_b")


def emitted_counts(stdout):
    """{(kind, thread): count}, the handler runs nested in an event write
    and those of B nested in A's."""
    counts, nested, b_in_a = {}, 0, 0
    for line in stdout.splitlines():
        w = line.split()
        if w[:1] == ["emitted"]:
            th = int(w[1])
            for kind, n in zip(KINDS, w[2:5]):
                counts[(kind, th)] = int(n)
            nested += int(w[5])
            b_in_a += int(w[6])
    return counts, nested, b_in_a


def stream_times_ok(path):
    """Reads each stream file alone, so that its events come in buffer
    order; (True, "") when no time goes back in any of them."""
    for name in sorted(os.listdir(path)):
        if (name == "metadata" or name.startswith(".") or
                not os.path.isfile(os.path.join(path, name))):
            continue
        tmp = tempfile.mkdtemp(prefix="ust-stream-")
        try:
            shutil.copy(os.path.join(path, "metadata"), tmp)
            shutil.copy(os.path.join(path, name), tmp)
            events, _ = read_trace_ints(tmp)
        finally:
            shutil.rmtree(tmp)
        for a, b in zip(events, events[1:]):
            if b.ts < a.ts:
                return False, "%s: %d after %d" % (name, b.ts, a.ts)
    return True, ""


def storm_usttrace(ws, buffer_args):
    return ws.usttrace(buffer_args + [app("sigstorm"), str(THREADS), str(LOOP), str(PERIOD_US)],
                       timeout=120)


def storm_ustd_stopped(ws, subbuf_size, subbuf_num):
    """The program traced from its start by a ustd of the workspace that is
    stopped (SIGSTOP) for the whole storm: the buffers overflow whatever
    the machine's speed (ustd at SCHED_FIFO drains even tiny buffers in
    time on a quiet one, manual 10.7). ustd takes the buffers, queued on
    its socket, once it runs again, and the program's exit after that."""
    ustd = ws.start_ustd()
    ustd.send_signal(signal.SIGSTOP)
    try:
        res = subprocess.run([app("sigstorm"), str(THREADS), str(LOOP_DISCARDING),
                              str(PERIOD_US)],
                             env=ws.env(UST_TRACE="1", UST_AUTOPROBE="1",
                                        UST_SUBBUF_SIZE=str(subbuf_size),
                                        UST_SUBBUF_NUM=str(subbuf_num)),
                             capture_output=True, text=True, timeout=120)
    finally:
        ustd.send_signal(signal.SIGCONT)
    ustd.send_signal(signal.SIGTERM)
    ustd.communicate(timeout=60)
    return res


def storm(t, ws, label, res):
    t.ok(res.returncode == 0, "%s: the traced program succeeds" % label, res.stderr)
    counts, nested, b_in_a = emitted_counts(res.stdout)
    t.eq(len(counts), THREADS * len(KINDS), "%s: the program reports its counts" % label)
    handler_runs = sum(n for (kind, _), n in counts.items() if kind != "loop")
    t.diag("%s: %d handler runs, %d of them inside an event of the same thread, %d inside"
           " the other handler's" % (label, handler_runs, nested, b_in_a))
    t.ok(handler_runs > 1000 and nested > 100 and b_in_a > 0,
         "%s: the storm ran, nested in event writes and in the other handler" % label)
    dirs = [d for d in ws.trace_dirs() if os.path.basename(d).startswith("sigstorm-")]
    t.eq(len(dirs), 1, "%s: one trace" % label)
    path = dirs[-1] if dirs else ws.out
    ok, err = babeltrace_check(path)
    t.ok(ok, "%s: babeltrace2 reads the trace cleanly" % label, err)
    events, discarded = read_trace_ints(path)
    seen, dups, strays = {}, 0, 0
    for e in events:
        kind = e.name.split(":")[-1]
        key = (kind, e.fields["thread"])
        s = seen.setdefault(key, set())
        if e.fields["seq"] in s:
            dups += 1
        elif e.fields["seq"] >= counts.get(key, 0):
            strays += 1
        s.add(e.fields["seq"])
    t.eq((dups, strays), (0, 0), "%s: no event twice, none that was not emitted" % label)
    emitted = sum(counts.values())
    t.diag("%s: emitted %d, recorded %d, discarded %d" % (label, emitted, len(events), discarded))
    t.eq(len(events) + discarded, emitted, "%s: recorded + reported discarded == emitted" % label)
    if discarded == 0:
        missing = {k: n - len(seen.get(k, ())) for k, n in counts.items()
                   if len(seen.get(k, ())) != n}
        t.eq(missing, {}, "%s: every number of every thread and handler present" % label)
    ok, why = stream_times_ok(path)
    t.ok(ok, "%s: times never decrease within a stream" % label, why)
    return discarded


t = Tap()
ws = Workspace()
# Buffers that hold it all: nothing may be missing at all.
storm(t, ws, "large buffers", storm_usttrace(ws, ["--subbuf-size", "1M", "--subbuf-num", "16"]))
shutil.rmtree(ws.out)
os.mkdir(ws.out)
# Tiny buffers and no consumer: handlers also hit a full buffer, and must
# count that.
lost = storm(t, ws, "tiny buffers", storm_ustd_stopped(ws, 4096, 2))
t.ok(lost > 0, "tiny buffers overflowed")
t.done()
