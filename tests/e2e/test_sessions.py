# SPDX-License-Identifier: GPL-2.0-only
"""Sessions held by ustd (ustctl create-session ... start-session).

A session applies to every -lust program of the user: one started after
it (from the first event of main() on, with no environment variable), the
ones running when it starts, the workers a traced server forks. Each
process's trace lands in OUTPUT/NAME-YYYYMMDD-HHMMSS/<procname>-<pid>/ and
babeltrace2 reads the session directory whole. The test program (forking_server)
numbers its events, so every count is exact. Faults: names taken or bad,
a session that does not exist, ustd killed and restarted (it resumes
its sessions), a program killed mid-session (rescued inside the session
directory). A program
that no session matches starts with one thread and no trace."""

import os
import re
import signal
import time

import forking_server
import ustest
from ustest import Tap, Workspace, babeltrace_check, read_trace, wait_for

t = Tap()
N = 200


class Service(forking_server.Service):
    """forking_server N WORKERS (forking_server.py), N events of each kind."""

    def __init__(self, ws, workers=0, n=N):
        super().__init__(ws, n, workers)


def ok_cmd(ws, args, what):
    res = ws.ustctl(args)
    t.ok(res.returncode == 0, what, res.stdout + res.stderr)
    return res


def session_dir(ws, name):
    return ustest.session_dir(ws.out, name)


def per_process(sdir):
    """{pid: [(event name, seq, worker or None)]} from each <procname>-<pid>."""
    out = {}
    for sub in sorted(os.listdir(sdir)):
        m = re.fullmatch(r"forking_server-(\d+)", sub)
        if not m:
            continue
        events, _ = read_trace(os.path.join(sdir, sub))
        out[int(m.group(1))] = [(e.name, e.fields["seq"], e.fields.get("worker"))
                                for e in events]
    return out


def seqs(events, name, worker=None):
    return [s for n, s, w in events if n == name and w == worker]


def threads(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"^Threads:\s+(\d+)", f.read(), re.M).group(1))


# --- A session started before a forking server: parent and workers.
ws = Workspace()
ws.start_ustd()
res = ok_cmd(ws, ["create-session", "-o", ws.out, "web"], "create-session web")
ok_cmd(ws, ["enable-marker", "-s", "web", "svc:*"], "enable-marker -s web svc:*")
ok_cmd(ws, ["start-session", "web"], "start-session web")
svc = Service(ws, workers=3)
svc.go()
t.eq(svc.end(), 0, "the forking server ends well")
ok_cmd(ws, ["destroy-session", "web"], "destroy-session web")
sdir = session_dir(ws, "web")
t.ok(sdir is not None, "one directory web-YYYYMMDD-HHMMSS", os.listdir(ws.out))
procs = per_process(sdir) if sdir else {}
t.eq(len(procs), 4, "four process directories: the server and its three workers")
parent = procs.get(svc.pid, [])
t.eq(seqs(parent, "svc:start"), list(range(N)),
     "the server's events from the first line of main(), before any command")
t.eq(seqs(parent, "svc:tick"), list(range(N)), "the server's later events")
workers = sorted(set(w for p in procs.values() for n, s, w in p if n == "svc:work"))
t.eq(workers, [0, 1, 2], "each worker recorded in a directory of its own")
for w in workers:
    mine = [p for p in procs.values() if any(x[2] == w for x in p)]
    t.ok(len(mine) == 1 and seqs(mine[0], "svc:work", w) == list(range(N))
         and not seqs(mine[0], "svc:start"),
         "worker %d: exactly its %d events" % (w, N))
ok, err = babeltrace_check(sdir)
t.ok(ok, "babeltrace2 reads the session directory whole", err)
events, _ = read_trace(sdir)
t.eq(len(events), N * 2 + N * 3, "babeltrace2 merges every process's events")
ts = [e.ts for e in events]
t.ok(ts == sorted(ts), "merged by time")
ws.cleanup()

# --- Started while 3 programs run; 2 more start later.
ws = Workspace()
ws.start_ustd()
early = [Service(ws) for _ in range(3)]
ok_cmd(ws, ["create-session", "-o", ws.out, "--subbuf-size", "8k", "later"],
       "create-session with a sub-buffer size")
ok_cmd(ws, ["enable-marker", "-s", "later", "svc:*"], "enable-marker -s later")
res = ok_cmd(ws, ["start-session", "later"], "start-session while 3 programs run")
t.ok("(3 running programs" in res.stdout, "start-session says 3 programs trace it",
     res.stdout)
late = [Service(ws) for _ in range(2)]
for s in early + late:
    s.go()
res = ok_cmd(ws, ["list-sessions"], "list-sessions")
t.ok(re.search(r"^later\tactive\t5 processes\t1 rule\t", res.stdout, re.M),
     "list-sessions: later, active, 5 processes", res.stdout)
for s in early + late:
    s.end()
ok_cmd(ws, ["destroy-session", "later"], "destroy-session later")
sdir = session_dir(ws, "later")
procs = per_process(sdir) if sdir else {}
t.eq(sorted(procs), sorted(s.pid for s in early + late), "one directory per program")
for s in early:
    p = procs.get(s.pid, [])
    t.ok(seqs(p, "svc:start") == [] and seqs(p, "svc:tick") == list(range(N)),
         "running program %d: its events since the start, exactly" % s.pid,
         p[:5])
for s in late:
    p = procs.get(s.pid, [])
    t.ok(seqs(p, "svc:start") == list(range(N)) and seqs(p, "svc:tick") == list(range(N)),
         "program %d started later: from main()'s first event on, exactly" % s.pid)
events, _ = read_trace(sdir) if sdir else ([], 0)
t.eq(len(events), 5 * N + 2 * N, "the whole session read merged")
res = ok_cmd(ws, ["list-sessions"], "list-sessions after destroy")
t.eq(res.stdout, "", "no session left")
t.ok(not os.path.exists(os.path.join(ws.rundir, "ustd.sessions")),
     "no published session file once none is active")

# --- A session that matches nothing: no thread, no trace, no wait.
ok_cmd(ws, ["create-session", "-o", ws.out, "other"], "create-session other")
ok_cmd(ws, ["enable-marker", "-s", "other", "nomatch:*"], "a rule that matches no event")
running = Service(ws)
res = ok_cmd(ws, ["start-session", "other"], "start-session other")
t.ok("(0 running programs" in res.stdout, "a running program it does not match is left alone",
     res.stdout)
t.ok(os.path.exists(os.path.join(ws.rundir, "ustd.sessions")), "the session is published")
s = Service(ws)
s.go()
running.go()
for p, what in ((s, "started after"), (running, "running before")):
    t.eq(threads(p.pid), 1, "a program no session matches (%s) runs one thread" % what)
    res = ws.ustctl(["info", p.pid])
    t.ok(re.search(r"^state:\s+none$", res.stdout, re.M), "and has no trace", res.stdout)
    p.end()
t.eq(os.listdir(session_dir(ws, "other")), [], "nothing in the session's directory")

# --- Faults and bad input.
res = ws.ustctl(["create-session", "-o", ws.out, "other"])
t.ok(res.returncode == 1 and "exists already" in res.stderr, "a name taken: exit 1, said",
     res.stderr)
res = ws.ustctl(["enable-marker", "-s", "nosuch", "svc:*"])
t.ok(res.returncode == 1 and "no session 'nosuch'" in res.stderr,
     "a pattern for a session that does not exist: exit 1, said", res.stderr)
for bad in ("bad/name", "auto", "x" * 60, ".hidden"):
    res = ws.ustctl(["create-session", bad])
    t.ok(res.returncode == 2 and "invalid session name" in res.stderr and "usage:" in res.stderr,
         "bad name %.20r: usage error, nothing sent" % bad, res.stderr)
res = ws.ustctl(["start-session", "other"])
t.ok(res.returncode == 1 and "active already" in res.stderr, "start twice: exit 1, said",
     res.stderr)
res = ws.ustctl(["enable-marker", "-s", "other", ""])
t.eq(res.returncode, 2, "an empty pattern: usage error")
res = ws.ustctl(["enable-marker", "-s", "other", "-t", "x", "svc:*"])
t.eq(res.returncode, 2, "-s and -t together: usage error")
res = ws.ustctl(["create-session", "--subbuf-size", "1000", "odd"])
t.eq(res.returncode, 2, "a sub-buffer size that is not a power of two: usage error")
res = ws.ustctl(["create-session", "-r", "net://localhost:0", "streamed"])
t.ok(res.returncode == 2 and "port is a number" in res.stderr,
     "-r with a bad URL: usage error (test_session_relay.py streams sessions)", res.stderr)
res = ws.ustctl(["start-session", "--help"])
t.ok(res.returncode == 0 and "Starts session NAME" in res.stdout, "start-session --help")

# --- A program killed mid-session: rescued inside the session directory.
ok_cmd(ws, ["create-session", "-o", ws.out, "crash"], "create-session crash")
ok_cmd(ws, ["enable-marker", "-s", "crash", "svc:*"], "enable-marker -s crash")
ok_cmd(ws, ["stop-session", "other"], "stop-session other (one session per program)")
ok_cmd(ws, ["start-session", "crash"], "start-session crash")
victim = Service(ws)
victim.go()
victim.proc.send_signal(signal.SIGKILL)
victim.proc.wait()
cdir = session_dir(ws, "crash")
vdir = os.path.join(cdir, "forking_server-%d" % victim.pid) if cdir else "/nonexistent"


def rescued():
    try:
        return len(read_trace(vdir)[0]) == 2 * N
    except Exception:
        return False


t.ok(wait_for(rescued, 20), "the killed program's %d events are rescued in %s" % (2 * N, vdir))

# --- A flight-recorder session: snapshots of a session's trace.
ok_cmd(ws, ["stop-session", "crash"], "stop-session crash")
ok_cmd(ws, ["create-session", "-o", ws.out, "--overwrite", "fr"], "create-session --overwrite")
ok_cmd(ws, ["enable-marker", "-s", "fr", "svc:*"], "enable-marker -s fr")
ok_cmd(ws, ["start-session", "fr"], "start-session fr")
s = Service(ws)
s.go()
snaps = os.path.join(ws.root, "snaps")
res = ok_cmd(ws, ["snapshot", "-t", "fr", "-o", snaps, s.pid],
             "snapshot of the session's trace in a program")
snap = [os.path.join(snaps, d) for d in os.listdir(snaps)] if os.path.isdir(snaps) else []
events = read_trace(snap[0])[0] if len(snap) == 1 else []
t.ok([e.fields["seq"] for e in events if e.name == "svc:start"] == list(range(N)) and
     [e.fields["seq"] for e in events if e.name == "svc:tick"] == list(range(N)),
     "the snapshot holds the program's events, exactly", snap)
s.end()
ok_cmd(ws, ["destroy-session", "fr"], "destroy-session fr")
ok_cmd(ws, ["start-session", "crash"], "start-session resumes a stopped session")

# --- ustd killed and restarted: it resumes its sessions (test_session_resume.py
# has the details); once destroyed, nothing joins them.
ustd = ws.daemons[0]
ustd.send_signal(signal.SIGKILL)
ustd.wait()
t.ok(os.path.exists(os.path.join(ws.rundir, "ustd.sessions")),
     "a killed ustd leaves its published sessions behind")
ws.start_ustd()
res = ok_cmd(ws, ["list-sessions"], "list-sessions on the restarted ustd")
t.ok(re.search(r"^crash\tactive\t", res.stdout, re.M), "the restarted ustd resumed session crash",
     res.stdout)
ok_cmd(ws, ["destroy-session", "crash"], "destroy-session crash")
t.ok(not os.path.exists(os.path.join(ws.rundir, "ustd.sessions")),
     "no session is published any more")
s = Service(ws)
t.eq(threads(s.pid), 1, "a program started now is not traced")
s.end()
res = ok_cmd(ws, ["create-session", "-o", ws.out, "crash"],
             "the name of a destroyed session is free again")
t.done()
