# SPDX-License-Identifier: GPL-2.0-only
"""ustd killed and restarted under traced programs.

SIGKILL ustd while a program traces: the program runs on unharmed (its
writes never block, what overflows the buffers is discarded and counted).
A new ustd on the same socket asks every program of its user to reconnect;
the program describes its trace again and hands over its buffers, which
the new ustd continues from where the dead one stopped, into a new trace
directory. A program connected to another live ustd is not taken from it."""

import errno
import os
import signal
import subprocess
import time

import bt2

from ustest import (USTD, Tap, Workspace, babeltrace_check, ctl_call, ctl_request, wait_for)

RECONNECT = 19
t = Tap()



def series(path):
    """{series: set of numbers} of the ticker's events and the discarded count."""
    found, discarded = {}, 0
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is bt2._EventMessageConst:
            ev = msg.event
            f = ev.payload_field
            key = ev.name if ev.name != "ust:tick" else "tick%d" % int(f["thread"])
            found.setdefault(key, set()).add(int(f["seq"] if "seq" in f else f["n"]))
        elif type(msg) is bt2._DiscardedEventsMessageConst:
            discarded += msg.count or 0
    return found, discarded


def start_ustd(ws, sock, out):
    r, w = os.pipe()
    proc = subprocess.Popen([USTD, "-o", out, "--socket", sock, "--ready-fd", str(w)],
                            env=ws.env(), pass_fds=(w,), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    os.close(w)
    os.read(r, 1)
    os.close(r)
    ws.daemons.append(proc)
    return proc


# Kill, keep ticking, restart.
ws = Workspace()
ustd1 = ws.start_ustd()
ticker = ws.start_app("ticker", ["-i", "200"], UST_TRACE=1, UST_SUBBUF_SIZE=4096,
                      UST_SUBBUF_NUM=4)
t.ok(wait_for(lambda: len(ws.trace_dirs()) == 1), "the first ustd writes a trace")
time.sleep(0.5)
ustd1.send_signal(signal.SIGKILL)
ustd1.wait()
# Long enough for the 16 KiB buffers to overflow many times over.
time.sleep(2)
t.ok(ticker.poll() is None, "the program runs on after ustd died")
first = ws.trace_dirs()
ustd2 = ws.start_ustd()
t.ok(wait_for(lambda: len(ws.trace_dirs()) == 2), "the new ustd picks the trace up in a new directory",
     ws.trace_dirs())
time.sleep(0.5)
reply = ctl_call(ws.app_socket(ticker.pid), ctl_request(RECONNECT, os.path.join(ws.rundir, "ustd")))
t.eq(reply and reply[0], -errno.EALREADY, "asked again by the same ustd, the program says it is connected already")
out, err = ws.stop_app(ticker)
t.eq(ticker.returncode, 0, "the program exits normally")
emitted = int(out.split("emitted 0 ")[1].split()[0]) if "emitted 0 " in out else -1
ustd2.send_signal(signal.SIGTERM)
ustd2.wait(timeout=30)
second = [d for d in ws.trace_dirs() if d not in first]
t.eq(len(second), 1, "one new trace directory")
if first and second:
    ok, e = babeltrace_check(first[0])
    t.ok(ok, "what the dead ustd wrote reads cleanly", e)
    ok, e = babeltrace_check(second[0])
    t.ok(ok, "the new trace reads cleanly", e)
    old, old_discarded = series(first[0])
    new, discarded = series(second[0])
    # Per-CPU buffers: a packet the dead ustd had not taken yet (say the
    # first ticks, on a CPU the thread left) is in the new directory.
    t.ok(old.get("tick0") and max(old["tick0"]) < emitted,
         "the dead ustd's directory holds ticks written before it died")
    t.eq(max(new.get("tick0", {-1})), emitted - 1, "the new trace goes on to the last tick")
    last = {"tick0": emitted - 1}
    missing = 0
    for key in set(old) | set(new):
        top = last.get(key, max(new.get(key, old.get(key))))
        missing += len(set(range(top + 1)) - old.get(key, set()) - new.get(key, set()))
    t.ok(discarded > 0, "the buffers overflowed while no ustd ran (%d discarded)" % discarded)
    t.eq(missing, discarded + old_discarded,
         "every number is recorded in one of the traces or counted as discarded")

# With no ustd to come back, the program still ends normally and at once.
ws = Workspace()
ustd1 = ws.start_ustd()
ticker = ws.start_app("ticker", ["-i", "500"], UST_TRACE=1)
time.sleep(0.3)
ustd1.send_signal(signal.SIGKILL)
ustd1.wait()
time.sleep(0.3)
start = time.time()
out, err = ws.stop_app(ticker)
t.eq(ticker.returncode, 0, "no SIGPIPE, no hang: the orphaned program exits normally")
t.ok(time.time() - start < 5, "and quickly (%.1f s)" % (time.time() - start))

# A second ustd on another socket does not take a trace from a live ustd.
ws = Workspace()
ustd1 = ws.start_ustd()
ticker = ws.start_app("ticker", ["-i", "1000"], UST_TRACE=1)
t.ok(wait_for(lambda: len(ws.trace_dirs()) == 1), "traced by the first ustd")
other_out = os.path.join(ws.root, "other")
other_sock = os.path.join(ws.root, "other.sock")
ustd_b = start_ustd(ws, other_sock, other_out)
reply = ctl_call(ws.app_socket(ticker.pid), ctl_request(RECONNECT, other_sock))
t.eq(reply and reply[0], -errno.EBUSY, "the program declines another ustd while its own lives")
time.sleep(0.5)
out, err = ws.stop_app(ticker)
t.eq(ticker.returncode, 0, "the program exits normally")
ustd_b.send_signal(signal.SIGTERM)
ustd_b.wait(timeout=30)
ustd1.send_signal(signal.SIGTERM)
ustd1.wait(timeout=30)
t.eq([d for d, _, f in os.walk(other_out) if "metadata" in f], [],
     "the other ustd wrote no trace")
dirs = ws.trace_dirs()
ok, e = babeltrace_check(dirs[0]) if dirs else (False, "no trace")
t.ok(ok, "the first ustd's trace is complete and reads cleanly", e)
if dirs:
    found, discarded = series(dirs[0])
    n = int(out.split("emitted 0 ")[1].split()[0]) if "emitted 0 " in out else -1
    t.eq((found.get("tick0") == set(range(n)), discarded), (True, 0), "with every tick")
t.done()
