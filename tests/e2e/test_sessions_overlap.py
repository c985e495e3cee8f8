# SPDX-License-Identifier: GPL-2.0-only
"""Two sessions over the same running programs, a process holding one
trace (tests/apps/webish, 12 of them):

- both started at once (two start-session requests in flight together, the
  programs answering them in the same moments): each program joins one of
  them whole, with that session's mode: a program of the flight-recorder
  session takes snapshots, one of the other is written to disk (snapshot
  refused). ustd's joins of one program used to interleave their four
  requests, and some programs of the disk session became flight
  recorders (1 to 5 of 8 in as many runs), those of the flight recorder
  written to disk as they go (the review's failed snapshots);
- a third session started afterwards traces none of them and says so:
  start-session counts the programs left alone by the session they trace,
  in its text and in --mi xml (valid against ustctl-mi.xsd); a program
  whose trace is no session's is counted apart, and programs that do not
  match the session are not counted. It used to say "0 running programs
  trace it now" and nothing else."""

import glob
import os
import re
import signal
import socket
import subprocess
import time
import xml.etree.ElementTree as ET

from ustest import (CTL_HEADER, CTL_MAGIC, CTL_VERSION, TOP_SRC, Tap, Workspace,
                    ctl_read_reply)

t = Tap()
N = 12
SESSION_START = 37
XSD = os.path.join(TOP_SRC, "doc", "xml", "ustctl-mi.xsd")

ws = Workspace()
ws.start_ustd()


def ctl(*args):
    return ws.ustctl_fast([str(a) for a in args])


def trace_of(pid):
    m = re.search(r"^trace:\s+(\S+)", ctl("info", pid).stdout, re.M)
    return m.group(1) if m else None


def start_together(names, procs):
    """start-session of every name at once, the programs stopped meanwhile
    so that they answer the joins together: the replies."""
    path = glob.glob(os.path.join(ws.rundir, "*.ctl"))[0]
    socks = []
    for p in procs:
        os.kill(p.pid, signal.SIGSTOP)
    for name in names:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(60)
        s.connect(path)
        socks.append(s)
    for s, name in zip(socks, names):
        arg = name.encode() + b"\0"
        s.sendall(CTL_HEADER.pack(CTL_MAGIC, CTL_VERSION, SESSION_START, 0, 1, len(arg), 0) + arg)
    time.sleep(0.08)
    for p in procs:
        os.kill(p.pid, signal.SIGCONT)
    replies = [ctl_read_reply(s) for s in socks]
    for s in socks:
        s.close()
    return replies


# The listener thread answers every connection as it comes: the two joins
# of a program go on side by side.
procs = [ws.start_app("webish", ["0"], UST_CONTROL="thread") for _ in range(N)]
where = {}
for rnd in (1, 2):
    ctl("create-session", "-o", ws.out, "disk")
    ctl("create-session", "-o", ws.out, "--overwrite", "fr")
    for name in ("disk", "fr"):
        ctl("enable-marker", "-s", name, "http:*")
    replies = start_together(["disk", "fr"], procs)
    counts = [int(r[1][0]) if r and r[0] == 0 else -1 for r in replies]
    where = {p.pid: trace_of(p.pid) for p in procs}
    t.ok(sum(counts) == N and sorted(set(where.values())) <= ["disk", "fr"] and
         None not in where.values(),
         "round %d: disk and fr started together: each of the %d programs traces one "
         "(%d and %d)" % (rnd, N, counts[0], counts[1]), repr((replies, where)))
    wrong = []
    for p in procs:
        snap = ctl("snapshot", "-t", where[p.pid], p.pid)
        if where[p.pid] == "fr" and snap.returncode != 0:
            wrong.append((p.pid, "fr, but not a flight recorder", snap.stderr.strip()))
        if where[p.pid] == "disk" and "written to disk as it goes" not in snap.stderr:
            wrong.append((p.pid, "disk, but a flight recorder", snap.stdout + snap.stderr))
    t.eq(wrong, [], "round %d: every program has its session's mode" % rnd)
    if rnd == 1:
        for name in ("disk", "fr"):
            ctl("destroy-session", name)

# A third session: every program traces disk or fr already.
auto = ws.start_app("webish", ["0"], UST_TRACE=1, UST_AUTOPROBE="http:*")
by = {}
for pid, name in where.items():
    by[name] = by.get(name, 0) + 1
ctl("create-session", "-o", ws.out, "third")
ctl("enable-marker", "-s", "third", "http:*")
res = ctl("start-session", "third")
parts = ["session %s (%d)" % (name, by[name]) for name in ("disk", "fr") if name in by]
want = ("session third started (0 running programs trace it now; %d more match it but trace "
        "another session, left alone (a process holds one trace):" % (N + 1))
line = res.stdout.strip()
got = sorted(x.strip() for x in line[len(want):-1].split(",")) \
    if line.startswith(want) and line.endswith(")") else None
t.ok(res.returncode == 0 and res.stdout.startswith(want) and
     got == sorted(parts + ["a trace of no session (1)"]),
     "start-session third names the sessions its %d programs trace, and the trace of no "
     "session" % (N + 1), res.stdout + res.stderr)
ctl("stop-session", "third")
res = ctl("--mi", "xml", "start-session", "third")
valid = subprocess.run(["xmllint", "--noout", "--schema", XSD, "-"], input=res.stdout,
                       capture_output=True, text=True, timeout=60)
left = {}
if valid.returncode == 0:
    for e in ET.fromstring(res.stdout).iter("left-alone"):
        left[e.get("session")] = int(e.text)
t.ok(res.returncode == 0 and valid.returncode == 0 and
     left == dict(list(by.items()) + [(None, 1)]),
     "start-session --mi xml: a left-alone element per session, valid against ustctl-mi.xsd",
     res.stdout + res.stderr + valid.stderr)
# Programs the session does not match are no news.
ctl("create-session", "-o", ws.out, "other")
ctl("enable-marker", "-s", "other", "nosuch:*")
res = ctl("start-session", "other")
t.ok(res.returncode == 0 and "left alone" not in res.stdout and
     "0 running programs trace it now)" in res.stdout,
     "start-session of a session no program matches: nobody counted as left alone",
     res.stdout + res.stderr)
for name in ("disk", "fr", "third", "other"):
    ctl("destroy-session", name)
for p in procs + [auto]:
    ws.stop_app(p)
t.done()
