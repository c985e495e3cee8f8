# SPDX-License-Identifier: GPL-2.0-only
"""usttrace -p PID: attach to a running program until Ctrl-C, as strace -p."""

import os
import signal
import subprocess
import time

from ustest import USTTRACE, Tap, Workspace, read_trace, wait_for

t = Tap()
ws = Workspace()
prog = ws.start_app("ticker", ["-i", "2000"])


def at_a_terminal():
    """SIGINT as a terminal's Ctrl-C finds it: the suite may run with it
    ignored (started in the background), and usttrace, as every program,
    keeps a signal it was started with ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


proc = subprocess.Popen([USTTRACE, "-o", ws.out, "-p", str(prog.pid)], env=ws.env(),
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                        preexec_fn=at_a_terminal)
# "tracing pid N" once the trace runs.
line = proc.stderr.readline()
t.ok("tracing pid %d" % prog.pid in line, "usttrace -p says it traces the pid", line)
time.sleep(1)
proc.send_signal(signal.SIGINT)
out, err = proc.communicate(timeout=60)
err = line + err
t.eq(proc.returncode, 0, "SIGINT ends usttrace -p with status 0")
dirs = ws.trace_dirs()
t.eq(len(dirs), 1, "one trace directory")
t.ok(dirs and ("trace written to %s" % dirs[0]) in err, "usttrace says where the trace is", err)
events, _ = read_trace(dirs[0]) if dirs else ([], 0)
names = {e.name for e in events}
t.ok(len(events) > 0 and "ust:tick" in names, "babeltrace2 reads its events back",
     "%d events, %s" % (len(events), sorted(names)))
t.ok(prog.poll() is None, "the program still runs afterwards")
sock = ws.ustctl(["get-sock-path", prog.pid])
t.ok(sock.returncode == 0 and "usttrace-" not in sock.stdout,
     "and reports to its own ustd again", sock.stdout + sock.stderr)
pout, perr = ws.stop_app(prog)
t.eq(prog.returncode, 0, "and ends normally on SIGTERM")
t.ok("error" not in perr, "without an error", perr)

# -m, and the program exiting while traced.
ws2 = Workspace()
prog = ws2.start_app("ticker", ["-i", "2000"])
proc = subprocess.Popen([USTTRACE, "-o", ws2.out, "-m", "ust:tock", "-p", str(prog.pid)],
                        env=ws2.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True, preexec_fn=at_a_terminal)
line = proc.stderr.readline()
time.sleep(0.5)
ws2.stop_app(prog)
out, err = proc.communicate(timeout=60)
t.eq(proc.returncode, 0, "usttrace -p ends when the program exits")
t.ok("has exited" in err, "and says so", err)
dirs = ws2.trace_dirs()
events, _ = read_trace(dirs[0]) if dirs else ([], 0)
t.eq(sorted({e.name for e in events}), ["ust:tock"], "-m selects the events")

# Bad pids.
res = ws.usttrace(["-p", "999999999"])
t.ok(res.returncode == 125 and "no such process" in res.stderr, "a pid that does not exist: status 125",
     res.stderr)
res = ws.usttrace(["-p", str(os.getpid())])
t.ok(res.returncode != 0 and "not linked with -lust" in res.stderr,
     "a process without libust", res.stderr)
res = ws.usttrace(["-p", "abc"])
t.ok(res.returncode != 0 and "-p abc" in res.stderr, "a pid that is no number", res.stderr)
res = ws.usttrace(["-p", "1", "/bin/true"])
t.ok(res.returncode != 0 and "one or the other" in res.stderr, "-p and a program", res.stderr)
res = ws.usttrace(["-f", "-p", "1"])
t.ok(res.returncode != 0 and "-f" in res.stderr, "-p with -f is refused", res.stderr)
t.done()
