# SPDX-License-Identifier: GPL-2.0-only
"""The trace clock (manual 12.9), end to end: the clock chosen is the one
the machine allows (the TSC when it is invariant and the kernel keeps time
with it, directly or through kvm-clock marked stable; CLOCK_MONOTONIC
otherwise or when asked), traces of two processes on different CPUs taking
turns merge in exactly the order of their turns, and every event's time is
the CLOCK_MONOTONIC the program read just before it, shifted by one
constant (the Unix time of monotonic 0). The TSC's shared anchor is
reused while it tells the wall-clock time and renewed when the system clock
was set or slewed away from it (clock_anchor.c): checked with anchors
written into a private anchor directory."""

import ctypes
import os
import statistics
import subprocess
import tempfile
import time

from ustest import Tap, Workspace, app, babeltrace_check, read_trace

TURNS = 1000
# How far an event's time may be from the interval its program's clock
# reads bound it in: the conversion of ticks to ns and the anchor's sampling
# error are well below a microsecond; this leaves room for rounding.
SLACK_NS = 20000


def kernel_tsc_usable():
    """Independently of libust: invariant TSC, and the kernel's clock is the
    TSC (clocksource tsc, or kvm-clock whose vDSO page has the stable bit)."""
    with open("/proc/cpuinfo") as f:
        text = f.read()
    flags = next((l.split(":", 1)[1].split() for l in text.splitlines()
                  if l.startswith("flags")), [])
    if "constant_tsc" not in flags or "nonstop_tsc" not in flags or "cpu MHz" not in text:
        return False, "TSC not invariant"
    with open("/sys/devices/system/clocksource/clocksource0/current_clocksource") as f:
        source = f.read().strip()
    if source == "tsc":
        return True, "clocksource tsc"
    if source != "kvm-clock":
        return False, "clocksource " + source
    page = None
    with open("/proc/self/maps") as f:
        for line in f:
            lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
            if line.rstrip().endswith("[vvar_vclock]"):
                page = lo
            elif line.rstrip().endswith("[vvar]") and hi - lo == 4 * 4096 and page is None:
                page = lo + 4096
    if page is None:
        return False, "no kvm-clock page"
    # Copied by the kernel (write() from it): an absent page is EFAULT, not SIGBUS.
    libc = ctypes.CDLL(None, use_errno=True)
    r, w = os.pipe()
    try:
        n = libc.write(w, ctypes.c_void_p(page), 32)
        rec = os.read(r, 32) if n == 32 else b""
    finally:
        os.close(r)
        os.close(w)
    if len(rec) != 32:
        return False, "kvm-clock page not mapped"
    return bool(rec[29] & 1), "kvm-clock, stable bit %d" % (rec[29] & 1)


def pingpong(t, label, **env):
    ws = Workspace()
    ustd = ws.start_ustd()
    a_in, b_out = os.pipe()
    b_in, a_out = os.pipe()
    procs = []
    for cpu, (fin, fout, first) in enumerate(((a_in, a_out, 1), (b_in, b_out, 0))):
        procs.append(subprocess.Popen(
            [app("clock_pingpong"), str(fin), str(fout), str(first), str(TURNS)],
            pass_fds=(fin, fout), env=ws.env(UST_TRACE=1, **env),
            preexec_fn=lambda c=cpu: os.sched_setaffinity(0, {c % os.cpu_count()}),
            stderr=subprocess.PIPE, text=True))
    for fd in (a_in, b_out, b_in, a_out):
        os.close(fd)
    rcs = [p.wait(timeout=120) for p in procs]
    t.eq(rcs, [0, 0], "both programs ran their turns" + label)
    ws.stop_app(ustd)
    dirs = ws.trace_dirs()
    t.eq(len(dirs), 2, "one trace per process" + label)
    ok, err = babeltrace_check(ws.out)
    t.ok(ok, "babeltrace2 reads both cleanly" + label, err)
    events, discarded = read_trace(ws.out)
    t.eq((len(events), discarded), (2 * TURNS, 0), "every turn recorded" + label)
    offset_now = time.time_ns() - time.monotonic_ns()
    ws.cleanup()
    return events, offset_now


def unix_offset_error(events, offset_now):
    """How far the trace's times are from the Unix times of the events'
    CLOCK_MONOTONIC reads, in ns (the median over the events)."""
    return statistics.median(e.ts - e.fields["mono"] for e in events) - offset_now


def read_anchor(path):
    with open(path) as f:
        words = f.read().split()
    return words[:2], [int(w) for w in words[2:]]


def write_anchor(path, head, nums):
    """In place of the file, as its owner would: written, then renamed."""
    with open(path + ".test", "w") as f:
        f.write(" ".join(head + [str(n) for n in nums]) + "\n")
    os.chmod(path + ".test", 0o644)
    os.rename(path + ".test", path)


def anchor_cases(t):
    """Each case: an anchor file as a process finds it, then two programs
    tracing; the file afterwards, and how far their times are from Unix
    time. A shared anchor that still tells the time is used as it is, even
    5 ms off (that is what lets every process agree to the tick); one the
    system clock stepped away from, or slewed past 100 ms, is replaced."""
    adir = tempfile.mkdtemp(prefix="ust-anchor-")
    env = {"UST_CLOCK_ANCHOR_DIR": adir}
    events, offset_now = pingpong(t, " (no anchor yet)", **env)
    names = os.listdir(adir)
    t.ok(len(names) == 1 and names[0].startswith("ust-clock-%d-" % os.geteuid()),
         "the first process publishes the anchor in UST_CLOCK_ANCHOR_DIR", names)
    path = os.path.join(adir, names[0]) if len(names) == 1 else os.path.join(adir, "none")
    head, nums = read_anchor(path)
    t.eq((head, len(nums)), (["ust-clock", "2"], 4),
         "it holds the version, kHz, TSC, Unix time and the wall-to-monotonic offset")
    t.ok(abs(unix_offset_error(events, offset_now)) < 1e6,
         "times are Unix times (no anchor yet)", unix_offset_error(events, offset_now))
    khz, tsc, epoch, wall = nums
    cases = (
        ("5 ms off, no step", [khz, tsc, epoch + 5000000, wall], "kept", 5000000),
        ("the clock stepped 9 s", [khz, tsc, epoch - 9000000000, wall - 9000000000],
         "renewed", 0),
        ("slewed 0.5 s", [khz, tsc, epoch - 500000000, wall], "renewed", 0),
        ("another kHz", [khz + 1, tsc, epoch, wall], "renewed", 0),
    )
    for label, written, fate, shift in cases:
        write_anchor(path, head, written)
        ino = os.stat(path).st_ino
        events, offset_now = pingpong(t, " (%s)" % label, **env)
        after_head, after = read_anchor(path)
        kept = os.stat(path).st_ino == ino and after == written
        t.eq("kept" if kept else "renewed", fate, "an anchor %s is %s" % (label, fate))
        t.eq((after_head, after[0]), (head, khz), "the file names the machine's kHz (%s)" % label)
        err = unix_offset_error(events, offset_now)
        t.ok(abs(err - shift) < 1e6, "times are Unix times%s (%s)"
             % (" shifted as the kept anchor says" if shift else "", label),
             "off by %d ns, want %d" % (err, shift))
    write_anchor(path, ["ust-clock", "1"], [khz, tsc, epoch])
    pingpong(t, " (version 1)", **env)
    t.eq(read_anchor(path)[0], head, "an anchor of version 1 is replaced by version 2")
    for name in os.listdir(adir):
        os.unlink(os.path.join(adir, name))
    os.rmdir(adir)


t = Tap()
usable, why = kernel_tsc_usable()
t.diag("this machine: TSC usable %s (%s)" % (usable, why))
for label, env, want in ((" (default clock)", {}, "tsc" if usable else "monotonic"),
                         (" (UST_CLOCK=monotonic)", {"UST_CLOCK": "monotonic"}, "monotonic")):
    events, offset_now = pingpong(t, label, **env)
    names = {e.clock for e in events}
    t.eq(names, {want}, "the trace clock is %s%s" % (want, label))
    # Merged by time, the two processes' turns alternate exactly: A0 B0 A1 B1 ...
    order = [(e.fields["turn"], e.vpid) for e in events]
    pids = [order[0][1], order[1][1]] if len(order) > 1 else []
    expect = [(i // 2, pids[i % 2]) for i in range(2 * TURNS)] if pids else []
    bad = next((i for i, (g, w) in enumerate(zip(order, expect)) if g != w), None)
    t.ok(len(set(pids)) == 2 and order == expect, "merged in the order of the turns" + label,
         bad is not None and order[max(0, bad - 2):bad + 3])
    # Time minus the program's CLOCK_MONOTONIC read before it: one constant.
    # Each event lies between its own read and the next turn's read.
    delta = statistics.median(e.ts - e.fields["mono"] for e in events)
    worst = 0
    for cur, nxt in zip(events, events[1:]):
        mono = cur.ts - delta
        worst = max(worst, cur.fields["mono"] - mono, mono - nxt.fields["mono"])
    span = (events[-1].fields["mono"] - events[0].fields["mono"]) / 1e6 if events else 0
    t.ok(worst <= SLACK_NS, "times match CLOCK_MONOTONIC within %d us over %.0f ms%s"
         % (SLACK_NS // 1000, span, label), "worst %d ns outside" % worst)
    # The constant is the Unix time of monotonic 0 (wall-clock times right):
    # the TSC's anchor is taken once per boot, so NTP may have slewed since.
    t.ok(abs(delta - offset_now) < 1e9, "event times are Unix times" + label,
         "off by %d ns" % (delta - offset_now))
if usable:
    anchor_cases(t)
else:
    t.diag("no TSC: the anchor cases do not apply")
t.done()
