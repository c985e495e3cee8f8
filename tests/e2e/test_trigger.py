# SPDX-License-Identifier: GPL-2.0-only
"""Triggers: ustctl add-trigger on running flight-recorder programs (the
service test program), the real ustd taking the snapshots, babeltrace2
reading them. A 4-process service with a trigger on app:error and
--at-most 3/minute: each of the first 3 errors of each process gets a
snapshot holding that error (by its number) and the requests before it,
the other 2 are counted and said by ustd. Then a filter on the trigger, a
marker trigger, remove-trigger, a trace in discard mode, and bad input."""

import os
import re
import subprocess
import time

import xml.etree.ElementTree as ET

from service_app import command, quit_service, start_service
from ustest import (TOP_SRC, Tap, VerboseUstd, Workspace, babeltrace_check, read_trace,
                    wait_for)

t = Tap()
ws = Workspace()
ustd = VerboseUstd(ws, ws.out)
# 64 KiB a CPU: a request every millisecond takes seconds to overwrite an error.
FLIGHT = dict(UST_TRACE=1, UST_OVERWRITE=1, UST_AUTOPROBE=1, UST_SUBBUF_SIZE=16384,
              UST_SUBBUF_NUM=4)
latencies = []
SNAP_RE = re.compile(r"-snapshot-(\d+)$")
XSD = os.path.join(TOP_SRC, "doc", "xml", "ustctl-mi.xsd")


def snapshots(d):
    """The snapshot directories in d, by their number."""
    if not os.path.isdir(d):
        return []
    found = [(int(SNAP_RE.search(n).group(1)), os.path.join(d, n))
             for n in os.listdir(d) if SNAP_RE.search(n)]
    return [p for _, p in sorted(found)]


def ctl(*args):
    return ws.ustctl_fast([str(a) for a in args])


def check_snapshot(path, name, seq, label):
    """path holds event name with this seq, none newer, and requests before it."""
    ok, err = babeltrace_check(path)
    if not ok:
        t.ok(False, "%s: babeltrace2 reads %s" % (label, path), err)
        return
    events, _ = read_trace(path)
    hits = [e for e in events if e.name == name]
    seqs = [e.fields["seq"] for e in hits]
    target = [e for e in hits if e.fields["seq"] == seq]
    before = [e for e in events if e.name == "app:request" and target and e.ts < target[0].ts]
    if target:
        # From the event to the last byte of the snapshot on disk.
        done = max(os.stat(os.path.join(r, f)).st_mtime_ns
                   for r, _, files in os.walk(path) for f in files)
        latencies.append((done - target[0].ts) / 1e6)
    t.ok(target and max(seqs) == seq and len(before) > 0,
         "%s: the snapshot holds %s %d, none later, and %d requests before it"
         % (label, name, seq, len(before)), "%s seqs %r" % (name, seqs))


# 1. Four processes, a trigger each on app:error, at most 3 snapshots a minute.
procs = [start_service(ws, **FLIGHT) for _ in range(4)]
snapdir = {p.pid: os.path.join(ws.root, "snaps", str(p.pid)) for p in procs}
for p in procs:
    res = ctl("add-trigger", p.pid, "--on", "app:error", "--snapshot", "-o", snapdir[p.pid],
              "--at-most", "3/minute")
    t.ok(res.returncode == 0 and "trigger 1 added" in res.stdout,
         "add-trigger on process %d" % p.pid, res.stderr)
time.sleep(0.3)
ERRORS = 5
for k in range(1, ERRORS + 1):
    for p in procs:
        command(p, "error %d 500" % k)
    want = min(k, 3)
    wait_for(lambda: all(len(snapshots(snapdir[p.pid])) >= want for p in procs), timeout=15)
    # libust tells ustd of one firing a millisecond at most (held back
    # otherwise): a snapshot on tmpfs can appear within that, and the
    # next error would then come too soon (seen: "told ustd 4, held back 1").
    time.sleep(0.01)
    if k > 3:
        # A snapshot over the limit would be written by now.
        time.sleep(0.5)
for p in procs:
    snaps = snapshots(snapdir[p.pid])
    t.eq(len(snaps), 3, "process %d: %d errors, --at-most 3/minute: 3 snapshots"
         % (p.pid, ERRORS))
    for i, s in enumerate(snaps[:3]):
        check_snapshot(s, "app:error", i + 1, "process %d snapshot %d" % (p.pid, i + 1))
    res = ctl("list-triggers", p.pid)
    t.ok(res.returncode == 0 and re.search(r"^1: --on app:error --snapshot -o %s --at-most "
                                           r"3/minute; fired 5, told ustd 5, held back 0, not sent 0$"
                                           % re.escape(snapdir[p.pid]), res.stdout, re.M),
         "process %d: list-triggers counts 5 firings, all told to ustd" % p.pid,
         res.stdout + res.stderr)
for p in procs:
    t.eq(quit_service(p), 0, "process %d ends normally" % p.pid)
for p in procs:
    m = ustd.wait_line(r"trigger 1 of service\[%d\]: (\d+) snapshots taken, (\d+) firings over "
                       r"--at-most 3/minute not snapshotted" % p.pid)
    t.ok(m and m.group(1) == "3" and m.group(2) == "2",
         "process %d: ustd says 3 snapshots taken and 2 firings over the limit" % p.pid,
         m.group(0) if m else "no such message")
    t.ok(ustd.wait_line(r"trigger 1 of service\[%d\]: --at-most 3/minute reached" % p.pid),
         "process %d: ustd says when the limit is reached" % p.pid)

# 2. A filter on the trigger, a trigger on a marker, remove-trigger.
p = start_service(ws, **FLIGHT)
fdir = os.path.join(ws.root, "filtered")
mdir = os.path.join(ws.root, "marker")
res = ctl("add-trigger", p.pid, "--on", "app:error", "--filter", "code >= 500", "--snapshot",
          "-o", fdir)
t.ok(res.returncode == 0, "add-trigger with a filter", res.stderr)
res = ctl("add-trigger", p.pid, "--on", "app:warn", "--snapshot", "-o", mdir)
t.ok(res.returncode == 0 and "trigger 2 added" in res.stdout, "add-trigger on a marker",
     res.stderr)
time.sleep(0.3)
command(p, "error 1 404")
command(p, "error 2 503")
t.ok(wait_for(lambda: len(snapshots(fdir)) >= 1, timeout=15), "filter: an error with code 503 fires")
command(p, "error 3 404")
time.sleep(1)
t.eq(len(snapshots(fdir)), 1, "filter: errors with code 404 do not fire")
if snapshots(fdir):
    check_snapshot(snapshots(fdir)[0], "app:error", 2, "filter")
command(p, "warn 7")
t.ok(wait_for(lambda: len(snapshots(mdir)) >= 1, timeout=15), "marker: app:warn fires")
if snapshots(mdir):
    check_snapshot(snapshots(mdir)[0], "app:warn", 7, "marker")
res = ctl("remove-trigger", p.pid, 1)
t.ok(res.returncode == 0 and "trigger 1 removed" in res.stdout, "remove-trigger 1", res.stderr)
res = ctl("list-triggers", p.pid)
t.ok(res.returncode == 0 and res.stdout.startswith("2: --on app:warn") and
     len(res.stdout.splitlines()) == 1, "list-triggers: only trigger 2 is left", res.stdout)
command(p, "error 4 599")
time.sleep(1)
t.eq(len(snapshots(fdir)), 1, "a removed trigger fires no more")

# --mi xml, checked against the schema.
for args in (["add-trigger", p.pid, "--on", "app:*", "--filter", "seq > 1", "--snapshot",
              "--at-most", "2/minute"], ["list-triggers", p.pid]):
    res = ctl("--mi", "xml", *args)
    valid = subprocess.run(["xmllint", "--noout", "--schema", XSD, "-"], input=res.stdout,
                           capture_output=True, text=True, timeout=60)
    trig = ET.fromstring(res.stdout).findall("./process/trigger") if valid.returncode == 0 else []
    t.ok(res.returncode == 0 and valid.returncode == 0 and trig and
         trig[-1].get("on") == "app:*",
         "--mi xml %s: valid against ustctl-mi.xsd, lists the trigger" % args[0],
         valid.stderr + res.stdout)
ctl("remove-trigger", p.pid, 3)

# 3. Bad input: exit 2 with the usage, nothing added; failures exit 1.
BAD = [
    (["add-trigger", p.pid, "--snapshot"], "--on PATTERN is missing"),
    (["add-trigger", p.pid, "--on", "app:error"], "--snapshot is missing"),
    (["add-trigger", p.pid, "--on", "app:error", "--snapshot", "--at-most", "0/minute"],
     "give N/minute"),
    (["add-trigger", p.pid, "--on", "app:error", "--snapshot", "--at-most", "5/hour"],
     "give N/minute"),
    (["add-trigger", p.pid, "--on", "app:error", "--snapshot", "--at-most", "601/minute"],
     "give N/minute"),
    (["add-trigger", p.pid, "--on", "app:error", "--snapshot", "--filter", "code >="],
     "filter, column"),
    (["add-trigger", p.pid, "--on", "a b", "--snapshot"], "pattern"),
    (["add-trigger", "x12", "--on", "app:error", "--snapshot"], "not a process ID"),
    (["remove-trigger", p.pid, "abc"], "not a trigger number"),
]
for args, text in BAD:
    res = ctl(*args)
    t.ok(res.returncode == 2 and text in res.stderr and "usage: ustctl" in res.stderr,
         "bad input %r: exit 2, says %r, shows the usage" % (args[2:], text),
         "%d %s" % (res.returncode, res.stderr))
res = ctl("list-triggers", p.pid)
t.ok(res.returncode == 0 and len(res.stdout.splitlines()) == 1,
     "bad input added no trigger", res.stdout)
res = ctl("remove-trigger", p.pid, 99)
t.ok(res.returncode == 1 and "no trigger 99" in res.stderr, "remove-trigger of an unknown id fails",
     res.stderr)
t.eq(quit_service(p), 0, "the filtered service ends normally")

# 4. A trace in discard mode: the trigger fires, ustd says why there is no snapshot.
p = start_service(ws, UST_TRACE=1, UST_AUTOPROBE=1)
ddir = os.path.join(ws.root, "discard")
res = ctl("add-trigger", p.pid, "--on", "app:error", "--snapshot", "-o", ddir)
t.ok(res.returncode == 0, "add-trigger on a trace in discard mode", res.stderr)
time.sleep(0.3)
command(p, "error 1 500")
t.ok(ustd.wait_line(r"a trigger of service\[%d\] fired, but its trace is written to disk as it "
                    r"goes: snapshots are for flight-recorder traces" % p.pid),
     "discard mode: ustd says snapshots are for flight-recorder traces")
t.eq(snapshots(ddir), [], "discard mode: no snapshot")
t.eq(quit_service(p), 0, "the discard-mode service ends normally")

if latencies:
    latencies.sort()
    t.diag("event to snapshot on disk, ms: median %.2f, max %.2f, of %d"
           % (latencies[len(latencies) // 2], latencies[-1], len(latencies)))
ustd.stop()
t.done()
