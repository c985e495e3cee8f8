# SPDX-License-Identifier: GPL-2.0-only
"""One process in two sessions at once, each its own trace (manual 4.1).

A flight-recorder session "flight" runs all the time and records every
svc:* event; a session "debug" started later to look at a few events
records svc:tick only, through a filter. The program running when debug
starts joins it (before, a second session found it "busy"); a program
started afterwards joins both from main() on. forking_server numbers its
events, so each session's trace must hold exactly what its rules select
of what the program emitted: flight's through a snapshot (-t flight names
its trace among the two of the process) and on disk at the end, debug's
on disk once destroyed; a program killed in both is rescued in both.
Last, sigstorm in two sessions: signal handlers tracing in the middle of
event writes, each event copied into the second trace at its commit.
"""

import os
import re
import signal
import subprocess

import forking_server
from ustest import (Tap, Workspace, app, babeltrace_check, read_trace, read_trace_ints,
                    session_dir, wait_for)

t = Tap()
N = 200
LO, HI = 250, 300
DEBUG_FILTER = "seq >= %d && seq < %d" % (LO, HI)


def ok_cmd(ws, args, what):
    res = ws.ustctl(args)
    t.ok(res.returncode == 0, what, res.stdout + res.stderr)
    return res


def seqs(events, name):
    return [e.fields["seq"] for e in events if e.name == name]


def process_dirs(sdir):
    """{pid: directory} of the session directory's forking_server-<pid>."""
    out = {}
    for sub in sorted(os.listdir(sdir)):
        m = re.fullmatch(r"forking_server-(\d+)", sub)
        if m:
            out[int(m.group(1))] = os.path.join(sdir, sub)
    return out


ws = Workspace()
ws.start_ustd()
ok_cmd(ws, ["create-session", "-o", ws.out, "--overwrite", "flight"],
       "create-session --overwrite flight")
ok_cmd(ws, ["enable-marker", "-s", "flight", "svc:*"], "flight records svc:*")
ok_cmd(ws, ["start-session", "flight"], "start-session flight")

# Joins flight from its first event on: svc:start 0..N-1, then ticks 0..N-1.
svc = forking_server.Service(ws, N)
svc.go()

ok_cmd(ws, ["create-session", "-o", ws.out, "debug"], "create-session debug")
ok_cmd(ws, ["enable-marker", "-s", "debug", "--filter", DEBUG_FILTER, "svc:tick"],
       "debug records svc:tick where " + DEBUG_FILTER)
res = ok_cmd(ws, ["start-session", "debug"], "start-session debug while flight traces")
t.ok("(1 running program" in res.stdout,
     "the program in flight's trace joins debug too (not busy)", res.stdout)
res = ws.ustctl(["info", svc.pid])
t.ok(res.returncode == 0, "ustctl info answers", res.stderr)

# Ticks N..2N-1: flight records all, debug those in [LO, HI).
svc.go()
# Started now: joins both sessions at its first event.
late = forking_server.Service(ws, N)
late.go()
late.go()

snapdir = os.path.join(ws.root, "snap")
res = ws.ustctl(["snapshot", "-t", "flight", "-o", snapdir, svc.pid])
t.ok(res.returncode == 0, "snapshot -t flight of the first program", res.stdout + res.stderr)
m = re.search(r"trace flight: snapshot in (\S+)", res.stdout)
snap = m.group(1) if m else "/nonexistent"
res = ws.ustctl(["snapshot", "-t", "debug", "-o", snapdir, svc.pid])
t.ok(res.returncode == 1 and "trace 'debug' is written to disk as it goes" in res.stderr,
     "snapshot -t debug is refused: debug is not a flight recorder", res.stderr)

# A rule for one trace of a process (-t): debug's filters add up, flight's
# rules stay as they are.
EXTRA = (2 * N + 100, 2 * N + 110)
ok_cmd(ws, ["enable-marker", "-t", "debug", "--filter", "seq >= %d && seq < %d" % EXTRA,
            svc.pid, "svc:tick"], "enable-marker -t debug in the first program")
res = ws.ustctl(["disable-marker", "-t", "nosuch", svc.pid, "svc:*"])
t.ok(res.returncode == 0, "rules for a third trace name take a slot of their own",
     res.stderr)

# Four traces at most: two more fit, a fifth is refused and said.
for extra in ("x1", "x2"):
    ok_cmd(ws, ["create-trace", "-t", extra, svc.pid],
           "create-trace -t %s: a third or fourth trace" % extra)
res = ws.ustctl(["create-trace", "-t", "x3", svc.pid])
t.ok(res.returncode == 1 and "no room for trace 'x3'" in res.stderr,
     "create-trace of a fifth trace: exit 1, said", res.stderr)
for extra in ("x1", "x2"):
    ok_cmd(ws, ["destroy-trace", "-t", extra, svc.pid], "destroy-trace -t " + extra)

# Killed while in both sessions: each trace rescued into its session.
victim = forking_server.Service(ws, N)
victim.go()
victim.go()
victim.proc.send_signal(signal.SIGKILL)
victim.proc.wait()

# Ticks 2N..3N-1: past debug's first filter, some within its second.
svc.go()
t.eq(svc.end(), 0, "the first program ends well")
t.eq(late.end(), 0, "the later program ends well")

ok, err = babeltrace_check(snap)
t.ok(ok, "babeltrace2 reads flight's snapshot", err)
events, discarded = read_trace(snap) if ok else ([], 0)
t.eq(discarded, 0, "the snapshot lost nothing")
t.eq(seqs(events, "svc:start"), list(range(N)), "flight's snapshot: every svc:start, in order")
t.eq(seqs(events, "svc:tick"), list(range(2 * N)),
     "flight's snapshot: every svc:tick up to the snapshot, in order, filter or not")

ddir = session_dir(ws.out, "debug")
vdir = os.path.join(ddir, "forking_server-%d" % victim.pid) if ddir else "/nonexistent"


def rescued():
    try:
        return seqs(read_trace(vdir)[0], "svc:tick") == list(range(LO, HI))
    except Exception:
        return False


t.ok(wait_for(rescued, 20), "the killed program's trace in debug is rescued, exactly")
ok_cmd(ws, ["destroy-session", "debug"], "destroy-session debug")
ok_cmd(ws, ["destroy-session", "flight"], "destroy-session flight")
ddir = session_dir(ws.out, "debug")
t.ok(ddir is not None, "debug has its directory", os.listdir(ws.out))
procs = process_dirs(ddir) if ddir else {}
t.eq(sorted(procs), sorted([svc.pid, late.pid, victim.pid]), "debug: a directory per program")
for p, what, want in ((svc, "the program running when debug started",
                       list(range(LO, HI)) + list(range(*EXTRA))),
                      (late, "the program started later", list(range(LO, HI)))):
    path = procs.get(p.pid)
    ok, err = babeltrace_check(path) if path else (False, "no directory")
    t.ok(ok, "babeltrace2 reads debug's trace of %s" % what, err)
    events, discarded = read_trace(path) if ok else ([], 0)
    t.eq(sorted({e.name for e in events}), ["svc:tick"] if events else [],
         "debug's trace of %s: svc:tick only" % what)
    t.eq(seqs(events, "svc:tick"), want,
         "debug's trace of %s: exactly the ticks its filter selects" % what)
    t.eq(discarded, 0, "debug's trace of %s lost nothing" % what)
# flight is written at the end (destroy-session, exit, crash): every
# svc:* event of each program, whatever debug's rules.
fdir = session_dir(ws.out, "flight")
procs = process_dirs(fdir) if fdir else {}
t.eq(sorted(procs), sorted([svc.pid, late.pid, victim.pid]), "flight: a directory per program")
for p, what, ticks in ((svc, "the first program", 3 * N), (late, "the later program", 2 * N),
                       (victim, "the killed program", 2 * N)):
    events, discarded = read_trace(procs[p.pid]) if p.pid in procs else ([], 0)
    t.ok(seqs(events, "svc:start") == list(range(N)) and
         seqs(events, "svc:tick") == list(range(ticks)) and discarded == 0,
         "flight's trace of %s: every svc:start and svc:tick, exactly" % what,
         "%d events, %d discarded" % (len(events), discarded))
ws.cleanup()

# --- Signal handlers that trace, nested in event writes, in two traces at
# once: every event is copied into the second trace at its commit, from a
# per-thread frame that nested writes stack (manual 12.8). Large buffers:
# both traces must hold every numbered event exactly once.
ws = Workspace()
ws.start_ustd()
for name, pattern in (("all", "ust:*"), ("handlers", "ust:sig_*")):
    ok_cmd(ws, ["create-session", "-o", ws.out, "--subbuf-size", "1M", "--subbuf-num", "16",
                name], "create-session " + name)
    ok_cmd(ws, ["enable-marker", "-s", name, pattern], "%s records %s" % (name, pattern))
    ok_cmd(ws, ["start-session", name], "start-session " + name)
res = subprocess.run([app("sigstorm"), "2", "50000", "20"], env=ws.env(), capture_output=True,
                     text=True, timeout=120)
t.ok(res.returncode == 0, "sigstorm in two sessions succeeds", res.stderr)
emitted, nested = {}, 0
for m in re.finditer(r"^emitted (\d+) (\d+) (\d+) (\d+) (\d+) \d+$", res.stdout, re.M):
    for kind, n in zip(("loop", "sig_a", "sig_b"), m.groups()[1:4]):
        emitted[(kind, int(m.group(1)))] = int(n)
    nested += int(m.group(5))
t.ok(len(emitted) == 6 and nested > 100,
     "the storm ran, %d handler runs nested in an event write" % nested)
for name, kinds in (("all", ("loop", "sig_a", "sig_b")), ("handlers", ("sig_a", "sig_b"))):
    ok_cmd(ws, ["destroy-session", name], "destroy-session " + name)
    sdir = session_dir(ws.out, name)
    ok, err = babeltrace_check(sdir) if sdir else (False, "no directory")
    t.ok(ok, "babeltrace2 reads %s's trace" % name, err)
    events, discarded = read_trace_ints(sdir) if ok else ([], 0)
    got = {}
    for e in events:
        got.setdefault((e.name.split(":")[-1], e.fields["thread"]), []).append(e.fields["seq"])
    want = {k: list(range(n)) for k, n in emitted.items() if k[0] in kinds}
    t.ok({k: sorted(v) for k, v in got.items()} == want and discarded == 0,
         "%s: every numbered event of %s exactly once" % (name, "/".join(kinds)),
         "%d events, %d discarded" % (len(events), discarded))
ws.cleanup()
t.done()
