# SPDX-License-Identifier: GPL-2.0-only
"""Attaching to running programs, as a new user would: ustctl list-pids,
list-markers, enable-marker, create/start/stop/destroy-trace against a real
program and a real ustd, in both control modes (the control signal, SIGURG, until a listener
thread takes over, and a listener thread from the start), with the
program's thread count watched before, during and after; then
what a hostile or unlucky controller meets: garbage on the socket, another
user, a program that blocks the signal or is stopped."""

import os
import random
import shutil
import signal
import socket
import subprocess
import time

from ustest import (Tap, Workspace, read_trace, babeltrace_check, ctl_request,
                    ctl_call, CTL_HEADER, CTL_MAGIC, CTL_VERSION)

t = Tap()


def tasks(pid):
    return sorted(os.listdir("/proc/%d/task" % pid))


def ticks_by_thread(events):
    seqs = {}
    for e in events:
        if e.name == "ust:tick":
            seqs.setdefault(e.fields["thread"], []).append(e.fields["seq"])
    return seqs


def contiguous(seqs):
    return all(sorted(s) == list(range(min(s), max(s) + 1)) for s in seqs.values())


def session_flow(ws, mode, **env):
    """The tutorial, start to end; returns the program's pid."""
    ws.start_ustd()
    proc = ws.start_app("ticker", ["-t", 2, "-i", 300], UST_CONTROL=mode, **env)
    pid = proc.pid
    own = tasks(pid)
    t.eq(len(own), 3 if mode == "signal" else 4,
         "%s: the program's 3 threads%s" % (mode, "" if mode == "signal" else ", and the listener"))

    res = ws.ustctl(["list-pids"])
    t.ok(res.returncode == 0 and str(pid) in res.stdout.split(),
         "%s: list-pids shows the program" % mode, res.stdout + res.stderr)
    res = ws.ustctl(["list-markers", pid])
    t.ok(res.returncode == 0 and all(m in res.stdout for m in
                                     ("ust:tick", "ust:tock", "other:count",
                                      "thread %u seq %lu")),
         "%s: list-markers shows every marker with its format" % mode, res.stdout + res.stderr)
    for args in (["enable-marker", pid, "ust:*"], ["create-trace", pid], ["start-trace", pid]):
        res = ws.ustctl(args)
        t.ok(res.returncode == 0, "%s: %s succeeds" % (mode, args[0]), res.stderr)
    during = tasks(pid)
    time.sleep(1.0)
    for args in (["stop-trace", pid], ["destroy-trace", pid]):
        res = ws.ustctl(args)
        t.ok(res.returncode == 0, "%s: %s succeeds" % (mode, args[0]), res.stderr)
    after = tasks(pid)
    if mode == "signal":
        # ticker waits between ticks: the first request finds it waiting
        # and hands the socket to one listener thread (control.c).
        t.ok(len(during) == len(own) + 1 and set(own) <= set(during) and after == during,
             "signal: one listener thread added at the first request, none later",
             "before %s during %s after %s" % (own, during, after))
        res = ws.ustctl(["info", pid])
        t.ok(res.returncode == 0 and "control:  listener thread (since the first request" in res.stdout,
             "signal: info says a listener thread took over, and why", res.stdout + res.stderr)
    else:
        t.ok(len(during) == len(own) and len(after) == len(own),
             "thread: the listener thread is the only one added, from the start",
             "before %s during %s after %s" % (own, during, after))
    out, err = ws.stop_app(proc)
    t.eq(proc.returncode, 0, "%s: the program ran on and ended normally" % mode)
    dirs = ws.trace_dirs()
    t.eq(len(dirs), 1, "%s: one trace directory" % mode)
    if not dirs:
        return pid
    ok, bterr = babeltrace_check(dirs[0])
    t.ok(ok, "%s: babeltrace2 reads the trace" % mode, bterr)
    events, discarded = read_trace(dirs[0])
    names = {e.name for e in events}
    seqs = ticks_by_thread(events)
    t.ok(names == {"ust:tick", "ust:tock"},
         "%s: the enabled markers are recorded, other:count is not" % mode, names)
    t.ok(len(seqs) == 2 and all(len(s) > 20 for s in seqs.values()),
         "%s: both threads recorded events for about a second" % mode,
         {k: len(v) for k, v in seqs.items()})
    t.ok(contiguous(seqs) and discarded == 0,
         "%s: every event between start and stop is there, no gap" % mode,
         "discarded %d" % discarded)
    return pid


for mode in ("signal", "thread"):
    session_flow(Workspace(), mode)

# Another control signal: the same flow.
ws = Workspace()
session_flow_pid = None
ws.start_ustd()
proc = ws.start_app("ticker", ["-i", 300], UST_SIGNAL="SIGRTMIN+3")
res = ws.ustctl(["info", proc.pid])
t.ok(res.returncode == 0 and "ticker" in res.stdout, "UST_SIGNAL=SIGRTMIN+3: info answers",
     res.stdout + res.stderr)
ws.stop_app(proc)

# A program started with the signal blocked gets the listener thread.
ws = Workspace()
proc = ws.start_app("ticker", ["-i", 300],
                    preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGURG]))
res = ws.ustctl(["list-markers", proc.pid])
t.ok(res.returncode == 0 and "ust:tick" in res.stdout,
     "signal blocked at start-up: served by a thread instead", res.stderr)
t.eq(len(tasks(proc.pid)), 3, "signal blocked at start-up: one listener thread added")
ws.stop_app(proc)

# One that blocks it later in every thread, or is stopped, does not answer:
# ustctl says why after a bounded wait.
ws = Workspace()
proc = ws.start_app("ticker", ["-b", "-i", 300])
start = time.monotonic()
res = ws.ustctl(["info", proc.pid])
took = time.monotonic() - start
t.ok(res.returncode != 0 and "did not answer" in res.stderr and str(proc.pid) in res.stderr and
     "blocks in every thread" in res.stderr and "SIGURG" in res.stderr and
     "UST_CONTROL=thread" in res.stderr,
     "signal blocked later: ustctl times out naming the pid, the cause and the remedy", res.stderr)
t.ok(took < 30, "the wait is bounded (%.1f s)" % took)
ws.stop_app(proc)
proc = ws.start_app("ticker", ["-i", 300])
os.kill(proc.pid, signal.SIGSTOP)
res = ws.ustctl(["info", proc.pid])
t.ok(res.returncode != 0 and "did not answer" in res.stderr,
     "stopped program: ustctl times out with a message", res.stderr)
os.kill(proc.pid, signal.SIGCONT)
res = ws.ustctl(["info", proc.pid])
t.ok(res.returncode == 0, "the same program answers once continued", res.stderr)
ws.stop_app(proc)

# Garbage on the socket: an error reply or a closed connection, and the
# program runs on, traceable.
ws = Workspace()
ws.start_ustd()
proc = ws.start_app("ticker", ["-t", 2, "-i", 300])
path = ws.app_socket(proc.pid)
rng = random.Random(1234)
hostile = [
    ("random bytes", bytes(rng.getrandbits(8) for _ in range(300))),
    ("wrong magic", CTL_HEADER.pack(0xdeadbeef, CTL_VERSION, 1, 0, 0, 0, 0)),
    ("wrong version", CTL_HEADER.pack(CTL_MAGIC, 99, 1, 0, 0, 0, 0)),
    ("huge length", CTL_HEADER.pack(CTL_MAGIC, CTL_VERSION, 1, 0, 1, 0xffffffff, 0)),
    ("count beyond the payload", CTL_HEADER.pack(CTL_MAGIC, CTL_VERSION, 5, 0, 3, 2, 0) + b"a\0"),
    ("unterminated string", CTL_HEADER.pack(CTL_MAGIC, CTL_VERSION, 5, 0, 1, 4, 0) + b"abcd"),
    ("truncated header", CTL_HEADER.pack(CTL_MAGIC, CTL_VERSION, 1, 0, 0, 0, 0)[:10]),
    ("reserved field set", CTL_HEADER.pack(CTL_MAGIC, CTL_VERSION, 1, 0, 0, 0, 7)),
]
for desc, data in hostile:
    reply = ctl_call(path, data, timeout=5, hang_up=True)
    t.ok(reply is None or reply[0] < 0, "%s: closed or refused" % desc, reply)
for desc, data, want in [
        ("unknown command", ctl_request(999), "unknown command"),
        ("wrong arity", ctl_request("create-trace", "a", "b", "c"), "number of arguments"),
        ("bad output", ctl_request("create-trace", "", "rel/dir"), "invalid output"),
        ("bad trace name", ctl_request("create-trace", "../x"), "invalid trace name"),
        ("bad pattern", ctl_request("enable-marker", "", "a b"), "invalid pattern"),
        ("bad size", ctl_request("set-subbuf-size", "", "ust", "1000"), "power of two"),
        ("non-numeric size", ctl_request("set-subbuf-size", "", "ust", "12x"), "decimal"),
        ("bad channel", ctl_request("set-subbuf-num", "", "no such/ch", "4"), "channel"),
        ("stop without trace", ctl_request("stop-trace", ""), "no trace")]:
    reply = ctl_call(path, data)
    t.ok(reply is not None and reply[0] < 0 and want in " ".join(reply[1]),
         "%s: an error reply saying why" % desc, reply)
# Two requests in one write, then a half one and a hang-up.
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(5)
s.connect(path)
s.sendall(ctl_request("info") + ctl_request("get-sock-path") + ctl_request("info")[:7])
from ustest import ctl_read_reply
r1, r2 = ctl_read_reply(s), ctl_read_reply(s)
s.close()
t.ok(r1 and r1[0] == 0 and r1[1][0] == str(proc.pid) and r2 and r2[0] == 0,
     "pipelined requests get their replies in order", (r1, r2))
# Controllers one after another, as fast as they can: each connection's
# hang-up and the next one's connect arrive while the handler runs, and
# control signal deliveries merge; every request must still be answered.
answered = 0
for _ in range(300):
    try:
        reply = ctl_call(path, ctl_request("info"), timeout=2)
    except OSError:
        reply = None
    answered += bool(reply and reply[0] == 0)
t.eq(answered, 300, "300 back-to-back controllers are all answered")
# More connections than the program keeps: the oldest make room.
idle = []
for _ in range(12):
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.connect(path)
    idle.append(c)
reply = ctl_call(path, ctl_request("info"))
t.ok(reply and reply[0] == 0, "idle connections cannot lock controllers out", reply)
for c in idle:
    c.close()
t.ok(proc.poll() is None, "the program survived all of it")
for args in (["enable-marker", proc.pid, "ust:tick"], ["start-trace", proc.pid]):
    res = ws.ustctl(args)
    t.ok(res.returncode != 0 if args[0] == "start-trace" else res.returncode == 0,
         "%s %s" % (args[0], "without create-trace is refused" if args[0] == "start-trace"
                    else "works"), res.stderr)
for args in (["create-trace", proc.pid], ["start-trace", proc.pid]):
    ws.ustctl(args)
time.sleep(0.5)
for args in (["stop-trace", proc.pid], ["destroy-trace", proc.pid]):
    res = ws.ustctl(args)
    t.ok(res.returncode == 0, "after the garbage: %s works" % args[0], res.stderr)
ws.stop_app(proc)
dirs = ws.trace_dirs()
events = read_trace(dirs[0])[0] if dirs else []
seqs = ticks_by_thread(events)
t.ok(len(seqs) == 2 and contiguous(seqs), "after the garbage: a complete trace",
     {k: len(v) for k, v in seqs.items()})

# Another user is refused by the program itself (SO_PEERCRED), even when
# the file permissions would let it connect.
if os.geteuid() == 0 and shutil.which("setpriv"):
    ws = Workspace()
    proc = ws.start_app("ticker", ["-i", 300])
    path = ws.app_socket(proc.pid)
    os.chmod(ws.root, 0o711)
    os.chmod(ws.rundir, 0o711)
    os.chmod(os.path.dirname(path), 0o711)
    os.chmod(path, 0o777)
    script = ("import socket,struct,sys\n"
              "s=socket.socket(socket.AF_UNIX);s.settimeout(5);s.connect(sys.argv[1])\n"
              "s.sendall(struct.pack('<IHHiIII',0x55535443,2,1,0,0,0,0))\n"
              "d=b''\n"
              "while len(d)<24 or len(d)<24+struct.unpack('<I',d[16:20])[0]:\n"
              " c=s.recv(4096)\n if not c: break\n d+=c\n"
              "print(struct.unpack('<i',d[8:12])[0] if len(d)>=24 else 'closed', d[24:].decode(errors='replace'))\n")
    res = subprocess.run(["setpriv", "--reuid=12345", "--regid=12345", "--clear-groups",
                          "/usr/bin/python3", "-c", script, path],
                         capture_output=True, text=True, timeout=30)
    t.ok(res.stdout.startswith("-1 ") and "may not control" in res.stdout,
         "another user is refused with EPERM and a reason", res.stdout + res.stderr)
    t.ok(proc.poll() is None, "the program runs on after the refusal")
    ws.stop_app(proc)
else:
    t.ok(True, "# SKIP another user: needs root and setpriv")
    t.ok(True, "# SKIP another user: needs root and setpriv")

# One ustd collects several programs at once, each in its own directory,
# and a program traced twice gets two traces.
ws = Workspace()
ws.start_ustd()
procs = [ws.start_app("ticker", ["-i", 300]) for _ in range(2)]
for p in procs:
    for args in (["enable-marker", p.pid, "ust:tick"], ["create-trace", "-t", "first", p.pid],
                 ["start-trace", "-t", "first", p.pid]):
        ws.ustctl(args)
time.sleep(0.5)
for p in procs:
    ws.ustctl(["destroy-trace", "-t", "first", p.pid])
res = ws.ustctl(["create-trace", procs[0].pid])
res2 = ws.ustctl(["start-trace", procs[0].pid])
time.sleep(0.3)
res3 = ws.ustctl(["destroy-trace", procs[0].pid])
t.ok(res.returncode == 0 and res2.returncode == 0 and res3.returncode == 0,
     "a second trace in the same program", res.stderr + res2.stderr + res3.stderr)
for p in procs:
    ws.stop_app(p)
dirs = ws.trace_dirs()
t.eq(len(dirs), 3, "three traces, three directories")
by_pid = {}
for d in dirs:
    events = read_trace(d)[0]
    seqs = ticks_by_thread(events)
    pid = int(os.path.basename(d).split("-")[1])
    by_pid.setdefault(pid, []).append(seqs)
    t.ok(seqs and contiguous(seqs), "%s: complete and readable" % os.path.basename(d),
         {k: len(v) for k, v in seqs.items()})
t.eq(sorted(len(v) for v in by_pid.values()), [1, 2], "one directory per program and trace")

# The socket goes with the program; a socket left by a killed program is
# cleaned by list-pids.
ws = Workspace()
proc = ws.start_app("ticker", ["-i", 300])
sock = ws.app_socket(proc.pid)
ws.stop_app(proc)
t.ok(not os.path.exists(sock), "the control socket is removed at exit")
proc = ws.start_app("ticker", ["-i", 300])
sock = ws.app_socket(proc.pid)
proc.kill()
proc.wait()
t.ok(os.path.exists(sock), "a killed program leaves its socket behind")
res = ws.ustctl(["list-pids"])
t.ok(res.returncode == 0 and str(proc.pid) not in res.stdout and not os.path.exists(sock),
     "list-pids removes it and does not list the dead pid", res.stdout + res.stderr)

t.done()
