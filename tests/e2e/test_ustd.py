# SPDX-License-Identifier: GPL-2.0-only
"""ustd as a daemon: start-up checks, hostile input on its socket, serving
programs started with UST_TRACE, clean shutdown on SIGTERM."""

import os
import signal
import socket
import struct
import subprocess

from ustest import USTD, USTTRACE, Tap, Workspace, app, babeltrace_check, read_trace

MAGIC, VERSION = 0x55535450, 5
HELLO, METADATA, STREAM = 1, 2, 3


def start_ustd(ws, sock, out, args=()):
    r, w = os.pipe()
    proc = subprocess.Popen([USTD, "-o", out, "-s", sock, "--ready-fd", str(w)] + list(args),
                            pass_fds=(w,), stderr=subprocess.PIPE, text=True,
                            env=ws.env())
    os.close(w)
    ws.daemons.append(proc)
    ready = os.read(r, 1)
    os.close(r)
    return proc, ready == b"x" or len(ready) == 1


def header(mtype, length, nfds=0, magic=MAGIC, version=VERSION):
    return struct.pack("<IHHII", magic, version, mtype, length, nfds)


def send_raw(path, data):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(data)
    s.settimeout(10)
    try:
        closed = s.recv(1) == b""     # ustd never writes: EOF means dropped
    except socket.timeout:
        closed = False
    s.close()
    return closed


t = Tap()
ws = Workspace()
sock = os.path.join(ws.rundir, "ustd")
proc, ready = start_ustd(ws, sock, ws.out)
t.ok(ready and proc.poll() is None, "ustd starts and says it is ready")
st = os.stat(sock)
t.eq(oct(st.st_mode & 0o777), oct(0o600), "its socket is private to the user")

second = subprocess.run([USTD, "-o", ws.out, "-s", sock], capture_output=True, text=True,
                        timeout=30, env=ws.env())
t.ok(second.returncode != 0 and "already" in second.stderr,
     "a second ustd on the same socket is refused", second.stderr)

HELLO_FMT = "<II16s32s64s4096s"
hello = struct.pack(HELLO_FMT, os.getpid(), 0, b"\1" * 16, b"evil", b"auto", b"")
cases = [
    ("random bytes", os.urandom(4096)),
    ("bad magic", header(HELLO, 0, magic=0xdeadbeef)),
    ("bad version", header(HELLO, len(hello), version=99) + hello),
    ("unknown type", header(77, 0)),
    ("huge length", header(METADATA, 0x7fffffff)),
    ("short hello", header(HELLO, 8) + hello[:8]),
    ("metadata before hello", header(METADATA, 5) + b"x = 1"),
    ("stream without descriptors", header(HELLO, len(hello)) + hello +
     header(STREAM, 80) + b"\0" * 80),
    ("procname with a slash", header(HELLO, len(hello)) +
     struct.pack(HELLO_FMT, 1, 0, b"\1" * 16, b"../../etc", b"auto", b"")),
    ("output neither absolute nor a URL", header(HELLO, len(hello)) +
     struct.pack(HELLO_FMT, 1, 0, b"\1" * 16, b"evil", b"auto", b"../../etc")),
    ("output URL with a bad port", header(HELLO, len(hello)) +
     struct.pack(HELLO_FMT, 1, 0, b"\1" * 16, b"evil", b"auto", b"net://h:99999")),
]
for name, data in cases:
    t.ok(send_raw(sock, data), "%s: connection dropped" % name)
t.ok(proc.poll() is None, "ustd survived every malformed message")

env = ws.env(UST_TRACE=1, UST_AUTOPROBE="ust:*", UST_DAEMON_SOCKET=sock)
res = subprocess.run([app("hello"), "4"], env=env, capture_output=True, text=True, timeout=60)
t.eq(res.returncode, 0, "a program started with UST_TRACE=1 runs")
res = subprocess.run([app("threads"), "2", "500"], env=env, capture_output=True, text=True,
                     timeout=60)
t.eq(res.returncode, 0, "and another one")

shared_env = ws.env(UST_DAEMON_SOCKET=sock)
res = subprocess.run([USTTRACE, "-s", app("burst"), "100"], env=shared_env,
                     capture_output=True, text=True, timeout=60)
t.ok(res.returncode == 0 and "traced pid" in res.stderr, "usttrace -s traces into the running ustd",
     res.stderr)
res = subprocess.run([USTTRACE, "-s", app("burst"), "100"],
                     env=ws.env(UST_DAEMON_SOCKET=os.path.join(ws.rundir, "nobody")),
                     capture_output=True, text=True, timeout=60)
t.ok(res.returncode != 0 and "no ustd" in res.stderr, "usttrace -s with no ustd says so",
     res.stderr)

proc.send_signal(signal.SIGTERM)
rc = proc.wait(timeout=60)
t.eq(rc, 0, "SIGTERM: ustd finishes and exits 0")
t.ok(not os.path.exists(sock), "and removes its socket")
dirs = ws.trace_dirs()
names = sorted(os.path.basename(d).split("-")[0] for d in dirs)
t.eq(names, ["burst", "hello", "threads"], "one trace per program, none for the bogus clients")
ok, err = babeltrace_check(ws.out)
t.ok(ok, "babeltrace2 reads every trace under the output directory", err)
events, _ = read_trace(ws.out)
t.eq(len([e for e in events if e.name == "ust:thread_event"]), 1000, "threads' events all there")
t.eq(len([e for e in events if e.name == "ust:search_event"]), 4, "hello's events all there")

# A stale socket (its ustd died) is replaced; an unusable output is refused.
ws2 = Workspace()
stale = os.path.join(ws2.rundir, "ustd")
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(stale)
s.close()
proc2, ready2 = start_ustd(ws2, stale, ws2.out)
t.ok(ready2 and proc2.poll() is None, "a stale socket left by a dead ustd is taken over")
proc2.send_signal(signal.SIGTERM)
proc2.wait(timeout=60)
blocker = os.path.join(ws2.root, "file")
open(blocker, "w").close()
bad = subprocess.run([USTD, "-o", os.path.join(blocker, "sub"), "-s",
                      os.path.join(ws2.rundir, "other")], capture_output=True, text=True,
                     timeout=30, env=ws2.env())
t.ok(bad.returncode != 0 and "output" in bad.stderr, "an unusable output directory is refused",
     bad.stderr)
# --realtime's PRIO is optional: a negative one is given as --realtime=-1.
for opt, val in (("--nice", "20"), ("--nice", "-21"), ("--realtime", "100"),
                 ("--realtime=-1", None)):
    args = [opt, val] if val else [opt]
    bad = subprocess.run([USTD] + args + ["-o", ws2.out, "-s", os.path.join(ws2.rundir, "other")],
                         capture_output=True, text=True, timeout=30, env=ws2.env())
    said = "%s %s" % (opt, val) if val else opt.replace("=", " ")
    t.ok(bad.returncode != 0 and said in bad.stderr,
         "ustd %s is refused with the reason" % " ".join(args), bad.stderr)

# ustd asks to run first when woken (manual 10.7): SCHED_FIFO with
# --realtime where it may, else a lower nice value; never a lower priority
# than it was started with. By default, no real-time policy.
started_nice = os.getpriority(os.PRIO_PROCESS, 0)
for args, label in ((("--realtime",), "with --realtime"), ((), "by default"),
                    (("--realtime", "0"), "with --realtime 0"),
                    (("--nice", "5"), "with --nice above its own")):
    proc3, ready3 = start_ustd(ws2, os.path.join(ws2.rundir, "sched"), ws2.out, args)
    # Children (none today) are not to inherit it: SCHED_RESET_ON_FORK.
    policy = os.sched_getscheduler(proc3.pid) if ready3 else None
    reset = policy is not None and policy & os.SCHED_RESET_ON_FORK
    policy = policy & ~os.SCHED_RESET_ON_FORK if policy is not None else None
    nice = os.getpriority(os.PRIO_PROCESS, proc3.pid) if ready3 else None
    prio = os.sched_getparam(proc3.pid).sched_priority if ready3 else None
    proc3.send_signal(signal.SIGTERM)
    proc3.wait(timeout=60)
    if args == ("--realtime",):
        want_fifo = os.geteuid() == 0
        t.ok(ready3 and (policy == os.SCHED_FIFO and prio == 1 and reset if want_fifo
                         else policy == os.SCHED_OTHER and nice <= started_nice),
             "ustd %s: %s" % (label, "SCHED_FIFO priority 1" if want_fifo
                              else "normal policy, nice not raised"), (policy, prio, nice))
    elif "5" in args:
        t.ok(ready3 and policy == os.SCHED_OTHER and nice == started_nice,
             "ustd %s: keeps nice %d" % (label, started_nice), (policy, nice))
    else:
        want = -10 if os.geteuid() == 0 else started_nice
        t.ok(ready3 and policy == os.SCHED_OTHER and nice <= want,
             "ustd %s: normal policy, nice %d or lower" % (label, want), (policy, nice))
t.done()
