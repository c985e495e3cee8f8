# SPDX-License-Identifier: GPL-2.0-only
"""ustd's faults are the trace's, never the program's: a full disk and a
removed trace directory stop that one trace with a clear error while the
other traces go on; a stalled ustd (SIGSTOP) never slows the program down,
and what its buffers could not hold is counted as discarded."""

import os
import shutil
import signal
import subprocess
import threading
import time

from ustest import (Tap, Workspace, babeltrace_check, babeltrace_text, read_trace_ints,
                    small_tmpfs, unmount)


class Lines:
    """Collects the lines of a pipe as they come, with their arrival time."""

    def __init__(self, pipe):
        self.lines = []
        self.thread = threading.Thread(target=self._run, args=(pipe,), daemon=True)
        self.thread.start()

    def _run(self, pipe):
        for line in pipe:
            self.lines.append((time.monotonic(), line.rstrip("\n")))

    def text(self):
        return "\n".join(l for _, l in self.lines)

    def wait_for(self, words, timeout=30):
        """The first line holding every one of words, or None."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for _, l in list(self.lines):
                if all(w in l for w in words):
                    return l
            time.sleep(0.05)
        return None

    def finish(self, timeout=60):
        self.thread.join(timeout)


def traced(ws, name, args, **extra):
    proc = ws.start_app(name, args, UST_TRACE=1, **extra)
    return proc, Lines(proc.stdout)


def end_app(ws, proc, lines, term=True):
    """Its exit status and {thread: emitted}."""
    if term and proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        rc = proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = "still running after 60 s"
        proc.wait()
    lines.finish()
    emitted = {}
    for _, l in lines.lines:
        w = l.split()
        if w[:1] == ["emitted"]:
            emitted[int(w[1])] = int(w[2])
    return rc, emitted


def end_ustd(proc, lines):
    proc.send_signal(signal.SIGTERM)
    rc = proc.wait(timeout=60)
    lines.finish()
    return rc


def trace_of(root, name, pid):
    for d in sorted(os.listdir(root)):
        if d.startswith("%s-%d-" % (name, pid)):
            return os.path.join(root, d)
    return None


def ticker_complete(t, label, path, emitted):
    ok, err = babeltrace_check(path)
    t.ok(ok, "%s: babeltrace2 reads the other trace cleanly" % label, err)
    events, discarded = read_trace_ints(path)
    ticks = [e.fields["seq"] for e in events if e.name == "ust:tick"]
    t.ok(discarded == 0 and emitted and ticks == list(range(emitted.get(0, -1))),
         "%s: the other trace is complete (%d of %d ticks, %d discarded)"
         % (label, len(ticks), emitted.get(0, -1), discarded))


def disk_full(t, ws):
    label = "disk full"
    mnt, why = small_tmpfs()
    if not mnt:
        t.ok(True, "%s # SKIP cannot mount a small tmpfs: %s" % (label, why))
        return
    try:
        ustd = ws.start_ustd(out=mnt)
        ulog = Lines(ustd.stderr)
        small, slog = traced(ws, "ticker", ["-i", "2000"])
        big, blog = traced(ws, "stress", ["-d", "3"])
        brc, _ = end_app(ws, big, blog, term=False)
        t.eq(brc, 0, "%s: the program that filled the disk ran on and exits 0" % label)
        err = ulog.wait_for(["cannot write trace", "stress-%d-" % big.pid])
        t.ok(err is not None and "No space left on device" in err,
             "%s: ustd names the trace and the cause" % label, ulog.text())
        t.ok(small.poll() is None and ustd.poll() is None,
             "%s: the other program and ustd run on" % label)
        # The user frees the space; the other trace is still being written.
        big_trace = trace_of(mnt, "stress", big.pid)
        if big_trace:
            ok, berr = babeltrace_check(big_trace)
            t.ok(ok, "%s: the stopped trace holds whole packets only, readable" % label, berr)
            shutil.rmtree(big_trace)
        time.sleep(0.5)
        src, emitted = end_app(ws, small, slog)
        t.eq(src, 0, "%s: the other program exits 0" % label)
        t.eq(end_ustd(ustd, ulog), 0, "%s: ustd exits 0 on SIGTERM" % label)
        # Read from a copy: the reader may keep its files open for a while.
        kept = os.path.join(ws.root, "disk-full-ticker")
        shutil.copytree(trace_of(mnt, "ticker", small.pid) or mnt, kept)
        ticker_complete(t, label, kept, emitted)
    finally:
        why = unmount(mnt)
        if why:
            t.diag(why)


def dir_removed(t, ws):
    label = "trace directory removed"
    ustd = ws.start_ustd()
    ulog = Lines(ustd.stderr)
    # Small packets, so that both traces are written while this runs.
    small, slog = traced(ws, "ticker", ["-i", "2000"], UST_SUBBUF_SIZE=4096)
    victim, vlog = traced(ws, "stress", ["-d", "60"], UST_SUBBUF_SIZE=4096)
    vtrace = None
    for _ in range(100):
        vtrace = trace_of(ws.out, "stress", victim.pid)
        if vtrace and any(f != "metadata" and os.path.isfile(os.path.join(vtrace, f))
                          for f in os.listdir(vtrace)):
            break
        time.sleep(0.05)
    if not t.ok(vtrace is not None, "%s: the trace was being written" % label, ulog.text()):
        return
    time.sleep(0.3)
    shutil.rmtree(vtrace)
    err = ulog.wait_for(["cannot write trace", vtrace])
    t.ok(err is not None, "%s: ustd names the trace and stops it" % label, ulog.text())
    time.sleep(0.5)
    t.ok(not os.path.exists(vtrace), "%s: ustd does not write it again" % label)
    t.ok(victim.poll() is None and small.poll() is None and ustd.poll() is None,
         "%s: the programs and ustd run on" % label)
    vrc, _ = end_app(ws, victim, vlog)
    t.eq(vrc, 0, "%s: its program exits 0" % label)
    src, emitted = end_app(ws, small, slog)
    t.eq(src, 0, "%s: the other program exits 0" % label)
    t.eq(end_ustd(ustd, ulog), 0, "%s: ustd exits 0 on SIGTERM" % label)
    ticker_complete(t, label, trace_of(ws.out, "ticker", small.pid) or ws.out, emitted)


def rate(progress, start, end):
    """Events per second between two times, from "progress TIME TOTAL"."""
    pts = [(ts, n) for ts, n in progress if start <= ts <= end]
    if len(pts) < 2 or pts[-1][0] <= pts[0][0]:
        return 0.0
    return (pts[-1][1] - pts[0][1]) / (pts[-1][0] - pts[0][0])


def stalled(t, ws, out):
    label = "ustd stopped"
    ustd = ws.start_ustd(out=out)
    ulog = Lines(ustd.stderr)
    # A pace the trace can be read back at; no wait on ustd may slow it.
    app_, alog = traced(ws, "stress", ["-d", "6", "-r", "50000", "-p"], UST_SUBBUF_SIZE=65536,
                        UST_SUBBUF_NUM=4)
    time.sleep(1.5)
    stop_at = time.monotonic()
    ustd.send_signal(signal.SIGSTOP)
    time.sleep(3)
    cont_at = time.monotonic()
    ustd.send_signal(signal.SIGCONT)
    rc, emitted = end_app(ws, app_, alog, term=False)
    t.eq(rc, 0, "%s: the program exits 0" % label)
    progress = []
    for _, l in alog.lines:
        w = l.split()
        if w[:1] == ["progress"]:
            progress.append((float(w[1]), int(w[2])))
    before = rate(progress, stop_at - 1.0, stop_at)
    during = rate(progress, stop_at + 0.5, cont_at)
    t.diag("%s: %.0f events/s while ustd ran, %.0f while it was stopped" % (label, before, during))
    t.ok(before > 0 and during > 0.5 * before,
         "%s: the program kept its pace while ustd was stopped" % label)
    gaps = [b[0] - a[0] for a, b in zip(progress, progress[1:]) if stop_at <= a[0] < cont_at]
    # A program waiting on the stopped ustd would stall for 2 s (libust's
    # shortest bound, SO_SNDTIMEO) or until SIGCONT; a loaded machine's
    # scheduler alone was seen to hold it 0.85 s (CI, both suites running).
    t.ok(gaps and max(gaps) < 1.5, "%s: and never paused (longest gap %.3f s)"
         % (label, max(gaps) if gaps else -1))
    t.eq(end_ustd(ustd, ulog), 0, "%s: ustd exits 0 on SIGTERM after SIGCONT" % label)
    path = trace_of(out, "stress", app_.pid) or out
    ok, err = babeltrace_check(path)
    t.ok(ok, "%s: babeltrace2 reads the trace cleanly" % label, err)
    events, discarded = read_trace_ints(path)
    total = sum(emitted.values())
    t.diag("%s: emitted %d, recorded %d, discarded %d" % (label, total, len(events), discarded))
    t.ok(discarded > 0, "%s: the buffers overflowed while it was stopped" % label)
    t.eq(len(events) + discarded, total, "%s: recorded + reported discarded == emitted" % label)
    seqs = [e.fields["seq"] for e in events if e.fields["thread"] == 0]
    t.ok(all(a < b for a, b in zip(seqs, seqs[1:])), "%s: kept events in order, none twice" % label)
    rc, _, err = babeltrace_text(path)
    t.ok(rc == 0 and "discarded" in err, "%s: babeltrace2 reports the discarded events" % label,
         err[:500])


t = Tap()
ws = Workspace()
disk_full(t, ws)
dir_removed(t, ws)
stalled_out = os.path.join(ws.root, "stalled")
os.mkdir(stalled_out)
stalled(t, ws, stalled_out)
t.done()
