# SPDX-License-Identifier: GPL-2.0-only
"""The blocking timeout: a writer that finds the ring full waits for ustd
instead of discarding, up to a bound, never in a signal handler that
interrupted a write of its thread and never once ustd is gone.

- Tiny buffers flooded far faster than ustd drains them: without the
  timeout events are discarded (so the flood does overflow); with it,
  given by usttrace --blocking-timeout, by a session file or by
  UST_CHANNELS, every event is written: babeltrace2 reads N, no discarded
  events, every number once. One writer and two.
- ustd stopped (SIGSTOP) longer than the bound: the writer goes on after
  the bound, the program finishes while ustd is still stopped, and what is
  missing is reported discarded.
- ustd killed (SIGKILL) while writers wait with "inf": they stop waiting,
  and the program finishes and exits normally.
- Events written from signal handlers (installed with sigaction and with
  signal) wait like any other ("inf", ustd stopped), but never when the
  handler interrupted a write of its own thread (midevent): that wait
  could never end."""

import os
import select
import signal
import subprocess
import time

from ustest import USTTRACE, Tap, Workspace, app, read_trace_ints, wait_for

N = 50000
TINY = ["--subbuf-size", "4k", "--subbuf-num", "2"]
t = Tap()


def numbers(events):
    return sorted(e.fields["seq"] for e in events if e.name == "ust:lossless")


def usttrace_flood(extra, mode="plain", n=N):
    """usttrace with tiny buffers on the lossless program; its trace's
    events and discarded count."""
    ws = Workspace()
    res = subprocess.run([USTTRACE, "-o", ws.out] + TINY + extra + [app("lossless"), mode, str(n)],
                         env=ws.env(), stdin=subprocess.DEVNULL, capture_output=True,
                         text=True, timeout=300)
    t.eq(res.returncode, 0, "%s %s: usttrace and the program succeed" % (" ".join(extra), mode))
    if res.returncode:
        t.diag(res.stderr[-2000:])
    dirs = ws.trace_dirs()
    if len(dirs) != 1:
        return [], -1
    return read_trace_ints(dirs[0])


def check_lossless(what, events, discarded, n=N):
    got = numbers(events)
    t.diag("%s: recorded %d, discarded %d of %d" % (what, len(got), discarded, n))
    t.eq(discarded, 0, "%s: no event discarded" % what)
    t.eq(len(got), n, "%s: babeltrace2 reads every event written" % what)
    t.ok(got == list(range(n)), "%s: every number once" % what)


# The option as each way of configuring gives it. ustd may keep up with
# these floods by itself (at SCHED_FIFO it preempts the writer it wakes up),
# so what makes the option matter is shown below, with ustd stopped a while.
events, discarded = usttrace_flood([])
t.diag("discard mode: recorded %d, discarded %d of %d" % (len(events), discarded, N))
t.eq(len(events) + discarded, N, "discard mode: recorded + discarded == emitted")

events, discarded = usttrace_flood(["--blocking-timeout", "inf"])
check_lossless("usttrace --blocking-timeout inf", events, discarded)

events, discarded = usttrace_flood(["--blocking-timeout", "10s"], mode="threads")
check_lossless("two writers, --blocking-timeout 10s", events, discarded)

session = os.path.join(Workspace().root, "lossless.xml")
with open(session, "w") as f:
    f.write('<ust-session version="1"><channel name="*" blocking-timeout="inf"/></ust-session>\n')
events, discarded = usttrace_flood(["--session", session])
check_lossless("session file blocking-timeout=\"inf\"", events, discarded)


class Program:
    """The lossless program on a ustd of our own, configured by
    UST_CHANNELS, held at "ready" until go()."""

    def __init__(self, ws, mode, n, blocking):
        self.proc = subprocess.Popen([app("lossless"), mode, str(n)],
                                     env=ws.env(UST_TRACE=1, UST_CHANNELS="*:4k:2@" + blocking),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        ws.daemons.append(self.proc)
        self.ready = self.line(10) == "ready"

    def line(self, timeout):
        """The next line it prints, or None when none came within timeout."""
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        return self.proc.stdout.readline().strip() if ready else None

    def go(self):
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()


def with_stopped_ustd(mode, n, blocking):
    """Starts ustd and the program, stops ustd, lets the program emit.
    Returns the workspace, ustd, the program and the time of go()."""
    ws = Workspace()
    ustd = ws.start_ustd()
    prog = Program(ws, mode, n, blocking)
    t.ok(prog.ready and wait_for(lambda: len(ws.trace_dirs()) == 1),
         "%s @%s: the program traces to ustd" % (mode, blocking))
    ustd.send_signal(signal.SIGSTOP)
    start = time.time()
    prog.go()
    return ws, ustd, prog, start


def finish(ws, ustd, prog, n, what):
    """ustd continued; the program's exit; then its trace."""
    ustd.send_signal(signal.SIGCONT)
    prog.proc.wait(timeout=60)
    t.eq(prog.proc.returncode, 0, "%s: the program exits normally" % what)
    ustd.send_signal(signal.SIGTERM)
    ustd.wait(timeout=60)
    dirs = ws.trace_dirs()
    events, discarded = read_trace_ints(dirs[0]) if len(dirs) == 1 else ([], -1)
    got = numbers(events)
    t.diag("%s: recorded %d, discarded %d of %d" % (what, len(got), discarded, n))
    t.ok(discarded > 0, "%s: the events that found the ring full are counted discarded" % what)
    t.eq(len(got) + discarded, n, "%s: recorded + discarded == emitted" % what)
    t.eq(len(set(got)), len(got), "%s: no event twice" % what)


def paused_flood(mode, n, blocking, pause=0.5):
    """The flood with ustd stopped for its first pause seconds: a consumer
    that cannot keep up, however fast the machine. Its trace."""
    ws, ustd, prog, start = with_stopped_ustd(mode, n, blocking)
    time.sleep(pause)
    ustd.send_signal(signal.SIGCONT)
    t.eq(prog.line(60), "emitted", "%s @%s, ustd paused: the program emits all" % (mode, blocking))
    prog.proc.wait(timeout=60)
    ustd.send_signal(signal.SIGTERM)
    ustd.wait(timeout=60)
    dirs = ws.trace_dirs()
    return read_trace_ints(dirs[0]) if len(dirs) == 1 else ([], -1)


# Discard mode overflows these buffers while ustd is stopped: the lossless
# runs are not vacuous.
events, discarded = paused_flood("plain", N, "0")
t.diag("discard mode, ustd paused: recorded %d, discarded %d of %d"
       % (len(numbers(events)), discarded, N))
t.ok(discarded > 0, "without a blocking timeout the flood overflows the tiny buffers")
t.eq(len(numbers(events)) + discarded, N, "discard mode: recorded + discarded == emitted")
events, discarded = paused_flood("plain", N, "inf")
check_lossless("ustd paused, UST_CHANNELS @inf", events, discarded)
events, discarded = paused_flood("threads", N, "10s")
check_lossless("ustd paused, two writers, UST_CHANNELS @10s", events, discarded)


# ustd stopped for longer than the bound (300 ms): the writer waits the bound
# once, then discards without waiting until ustd releases a sub-buffer, so
# the program is done long before ustd continues.
ws, ustd, prog, start = with_stopped_ustd("plain", N, "300ms")
line = prog.line(8)
elapsed = time.time() - start
t.diag("emitted %.2f s after ustd stopped" % elapsed)
t.eq(line, "emitted", "ustd stopped: the writer goes on after the bound (no hang)")
t.ok(elapsed >= 0.3, "ustd stopped: the writer waited the bound before discarding")
finish(ws, ustd, prog, N, "ustd stopped")

# "inf", ustd stopped: the writer waits; ustd killed: it stops waiting.
ws, ustd, prog, start = with_stopped_ustd("plain", N, "inf")
t.eq(prog.line(1.5), None, "inf: the writer waits while ustd is stopped")
ustd.send_signal(signal.SIGKILL)
ustd.wait()
killed = time.time()
line = prog.line(10)
t.diag("emitted %.2f s after ustd was killed" % (time.time() - killed))
t.eq(line, "emitted", "ustd killed while the writer waits: it stops waiting")
t.ok(time.time() - killed < 3, "ustd killed: the writer noticed promptly")
prog.proc.wait(timeout=30)
t.eq(prog.proc.returncode, 0, "ustd killed: the program exits normally")

# A signal handler waits like any writer ("inf", ustd stopped: it waits;
# ustd continued: nothing lost), since only libust's own state could make
# its wait a deadlock, and that is looked at next.
NSIG = 10000
ws, ustd, prog, start = with_stopped_ustd("handler", NSIG, "inf")
t.eq(prog.line(1.5), None, "a signal handler that traces waits with inf while ustd is stopped")
ustd.send_signal(signal.SIGCONT)
t.eq(prog.line(60), "emitted", "ustd continued: the handlers' events are all emitted")
prog.proc.wait(timeout=60)
ustd.send_signal(signal.SIGTERM)
ustd.wait(timeout=60)
dirs = ws.trace_dirs()
events, discarded = read_trace_ints(dirs[0]) if len(dirs) == 1 else ([], -1)
t.ok(sorted(numbers(events)) == list(range(NSIG)) and discarded == 0,
     "signal handlers @inf: every one of the %d events written, none discarded" % NSIG,
     "recorded %d, discarded %d" % (len(events), discarded))

# A handler that interrupted a write of its own thread never waits: the
# packet ustd would have to release is the one the interrupted write holds
# open (a deadlock with "inf"). midevent holds an event, then its handler
# writes 2000 more on the same thread into 2 sub-buffers of 4 KiB. Pinned
# to one CPU: a thread that moved between the hold and the handler writes
# into another CPU's ring, which nothing holds, and ustd kept up with it
# once (CI: 2001 recorded, 0 discarded).
cpu = min(os.sched_getaffinity(0))
ws = Workspace()
ustd = ws.start_ustd()
proc = subprocess.Popen([app("midevent")], env=ws.env(UST_TRACE=1, UST_CHANNELS="*:4k:2@inf"),
                        preexec_fn=lambda: os.sched_setaffinity(0, {cpu}),
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True)
ws.daemons.append(proc)


def say(line, timeout=10):
    proc.stdin.write(line + "\n")
    proc.stdin.flush()
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    return proc.stdout.readline().strip() if ready else None


proc.stdout.readline()
t.eq(say("hold"), "held", "midevent holds an event open")
t.eq(say("handler 2000"), "handled",
     "its handler's 2000 events on the same thread, ring full, inf: it returns")
t.eq(say("commit"), "committed", "the held event is committed")
proc.stdin.close()
t.eq(proc.stdout.readline().strip(), "emitted 2001", "the program emitted 2001 events")
proc.wait(timeout=30)
ustd.send_signal(signal.SIGTERM)
ustd.wait(timeout=60)
dirs = ws.trace_dirs()
events, discarded = read_trace_ints(dirs[0]) if len(dirs) == 1 else ([], -1)
t.ok(len(events) + discarded == 2001 and discarded > 0,
     "what found the ring full is counted discarded (%d recorded, %d discarded)" %
     (len(events), discarded))
t.done()
