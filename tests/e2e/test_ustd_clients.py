# SPDX-License-Identifier: GPL-2.0-only
"""ustd survives its clients (manual 11.12, "ustd survives its clients"): clients
that connect and close, or connect and say nothing, cost it nothing for
long; a flood of them at its descriptor limit neither makes it spin, nor
fills its log, nor keeps it from tracing a program or from exiting on
SIGTERM; it takes a real-time policy only when asked."""

import os
import resource
import signal
import socket
import subprocess
import threading
import time

from ustest import USTD, Tap, Workspace, app, read_trace, wait_for

HANDSHAKE_TIMEOUT_S = 5     # ustd/handshake.h
FLOOD_NOFILE = 64           # ustd's RLIMIT_NOFILE in the flood


def start_ustd(ws, args=(), nofile=None):
    """A ustd on a private socket, its messages in a file: (proc, socket, log)."""
    sock = os.path.join(ws.rundir, "ustd")
    log = os.path.join(ws.root, "ustd.log")
    limit = None
    if nofile:
        def limit():
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    r, w = os.pipe()
    with open(log, "w") as err:
        proc = subprocess.Popen([USTD, "-o", ws.out, "-s", sock, "--ready-fd", str(w)] +
                                list(args), pass_fds=(w,), stderr=err, env=ws.env(),
                                preexec_fn=limit)
    os.close(w)
    ws.daemons.append(proc)
    os.read(r, 1)
    os.close(r)
    return proc, sock, log


def fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def settled_fds(pid, timeout=10):
    """pid's descriptor count once it held for a second."""
    end, last, since = time.monotonic() + timeout, fds(pid), time.monotonic()
    while time.monotonic() < end and time.monotonic() - since < 1:
        time.sleep(0.1)
        now = fds(pid)
        if now != last:
            last, since = now, time.monotonic()
    return last


def cpu_s(pid):
    """User and system time of pid so far, in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def dropped(s, timeout):
    """True when ustd closed s (it never writes to an application)."""
    s.settimeout(timeout)
    try:
        return s.recv(1) == b""
    except (socket.timeout, OSError):
        return False


class Flood:
    """Clients knocking on sock without end, as a client that reconnects
    whenever it is dropped would: each connect()s without waiting, keeps
    its socket open and says nothing."""

    def __init__(self, sock):
        self.sock, self.held, self.stop = sock, [], threading.Event()
        self.connected = 0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop.is_set():
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.setblocking(False)
            try:
                s.connect(self.sock)
            except OSError:     # the backlog is full: knock again soon
                s.close()
                time.sleep(0.005)
                continue
            self.connected += 1
            self.held.append(s)
            # More than a backlog (SOMAXCONN, 4096) holds: a ustd that
            # takes and closes them lets the flood go on, one that stops
            # taking them leaves it knocking on a full backlog.
            if len(self.held) >= 6000:
                for old in self.held[:2000]:
                    old.close()
                del self.held[:2000]
            if self.connected % 20 == 0:
                time.sleep(0.001)

    def end(self):
        self.stop.set()
        self.thread.join()
        for s in self.held:
            s.close()
        self.held = []


t = Tap()
# The flood holds thousands of sockets: the test's own limit must allow it.
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))

# 1. Connections that close, and connections that stay silent.
ws = Workspace()
proc, sock, log = start_ustd(ws)
time.sleep(0.2)
base = fds(proc.pid)
for _ in range(200):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock)
    s.close()
t.ok(wait_for(lambda: fds(proc.pid) == base, timeout=5),
     "200 clients that connect and close cost ustd no descriptor (baseline %d)" % base,
     fds(proc.pid))

# A traced program that is quiet is not idle: it stays traced.
env = ws.env(UST_TRACE=1, UST_AUTOPROBE="1", UST_DAEMON_SOCKET=sock)
quiet = subprocess.Popen([app("sleeper"), "nanosleep", "10"], env=env, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
ws.daemons.append(quiet)
t.eq(quiet.stdout.readline().split()[:1], ["ready"], "a traced program starts")
t.eq(quiet.stdout.readline().split()[:1], ["nanosleep"], "and traces an event")
with_quiet = settled_fds(proc.pid)

idle = []
for _ in range(20):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock)
    idle.append(s)
for _ in range(5):          # half a message header, then nothing
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock)
    s.sendall(b"PTSU\5\0")
    idle.append(s)
t.ok(wait_for(lambda: fds(proc.pid) >= with_quiet + 2 * len(idle), timeout=5),
     "ustd takes 25 silent clients (a socket and a pidfd each)", fds(proc.pid))
t0 = time.monotonic()
gone = all(dropped(s, HANDSHAKE_TIMEOUT_S + 5) for s in idle)
waited = time.monotonic() - t0
t.ok(gone and HANDSHAKE_TIMEOUT_S - 1 <= waited <= HANDSHAKE_TIMEOUT_S + 4,
     "clients silent for %d s, or stopped in their first message, are dropped" %
     HANDSHAKE_TIMEOUT_S, "dropped: %s after %.1f s" % (gone, waited))
for s in idle:
    s.close()
t.ok(wait_for(lambda: fds(proc.pid) == with_quiet, timeout=5),
     "and their descriptors are closed", (fds(proc.pid), with_quiet))
t.ok(quiet.poll() is None and fds(proc.pid) > base + 1,
     "the quiet traced program keeps its connection past the timeout", (fds(proc.pid), base))
quiet.stdin.close()
quiet.wait(timeout=30)
proc.send_signal(signal.SIGTERM)
t.eq(proc.wait(timeout=30), 0, "ustd exits 0 on SIGTERM")
events, _ = read_trace(ws.out)
t.eq(len([e for e in events if e.name == "sleeper:start"]), 1, "the quiet program's trace is whole")

# 2. A flood at the descriptor limit.
ws2 = Workspace()
proc, sock, log = start_ustd(ws2, nofile=FLOOD_NOFILE)
flood = Flood(sock)
time.sleep(1.5)             # the limit is reached well before
c0, w0 = cpu_s(proc.pid), time.monotonic()
time.sleep(3)
cpu = (cpu_s(proc.pid) - c0) / (time.monotonic() - w0)
size = os.path.getsize(log)
t.ok(flood.connected > FLOOD_NOFILE, "the flood outnumbers ustd's %d descriptors" % FLOOD_NOFILE,
     flood.connected)
t.ok(cpu < 0.2, "ustd out of descriptors does not spin: %.0f %% of a CPU" % (cpu * 100), cpu)
t.ok(size < 8192, "its messages stay few: %d bytes" % size, open(log).read()[-2000:])
flood.end()

env = ws2.env(UST_TRACE=1, UST_AUTOPROBE="ust:*", UST_DAEMON_SOCKET=sock)
res = subprocess.run([app("hello"), "4"], env=env, capture_output=True, text=True, timeout=60)
t.eq(res.returncode, 0, "a program started after the flood runs")
dirs = ws2.trace_dirs()
t.eq([os.path.basename(d).split("-")[0] for d in dirs], ["hello"], "and is traced")

flood = Flood(sock)
time.sleep(1.5)
t0 = time.monotonic()
proc.send_signal(signal.SIGTERM)
try:
    rc = proc.wait(timeout=10)
except subprocess.TimeoutExpired:
    rc = None
took = time.monotonic() - t0
flood.end()
t.ok(rc == 0 and took < 5, "SIGTERM during a flood: ustd exits 0 at once",
     "rc %s after %.1f s" % (rc, took))
events, _ = read_trace(ws2.out)
t.eq(len([e for e in events if e.name == "ust:search_event"]), 4,
     "the program's events are all in its trace")
with open(log) as f:
    said = f.read()
t.ok("file descriptors" in said, "ustd said it ran short of descriptors", said[-2000:])

# 3. The real-time policy only when asked.
ws3 = Workspace()
for args, want in (((), os.SCHED_OTHER),
                   (("--realtime",), os.SCHED_FIFO if os.geteuid() == 0 else os.SCHED_OTHER)):
    proc, sock, log = start_ustd(ws3, args)
    policy = os.sched_getscheduler(proc.pid) & ~os.SCHED_RESET_ON_FORK
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    t.eq(policy, want, "ustd %s: policy %d" % (" ".join(args) or "by default", want))
t.done()
