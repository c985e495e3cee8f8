# SPDX-License-Identifier: GPL-2.0-only
"""Process trackers of ustd's sessions (ustctl track, untrack), with the
real ustd and tests/apps/service run under two names (svc-a, svc-b: links
to it). track --procname svc-a: of the programs running at start-session
and of those started later (which read the published file), only svc-a's
join, and list-sessions NAME shows the tracker. track --pid of one svc-a
then: a process must pass every kind, so the other svc-a stops recording
(as LTTng stops recording an untracked process) and records again after
track --pid --all. untrack of the last svc-a: no process of that name,
the running ones stop, one started later does not join; track --procname
--all takes every process again, the svc-b ones included. Each phase is
told apart by the app:warn markers each process emits. Then bad input.
Then fork children of a tracked pid: the child of a program that joined
through ustd is stopped by ustd at its hello, and a forking server's
workers do not trace (libust tests them at their first event)."""

import os
import re
import subprocess
import time

import xml.etree.ElementTree as ET

import ustest
from service_app import command, quit_service, start_service
from ustest import TOP_SRC, Tap, Workspace, app, babeltrace_check, read_trace, wait_for

t = Tap()
ws = Workspace()
ws.start_ustd()
XSD = os.path.join(TOP_SRC, "doc", "xml", "ustctl-mi.xsd")
EXE = {}
for name in ("svc-a", "svc-b"):
    EXE[name] = os.path.join(ws.root, name)
    os.symlink(app("service"), EXE[name])


def ctl(*args):
    return ws.ustctl_fast([str(a) for a in args])


def start(name):
    return start_service(ws, exe=EXE[name])


def trace_of(p):
    return os.path.join(sdir, "%s-%d" % (names[p.pid], p.pid))


def warns_of(p):
    """The app:warn seqs in p's trace of the session, [] without one."""
    d = trace_of(p)
    if not os.path.isdir(d):
        return []
    events, _ = read_trace(d)
    return sorted(e.fields["seq"] for e in events if e.name == "app:warn")


def warn_all(seq):
    for p in procs:
        command(p, "warn %d" % seq)


def listed():
    res = ctl("list-sessions", "tr")
    return sorted(int(m) for m in re.findall(r"^  process (\d+) ", res.stdout, re.M)), res.stdout


res = ctl("create-session", "-o", ws.out, "tr")
t.ok(res.returncode == 0, "create-session tr", res.stderr)
sdir = ustest.session_dir(ws.out, "tr")
ctl("enable-marker", "-s", "tr", "app:*")
res = ctl("track", "-s", "tr", "--procname", "svc-a")
t.ok(res.returncode == 0 and res.stdout == "session tr: tracks 1 procname value; 1 tracked now\n",
     "track -s tr --procname svc-a", res.stdout + res.stderr)
a1, b1 = start("svc-a"), start("svc-b")
names = {a1.pid: "svc-a", b1.pid: "svc-b"}
res = ctl("start-session", "tr")
t.ok(res.returncode == 0 and "(1 running program trace it now)" in res.stdout,
     "start-session tr: of the 2 programs running, svc-a's only", res.stdout + res.stderr)
a2, b2 = start("svc-a"), start("svc-b")
names.update({a2.pid: "svc-a", b2.pid: "svc-b"})
procs = [a1, b1, a2, b2]
t.ok(wait_for(lambda: os.path.isdir(trace_of(a2)), timeout=15),
     "an svc-a started later joins by itself")
t.eq(listed()[0], sorted([a1.pid, a2.pid]), "list-sessions tr: the 2 svc-a processes only")
t.ok("  tracking: every pid; procname svc-a; every uid\n" in listed()[1],
     "list-sessions tr shows the procname tracker", listed()[1])
res = ctl("--mi", "xml", "list-sessions", "tr")
valid = subprocess.run(["xmllint", "--noout", "--schema", XSD, "-"], input=res.stdout,
                       capture_output=True, text=True, timeout=60)
tr = ET.fromstring(res.stdout).findall("./ustd-session/tracker") if valid.returncode == 0 else []
t.ok([(x.get("kind"), x.get("policy"), [v.text for v in x.findall("value")]) for x in tr] ==
     [("pid", "all", []), ("procname", "set", ["svc-a"]), ("uid", "all", [])],
     "list-sessions tr --mi xml: the trackers, valid against the schema",
     res.stdout + valid.stderr)
warn_all(1)

# A second kind: a process must pass both.
res = ctl("track", "-s", "tr", "--pid", a1.pid)
t.ok(res.returncode == 0, "track -s tr --pid A1", res.stderr)
t.eq(listed()[0], sorted([a1.pid, a2.pid]), "A2 stays in the session, stopped")
warn_all(2)
res = ctl("track", "-s", "tr", "--pid", "--all")
t.ok(res.returncode == 0 and res.stdout == "session tr: tracks every pid\n",
     "track -s tr --pid --all", res.stdout + res.stderr)
warn_all(3)

# The last procname untracked: none.
res = ctl("untrack", "-s", "tr", "--procname", "svc-a")
t.ok(res.returncode == 0 and "untracked 1 procname value; 0 tracked now" in res.stdout,
     "untrack -s tr --procname svc-a", res.stdout + res.stderr)
t.ok("  tracking: every pid; no procname; every uid\n" in listed()[1],
     "list-sessions tr: no procname tracked", listed()[1])
a3 = start("svc-a")
names[a3.pid] = "svc-a"
procs.append(a3)
warn_all(4)
time.sleep(0.5)
t.ok(not os.path.isdir(trace_of(a3)), "an svc-a started now does not join")

res = ctl("track", "-s", "tr", "--procname", "--all")
t.ok(res.returncode == 0, "track -s tr --procname --all: every process", res.stderr)
t.eq(listed()[0], sorted(p.pid for p in procs), "list-sessions tr: all 5 processes")
warn_all(5)
res = ctl("stop-session", "tr")
t.ok(res.returncode == 0, "stop-session tr", res.stderr)
ok, err = babeltrace_check(sdir)
t.ok(ok, "babeltrace2 reads the session", err)
t.eq(warns_of(a1), [1, 2, 3, 5], "A1: recorded throughout but when no procname was tracked")
t.eq(warns_of(a2), [1, 3, 5], "A2: not while --pid A1 left it out, nor with no procname")
t.eq(warns_of(b1), [5], "B1: only once every procname was tracked again")
t.eq(warns_of(b2), [5], "B2, started later: the same")
t.eq(warns_of(a3), [5], "A3, started while no procname was tracked: from then on")

# Bad input.
CASES = [
    (["track", "-s", "tr", "svc-a"], 2, "give one of --pid, --procname and --uid"),
    (["track", "-s", "tr", "--pid", "--uid", "1"], 2, "give one of"),
    (["track", "-s", "tr", "--pid"], 2, "give the values to track, or --all"),
    (["track", "--pid", "1"], 2, "-s NAME"),
    (["track", "-s", "tr", "--pid", "x1"], 2, "invalid pid 'x1'"),
    (["track", "-s", "tr", "--pid", "0"], 2, "invalid pid '0'"),
    (["track", "-s", "tr", "--pid", "5", "*"], 2, "invalid pid '*'"),
    (["untrack", "-s", "tr", "--pid", "123"], 1, "session 'tr' does not track pid 123"),
    (["track", "-s", "nosuch", "--pid", "1"], 1, "no session 'nosuch'"),
]
for argv, code, text in CASES:
    res = ctl(*argv)
    t.ok(res.returncode == code and text in res.stderr,
         "%s: exit %d, says %r" % (" ".join(argv), code, text), res.stdout + res.stderr)
res = ctl("--mi", "xml", "track", "-s", "tr", "--uid", os.getuid(), 0)
valid = subprocess.run(["xmllint", "--noout", "--schema", XSD, "-"], input=res.stdout,
                       capture_output=True, text=True, timeout=60)
tr = ET.fromstring(res.stdout).findall("./ustd-session/tracker") if valid.returncode == 0 else []
t.ok(res.returncode == 0 and [(x.get("kind"), x.get("action"), [v.text for v in x])
                              for x in tr] == [("uid", "track", [str(os.getuid()), "0"])],
     "track -s tr --uid UID 0 --mi xml: the values, valid against the schema",
     res.stdout + res.stderr + valid.stderr)
ctl("destroy-session", "tr")
for p in procs:
    t.eq(quit_service(p), 0, "process %d ends normally" % p.pid)

# The child of a program that joined through ustd (it read no file, so
# its child knows of no tracker): ustd stops the child's trace at its
# hello. The child's first warn starts its trace (and may be in it, when
# it is written before ustd's stop lands); the one 1.5 s later is not.
ctl("create-session", "-o", ws.out, "fb")
bdir = ustest.session_dir(ws.out, "fb")
ctl("enable-marker", "-s", "fb", "app:warn")
parent = start_service(ws)
ctl("track", "-s", "fb", "--pid", parent.pid)
res = ctl("start-session", "fb")
t.ok(res.returncode == 0 and "(1 running program trace it now)" in res.stdout,
     "start-session fb: the tracked service joins through ustd", res.stdout + res.stderr)
parent.stdin.write("fork 100 1500\n")
parent.stdin.flush()
m = re.match(r"child (\d+)", parent.stdout.readline())
child = int(m.group(1)) if m else 0
t.ok(child > 0 and parent.stdout.readline().strip() == "done", "its child ran and ended")
ctl("destroy-session", "fb")
events, _ = (read_trace(os.path.join(bdir, "service-%d" % child))
             if os.path.isdir(os.path.join(bdir, "service-%d" % child)) else ([], None))
seqs = sorted(e.fields["seq"] for e in events if e.name == "app:warn")
t.ok(seqs in ([], [100]),
     "the child's trace holds its first warn at most: ustd stopped it (at its hello, or "
     "when its socket appeared), before the one 1.5 s later", seqs)
t.eq(quit_service(parent), 0, "the service ends normally")

# A fork child of a tracked pid: its own pid is not tracked. The server's
# pid is tracked before it runs (it waits for a byte, then execs).
res = ctl("create-session", "-o", ws.out, "fk")
fdir = ustest.session_dir(ws.out, "fk")
ctl("enable-marker", "-s", "fk", "svc:*")
ctl("start-session", "fk")
go_r, go_w = os.pipe()
in_r, in_w = os.pipe()
out_r, out_w = os.pipe()
env = ws.env()
pid = os.fork()
if pid == 0:
    os.dup2(in_r, 0)
    os.dup2(out_w, 1)
    os.read(go_r, 1)
    os.execve(app("forking_server"), [app("forking_server"), "50", "2"], env)
for fd in (go_r, in_r, out_w):
    os.close(fd)
res = ctl("track", "-s", "fk", "--pid", pid)
t.ok(res.returncode == 0, "track -s fk --pid of a forking server about to run", res.stderr)
os.write(go_w, b"x")
ready = os.read(out_r, 64)
t.ok(ready.startswith(b"ready"), "the server forked its 2 workers, which ended", ready)
os.close(in_w)
_, status = os.waitpid(pid, 0)
t.ok(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "the server ends normally")
for fd in (go_w, out_r):
    os.close(fd)
ctl("destroy-session", "fk")
found = sorted(os.listdir(fdir))
t.eq(found, ["forking_server-%d" % pid], "only the tracked server traced for the session, "
     "not its workers")
events, _ = read_trace(os.path.join(fdir, found[0])) if found else ([], None)
names_seen = {e.name for e in events}
t.ok("svc:start" in names_seen and "svc:work" not in names_seen,
     "its trace holds its own events, none of its workers'", names_seen)
t.done()
