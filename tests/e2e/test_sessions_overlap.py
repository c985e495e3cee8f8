# SPDX-License-Identifier: GPL-2.0-only
"""Sessions over the same running programs (tests/apps/webish, 12 of
them), each program holding a trace per session, up to four:

- two started at once (two start-session requests in flight together, the
  programs answering them in the same moments): each program joins both,
  each trace with its own session's mode: the flight recorder's takes
  snapshots, the disk session's is written to disk (snapshot refused).
  ustd's joins of one program used to interleave their four requests, and
  some programs of the disk session became flight recorders (1 to 5 of 8
  in as many runs), those of the flight recorder written to disk as they
  go (the review's failed snapshots);
- once every program holds four traces, a fifth session traces none of
  them and says so: start-session counts the programs left alone by the
  session they trace, in its text and in --mi xml (valid against
  ustctl-mi.xsd); programs that do not match the session are not
  counted. It used to say "0 running programs trace it now" and nothing
  else."""

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
for rnd in (1, 2):
    ctl("create-session", "-o", ws.out, "disk")
    ctl("create-session", "-o", ws.out, "--overwrite", "fr")
    for name in ("disk", "fr"):
        ctl("enable-marker", "-s", name, "http:*")
    replies = start_together(["disk", "fr"], procs)
    counts = [int(r[1][0]) if r and r[0] == 0 else -1 for r in replies]
    t.eq(counts, [N, N], "round %d: disk and fr started together: each of the %d programs "
         "traces both" % (rnd, N))
    wrong = []
    for p in procs:
        snap = ctl("snapshot", "-t", "fr", p.pid)
        if snap.returncode != 0:
            wrong.append((p.pid, "fr, but not a flight recorder", snap.stderr.strip()))
        snap = ctl("snapshot", "-t", "disk", p.pid)
        if "written to disk as it goes" not in snap.stderr:
            wrong.append((p.pid, "disk, but a flight recorder", snap.stdout + snap.stderr))
    t.eq(wrong, [], "round %d: every program's two traces have their session's mode" % rnd)
    if rnd == 1:
        for name in ("disk", "fr"):
            ctl("destroy-session", name)

# A program tracing by itself (a trace of no session) joins disk and fr
# as it starts; two more sessions fill every program's four slots.
auto = ws.start_app("webish", ["0"], UST_TRACE=1, UST_AUTOPROBE="http:*")
for name in ("third", "fourth"):
    ctl("create-session", "-o", ws.out, name)
    ctl("enable-marker", "-s", name, "http:*")
    ctl("start-session", name)
ctl("create-session", "-o", ws.out, "fifth")
ctl("enable-marker", "-s", "fifth", "http:*")
res = ctl("start-session", "fifth")
want = ("session fifth started (0 running programs trace it now; %d more match it but trace "
        "another session, left alone (each traces four sessions already, the most a process "
        "holds):" % (N + 1))
line = res.stdout.strip()
parts = [re.match(r"(.*) \((\d+)\)$", x.strip()) for x in line[len(want):-1].split(",")] \
    if line.startswith(want) and line.endswith(")") else []
named = {m.group(1): int(m.group(2)) for m in parts if m}
known = {"session disk", "session fr", "session third", "session fourth",
         "a trace of no session"}
t.ok(res.returncode == 0 and named and set(named) <= known and sum(named.values()) == N + 1,
     "start-session fifth counts its %d programs left alone, by the sessions they trace"
     % (N + 1), res.stdout + res.stderr)
ctl("stop-session", "fifth")
res = ctl("--mi", "xml", "start-session", "fifth")
valid = subprocess.run(["xmllint", "--noout", "--schema", XSD, "-"], input=res.stdout,
                       capture_output=True, text=True, timeout=60)
left = {}
if valid.returncode == 0:
    for e in ET.fromstring(res.stdout).iter("left-alone"):
        left[e.get("session")] = int(e.text)
t.ok(res.returncode == 0 and valid.returncode == 0 and sum(left.values()) == N + 1 and
     set(left) <= {"disk", "fr", "third", "fourth", None},
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
for name in ("disk", "fr", "third", "fourth", "fifth", "other"):
    ctl("destroy-session", name)
for p in procs + [auto]:
    ws.stop_app(p)
t.done()
