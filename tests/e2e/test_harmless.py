#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""libust is harmless by design (manual 11.1, "Never harm the program"):
- programs nobody targets get no signal: list-pids, ustd starting and
  restarting, usttrace of another program cut no wait short, and daemons
  that reset every handler to SIG_DFL live on;
- a targeted program has at most one wait cut short in its life, then a
  listener thread serves it (ustctl info says so);
- a daemon that reset its handlers and a signalfd program survive being
  targeted, and ustctl says why they do not answer and what to do;
  with UST_CONTROL=thread they answer; one that takes SIGURG over and
  forks is served by a listener thread from then on;
- a program that uses SIGIO itself sees SIG_DFL before installing its
  handler, only its own deliveries, and stays controllable;
- children of a traced program live: fork+exec, vfork, system(), double
  fork; ustd's CPU per short-lived child is bounded; apps/ keeps no dead
  program's socket;
- a forking service (workers replaced every second, each starting
  /bin/true every 100 ms) under a session rotating every second: no
  worker or child killed, every event in exactly one chunk."""

import os
import re
import signal
import statistics
import subprocess
import time

from ustest import (Tap, Workspace, app, babeltrace_check, read_trace, session_dir,
                    wait_for, context_discarded)

t = Tap()


def start(ws, args, **env):
    """A bystander (or another program printing "ready"), once it is ready."""
    proc = subprocess.Popen([app(args[0])] + [str(a) for a in args[1:]], env=ws.env(**env),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ws.daemons.append(proc)
    line = proc.stdout.readline()
    if not line.startswith("ready") and not line.startswith("sigio"):
        raise RuntimeError("%s did not start: %r %s" % (args, line, proc.stderr.read()))
    first = [line.strip()]
    if line.startswith("sigio"):
        first.append(proc.stdout.readline().strip())
    proc.first = first
    sock = ws.app_socket(proc.pid)
    wait_for(lambda: os.path.exists(sock), 5)
    return proc


def finish(proc, timeout=60):
    """(returncode, {"early": N, ...}, stdout, stderr) once the program ended."""
    out, err = proc.communicate(timeout=timeout)
    facts = {}
    m = re.search(r"^early (\d+)$", out, re.M)
    if m:
        facts["early"] = int(m.group(1))
    m = re.search(r"^sigio own (\d+) foreign (\d+)$", out, re.M)
    if m:
        facts["own"], facts["foreign"] = int(m.group(1)), int(m.group(2))
    return proc.returncode, facts, out, err


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def dead_sockets(ws):
    apps = os.path.join(ws.rundir, "apps")
    dead = []
    for name in os.listdir(apps) if os.path.isdir(apps) else []:
        if name.isdigit() and not os.path.exists("/proc/" + name):
            dead.append(name)
    return dead


def ustd_stop(proc):
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=30)
    return proc.returncode


HZ = os.sysconf("SC_CLK_TCK")

# --- 1. Nobody targets them: nothing reaches them.
ws = Workspace()
plain = start(ws, ["bystander", 4000])
dfl = start(ws, ["bystander", "-r", 4000])
dfl_sa = start(ws, ["bystander", "-R", 4000])
listed = 0
for _ in range(30):
    res = ws.ustctl_fast(["list-pids"])
    listed += all(str(p.pid) in res.stdout.split() for p in (plain, dfl, dfl_sa))
t.eq(listed, 30, "list-pids lists the three programs, 30 times")
for _ in range(2):
    t.eq(ustd_stop(ws.start_ustd()), 0, "a ustd starts and stops beside them")
res = ws.usttrace([app("hello"), "10"])
t.eq(res.returncode, 0, "usttrace traces another program beside them")
for name, proc in (("plain", plain), ("SIG_DFL by signal()", dfl),
                   ("SIG_DFL by sigaction()", dfl_sa)):
    rc, facts, out, err = finish(proc)
    t.ok(rc == 0 and facts.get("early") == 0,
         "%s: lives, and none of its waits was cut short" % name,
         "rc %s, %s\n%s" % (rc, facts, err))
ws.cleanup()

# --- 2. A program someone targets: one wait cut short at most, then a thread.
ws = Workspace()
ws.start_ustd()
proc = start(ws, ["bystander", 8000])
threads_before = len(os.listdir("/proc/%d/task" % proc.pid))
ok = 0
for _ in range(10):
    ok += ws.ustctl_fast(["info", proc.pid]).returncode == 0
    ok += ws.ustctl_fast(["list-markers", proc.pid]).returncode == 0
for args in (["enable-marker", proc.pid, "ust:round"], ["create-trace", proc.pid],
             ["start-trace", proc.pid]):
    ok += ws.ustctl_fast(args).returncode == 0
time.sleep(0.5)
for args in (["stop-trace", proc.pid], ["destroy-trace", proc.pid]):
    ok += ws.ustctl_fast(args).returncode == 0
res = ws.ustctl_fast(["info", proc.pid])
ok += res.returncode == 0
t.eq(ok, 26, "26 requests answered")
t.ok("control:  listener thread (since the first request that found the program waiting)"
     in res.stdout, "info says a listener thread took over, and why", res.stdout + res.stderr)
t.eq(len(os.listdir("/proc/%d/task" % proc.pid)), threads_before + 1,
     "one thread added, the listener")
rc, facts, out, err = finish(proc)
t.ok(rc == 0 and facts.get("early", 99) <= 1,
     "at most one of its waits was cut short by 26 requests (%s)" % facts.get("early"), err)
dirs = ws.trace_dirs()
events = read_trace(dirs[0])[0] if dirs else []
t.ok(len(dirs) == 1 and any(e.name == "ust:round" for e in events),
     "the trace it was told to record holds its events", dirs)
ws.cleanup()

# --- 3. A daemon that reset its handlers, and a signalfd program, targeted.
ws = Workspace()
ws.start_ustd()
for label, opt, cause in (("SIG_DFL daemon", "-r", "reset to its default action"),
                          ("signalfd program", "-s", "blocks in every thread")):
    proc = start(ws, ["bystander", opt, 3000])
    res = ws.ustctl_fast(["--timeout", "1000", "info", proc.pid])
    t.ok(res.returncode != 0 and cause in res.stderr and "SIGURG" in res.stderr and
         "UST_CONTROL=thread" in res.stderr,
         "%s: ustctl says it %s SIGURG, and the remedy" % (label, cause), res.stderr)
    rc, facts, out, err = finish(proc)
    t.ok(rc == 0 and facts.get("early") == 0, "%s: lives on, no wait cut short" % label,
         "rc %s %s %s" % (rc, facts, err))
    proc = start(ws, ["bystander", opt, 3000], UST_CONTROL="thread")
    res = ws.ustctl_fast(["info", proc.pid])
    t.ok(res.returncode == 0 and "UST_CONTROL=thread" in res.stdout,
         "%s with UST_CONTROL=thread: answers" % label, res.stdout + res.stderr)
    rc, facts, out, err = finish(proc)
    t.ok(rc == 0 and "signalfd" not in out, "%s with UST_CONTROL=thread: no signal of ours" %
         label, out + err)
ws.cleanup()

# --- 3b. A program that takes SIGURG over, then forks: libust sees its
# handler replaced there, a normal context, and a thread takes over.
ws = Workspace()
proc = start(ws, ["bystander", "-u", 3000])
res = ws.ustctl_fast(["--timeout", "3000", "info", proc.pid])
t.ok(res.returncode == 0 and "replaced libust's handler" in res.stdout,
     "own SIGURG handler, then fork(): info answers, through a listener thread, and says why",
     res.stdout + res.stderr)
rc, facts, out, err = finish(proc)
t.ok(rc == 0 and facts.get("early") == 0, "own SIGURG handler: lives on, no wait cut short",
     "rc %s %s %s" % (rc, facts, err))
ws.cleanup()

# --- 4. A program that uses SIGIO itself.
ws = Workspace()
ws.start_ustd()
proc = start(ws, ["bystander", "-o", 4000])
t.eq(proc.first[0], "sigio initial DFL", "sigaction(SIGIO) shows SIG_DFL before the program's own")
ok = sum(ws.ustctl_fast(args).returncode == 0 for args in
         (["info", proc.pid], ["enable-marker", proc.pid, "ust:round"],
          ["create-trace", proc.pid], ["start-trace", proc.pid]))
time.sleep(0.5)
ok += sum(ws.ustctl_fast(args).returncode == 0 for args in
          (["stop-trace", proc.pid], ["destroy-trace", proc.pid]))
t.eq(ok, 6, "every ustctl request answered")
rc, facts, out, err = finish(proc)
t.ok(rc == 0 and facts.get("own", 0) > 0 and facts.get("foreign") == 0,
     "its handler sees its own SIGIOs (%s) and no other" % facts.get("own"), out + err)
dirs = ws.trace_dirs()
t.ok(len(dirs) == 1 and any(e.name == "ust:round" for e in read_trace(dirs[0])[0]),
     "and its trace holds its events", dirs)
ws.cleanup()

# --- 5. Children of a traced program, in an active session.
ws = Workspace()
ustd = ws.start_ustd()
for args in (["create-session", "-o", ws.out, "kids"], ["enable-marker", "-s", "kids", "ust:*"],
             ["start-session", "kids"]):
    res = ws.ustctl_fast(args)
    t.ok(res.returncode == 0, " ".join(args[:2]), res.stderr)
flag = os.path.join(ws.root, "daemons")
cpu0 = cpu_ticks(ustd.pid)
runs = (("fork", 100, ["/bin/true"]), ("vfork", 20, ["/bin/true"]),
        ("system", 20, ["/bin/true"]),
        ("daemon", 20, ["/bin/sh", "-c", "echo x >> '%s'" % flag]))
for mode, n, prog in runs:
    res = subprocess.run([app("forkexec"), mode, str(n)] + prog, env=ws.env(),
                         capture_output=True, text=True, timeout=120)
    t.ok(res.returncode == 0 and "children %d exited %d signalled 0" % (n, n) in res.stdout,
         "%s: %d children started, every one lived to exit" % (mode, n), res.stdout + res.stderr)
t.ok(wait_for(lambda: os.path.exists(flag) and len(open(flag).read().split()) == 20, 10),
     "daemon: the 20 double-forked grandchildren ran")
cpu = (cpu_ticks(ustd.pid) - cpu0) / HZ
t.ok(cpu / 160 < 0.0005, "ustd's CPU per short-lived child: %.2f ms (bound 0.5 ms)" %
     (cpu / 160 * 1000))
t.eq(dead_sockets(ws), [], "apps/ holds no socket of a dead program")
# Before the child's main(), traced children against untraced ones: the
# pages its main thread touched (forkexec stamp), which no load changes.
# A child that joins the session makes its trace there but leaves the
# buffers' pages to its listener thread; one that made them before main()
# again (issue M: 82 ms median) would touch at least a ring of the old
# default, 16 x 256 KiB: 1 024 pages. Here +56 (plain), +77 (ASan). The
# time is printed, not judged: bench measures it ("fork to main").
stamps, faults = {}, {}
for label, env in (("traced", {}), ("untraced", {"UST_RUNDIR": os.path.join(ws.root, "none")})):
    os.makedirs(env.get("UST_RUNDIR", ws.rundir), mode=0o700, exist_ok=True)
    res = subprocess.run([app("forkexec"), "fork", "30", app("forkexec"), "stamp"],
                         env=ws.env(**env), capture_output=True, text=True, timeout=120)
    rows = [line.split() for line in res.stdout.splitlines()]
    rows = [r for r in rows if len(r) == 2 and r[0].isdigit() and r[1].isdigit()]
    stamps[label] = statistics.median(int(r[0]) for r in rows) if len(rows) == 30 else None
    faults[label] = statistics.median(int(r[1]) for r in rows) if len(rows) == 30 else None
bound = 512
t.ok(None not in faults.values() and faults["traced"] < faults["untraced"] + bound,
     "before main(): a traced child's main thread touched %s pages, an untraced one %s, "
     "bound +%d (median of 30; fork to main %s us against %s us)"
     % (faults["traced"], faults["untraced"], bound, stamps["traced"], stamps["untraced"]))
res = ws.ustctl_fast(["destroy-session", "kids"])
sdir = session_dir(ws.out, "kids")
names = [e.name for e in read_trace(sdir)[0]] if sdir else []
t.eq(names.count("ust:forkexec"), 100 + 20 + 20 + 20 + 30,
     "the parents' events are in the session, the children's absent")
ws.cleanup()

# --- 6. A forking service under a session rotating every second.
ws = Workspace()
ustd = ws.start_ustd()
for args in (["create-session", "-o", ws.out, "--rotate-every", "1s", "svc"],
             ["enable-marker", "-s", "svc", "ust:work"], ["start-session", "svc"]):
    res = ws.ustctl_fast(args)
    t.ok(res.returncode == 0, " ".join(args[:2]), res.stderr)
cpu0 = cpu_ticks(ustd.pid)
res = subprocess.run([app("prefork"), "4", "6"], env=ws.env(), capture_output=True, text=True,
                     timeout=120)
cpu = (cpu_ticks(ustd.pid) - cpu0) / HZ
workers = {int(m.group(1)): (int(m.group(2)), int(m.group(3)), int(m.group(4))) for m in
           re.finditer(r"^worker (\d+) emitted (\d+) children (\d+) killed (\d+)$",
                       res.stdout, re.M)}
t.ok(res.returncode == 0 and "workers 10 killed 0" in res.stdout and len(workers) == 10,
     "10 workers, replaced every second, none killed", res.stdout + res.stderr)
kids = sum(c for _, c, _ in workers.values())
t.ok(kids > 100 and all(k == 0 for _, _, k in workers.values()),
     "their %d /bin/true children all lived" % kids)
t.ok(cpu < 0.5, "ustd's CPU for the 6 s service: %.2f s (bound 0.5 s)" % cpu)
res = ws.ustctl_fast(["destroy-session", "svc"])
t.ok(res.returncode == 0, "destroy-session svc", res.stderr)
sdir = session_dir(ws.out, "svc")
adir = os.path.join(sdir, "archives") if sdir else ""
chunks = sorted(os.path.join(adir, c) for c in os.listdir(adir)) if os.path.isdir(adir) else []
t.ok(len(chunks) >= 4, "%d chunks archived" % len(chunks), os.listdir(sdir) if sdir else None)
bad = [c for c in chunks if not babeltrace_check(c)[0]]
t.eq(bad, [], "each chunk reads on its own with babeltrace2")
seen = []
discards = 0
for c in chunks:
    seen.extend((e.vpid, e.fields["seq"]) for e in read_trace(c)[0] if e.name == "ust:work")
    for proc_dir in os.listdir(c):
        discards += context_discarded(os.path.join(c, proc_dir))
want = set((pid, s) for pid, (n, _, _) in workers.items() for s in range(n))
t.eq(len(seen) - len(set(seen)), 0, "no event in two chunks")
t.ok(set(seen) <= want and len(want - set(seen)) <= discards,
     "every one of the %d events emitted is in a chunk, but the %d counted discarded" %
     (len(want), discards), "missing %d" % len(want - set(seen)))
t.eq(dead_sockets(ws), [], "apps/ holds no socket of a dead worker or child")
ws.cleanup()

t.done()
