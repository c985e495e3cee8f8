# SPDX-License-Identifier: GPL-2.0-only
"""ustd writes stream files straight from the rings by default (and with
--direct-io; --page-cache for the page cache): O_DIRECT, several writes
in flight through io_uring (ustd/output/direct_io.h), where the file
system allows it: the stream files are open with O_DIRECT
(/proc/PID/fdinfo), the page cache does not grow with the trace
(fincore(1)), ustd --stats says so, and the traces are whole: every event
of a lossless run, bounded files (tracefile size and count) and rotated
chunks. On tmpfs, which has no use for it, the same traces are written
through the page cache, and --stats says why."""

import os
import re
import subprocess
import time

import tracefile_check as tc
import ustest
from lagging_disk import blkio_leave, blkio_throttle, refuses_direct, small_ext4
from ustest import (Tap, VerboseUstd, Workspace, app, babeltrace_check, flood_one_cpu,
                    read_trace_ints, small_tmpfs, unmount)

from lagging_disk import MIB, O_DIRECT
STATS_RE = r"drain of flood\[\d+\]: (\d+) packets, (\d+) events discarded.*"
DIRECT = "written with O_DIRECT through io_uring"
PAGE_CACHE = "written through the page cache"
STREAM_RE = re.compile(r"\w+_\d+(_\d+)?")
# What a program whose trace a full disk stopped lost, said when it ends:
# by the wait for space (the trace paused) or by the stopped trace (the
# disk filled while ustd wrote what the ended program left).
LOST_RE = (r"ended(?: while its trace waited for space in \S+:|;) (\d+) events (?:its "
           r"buffers held or discarded are lost|it recorded are in no file)")

t = Tap()


def stream_fd_flags(pid, trace_root):
    """{stream file: open flags} of the stream files pid holds under
    trace_root."""
    found = {}
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            info = open("/proc/%d/fdinfo/%s" % (pid, fd)).read()
        except OSError:
            continue
        if target.startswith(trace_root) and STREAM_RE.fullmatch(os.path.basename(target)):
            found[os.path.basename(target)] = int(re.search(r"flags:\s+(\d+)", info).group(1), 8)
    return found


def cached(path):
    res = subprocess.run(["fincore", "--bytes", "--noheadings", "--output", "RES", path],
                         capture_output=True, text=True)
    return int(res.stdout.split()[0]) if res.returncode == 0 and res.stdout.split() else None


def one_trace(out):
    dirs = [d for d, _, files in os.walk(out) if "metadata" in files]
    return dirs[0] if len(dirs) == 1 else None


def flood_run(label, out, events, channels, direct, args=("--direct-io",)):
    """tests/apps/flood, one thread on one CPU, into a ustd --stats of its
    own writing under out (with args), channels as UST_CHANNELS (a
    blocking timeout: nothing discarded). Checks the path taken while the
    files are open and after; returns the trace directory and the --stats
    line."""
    ws = Workspace()
    ustd = VerboseUstd(ws, out, ["--stats"] + list(args))
    proc = flood_one_cpu(t, ws, events, "%s: flood done" % label, UST_TRACE=1,
                         UST_AUTOPROBE="ust:flood", UST_CHANNELS=channels)
    # The process waits for its stdin to close: its files are still open.
    # A write through the page cache (a lag, a file's last packets) takes
    # O_DIRECT off its file for its duration (stream_direct.c): a file
    # is seen as it is at rest, in one of a few looks 10 ms apart.
    flags = stream_fd_flags(ustd.proc.pid, out)
    for _ in range(50 if direct else 0):
        if all(f & O_DIRECT for f in flags.values()):
            break
        time.sleep(0.01)
        flags = {k: v | (f & O_DIRECT) for k, v in flags.items()
                 for f in [stream_fd_flags(ustd.proc.pid, out).get(k, 0)]}
    t.ok(flags and all(bool(f & O_DIRECT) == direct for f in flags.values()),
         "%s: ustd's stream files are open %s O_DIRECT" % (label, "with" if direct else "without"),
         {k: oct(v) for k, v in flags.items()})
    proc.stdin.close()
    t.eq(proc.wait(timeout=120), 0, "%s: program exits 0" % label)
    stats = ustd.wait_line(STATS_RE, timeout=30)
    t.ok(stats and stats.group(2) == "0" and
         (DIRECT if direct else PAGE_CACHE) in stats.group(0),
         "%s: ustd --stats: nothing discarded, %s" % (label, DIRECT if direct else PAGE_CACHE),
         stats.group(0) if stats else ustd.seen[-5:])
    ustd.stop()
    trace = one_trace(out)
    t.ok(trace, "%s: one trace" % label)
    return trace, stats.group(0) if stats else ""


def check_flood(label, trace, last):
    """babeltrace2 reads the trace; its flood events are the newest, up to
    seq last, in order, none missing or doubled; nothing discarded."""
    t.eq(ustest.stream_problems(trace, padded=True), [],
         "%s: every stream file's index matches its packets" % label)
    ok, err = babeltrace_check(trace)
    t.ok(ok, "%s: babeltrace2 reads the trace" % label, err[-2000:])
    events, discarded = read_trace_ints(trace)
    events = [e for e in events if e.name == "ust:flood"]
    t.eq(discarded, 0, "%s: nothing discarded" % label)
    t.eq(tc.suffix_problems(events, "seq", last), [],
         "%s: the events are the program's newest, in order, none missing or doubled" % label)
    return events


def rotated_ticks(ws, label, name, out, geometry, ticker_args, rotations, every):
    """A session name of ust:tick into out (geometry: its buffers' options),
    rotated rotations times, every seconds apart, while tests/apps/ticker
    (ticker_args) runs; returns {thread: ticks emitted} once it ended."""
    for args in (["create-session", "-o", out] + geometry + [name],
                 ["enable-marker", "-s", name, "ust:tick"], ["start-session", name]):
        res = ws.ustctl_fast(args)
        t.ok(res.returncode == 0, "%s: ustctl %s" % (label, " ".join(args)), res.stderr)
    ticker = ws.start_app("ticker", ticker_args)
    for i in range(rotations):
        time.sleep(every)
        res = ws.ustctl_fast(["rotate-session", name])
        t.ok(res.returncode == 0, "%s: rotate-session (%d)" % (label, i), res.stderr)
    out_text, _ = ws.stop_app(ticker)
    return {int(m.group(1)): int(m.group(2))
            for m in re.finditer(r"^emitted (\d+) (\d+)$", out_text, re.M)}


ws = Workspace()
why = refuses_direct(ws.root)
if why:
    t.ok(True, "# SKIP the test directory's file system cannot show the direct path: %s" % why)
else:
    # --- A lossless flood of about 50 MB, three times the writeback
    # thread's page-cache window (writeback.h): none of it stays cached.
    EVENTS = 4000000
    out = os.path.join(ws.root, "direct")
    os.mkdir(out)
    trace, _ = flood_run("direct", out, EVENTS, "*::@inf", True)
    streams = [os.path.join(trace, f) for f in os.listdir(trace)
               if STREAM_RE.fullmatch(f)] if trace else []
    big = [f for f in streams if os.path.getsize(f) >= 32 * MIB]
    t.ok(big, "direct: a stream file of at least 32 MiB (%s)"
         % {os.path.basename(f): os.path.getsize(f) for f in streams})
    for f in big:
        res = cached(f)
        t.ok(res is not None and res <= MIB,
             "direct: %s: %d KiB in the page cache of %d MiB written (at most 1 MiB)"
             % (os.path.basename(f), (res or 0) >> 10, os.path.getsize(f) // MIB),
             "fincore: %r" % res)
    if trace:
        check_flood("direct", trace, EVENTS - 1)

    # --- Without an option: straight from the rings, the default.
    out = os.path.join(ws.root, "default")
    os.mkdir(out)
    trace, stats = flood_run("default", out, 200000, "*::@inf", True, args=())
    if trace:
        check_flood("default", trace, 200000 - 1)

    # --- --page-cache: the page cache, said.
    out = os.path.join(ws.root, "page-cache")
    os.mkdir(out)
    trace, stats = flood_run("page-cache", out, 200000, "*::@inf", False, args=("--page-cache",))
    t.ok("(ustd --page-cache)" in stats, "page-cache: ustd --stats says it was asked for", stats)
    if trace:
        check_flood("page-cache", trace, 200000 - 1)
    res = subprocess.run([ustest.USTD, "--page-cache", "--direct-io"], capture_output=True,
                         text=True, timeout=10)
    t.ok(res.returncode == 2 and "--page-cache and --direct-io" in res.stderr,
         "ustd --page-cache --direct-io: refused, exit 2, saying why", res.stderr)

    # --- Bounded disk: 64 KiB files of 16 KiB packets, the newest 3 kept.
    EVENTS = 200000
    out = os.path.join(ws.root, "bounded")
    os.mkdir(out)
    trace, _ = flood_run("bounded", out, EVENTS, "*:16384:4@inf%65536/3", True)
    if trace:
        t.eq(tc.disk_problems(trace, 64 << 10, 3, 16 << 10), [],
             "bounded: at most 3 files of 64 KiB per stream, whole packets")
        t.ok(any(k == [0, 1, 2] for k in (sorted(v) for v in tc.stream_files(trace).values())),
             "bounded: the busy stream wrapped around its 3 files", tc.stream_files(trace))
        events = check_flood("bounded", trace, EVENTS - 1)
        t.ok(events and events[0].fields["seq"] > 0, "bounded: the oldest files were removed")

    # --- Rotation: a session rotated by hand three times while a
    # program writes; the chunks hold every event once, in order.
    ws2 = Workspace()
    ustd = VerboseUstd(ws2, ws2.out, ["--direct-io"], UST_DEBUG="1")
    emitted = rotated_ticks(ws2, "rotation", "rot", ws2.out, ["--subbuf-size", "16k",
                                                             "--subbuf-num", "8"],
                            ["-i", "20"], 3, 1)
    for args in (["stop-session", "rot"], ["rotate-session", "rot"], ["destroy-session", "rot"]):
        ws2.ustctl_fast(args)
    t.ok(ustd.wait_line(r"stream \w+ of trace \S+: " + DIRECT),
         "rotation: ustd (UST_DEBUG) says the chunks' files are " + DIRECT,
         [l for l in ustd.seen if "written" in l][-3:])
    ustd.stop()
    sdir = ustest.session_dir(ws2.out, "rot")
    adir = os.path.join(sdir, "archives") if sdir else ""
    chunks = sorted(os.path.join(adir, c) for c in os.listdir(adir)
                    if not c.startswith(".")) if os.path.isdir(adir) else []
    t.ok(len(chunks) >= 3, "rotation: at least 3 chunks", chunks)
    bad = [(c, err[-500:]) for c in chunks for ok, err in [babeltrace_check(c)] if not ok]
    t.eq(bad, [], "rotation: each chunk reads on its own with babeltrace2")
    seen, discards = [], 0
    for c in sorted(chunks, key=lambda p: int(p.rsplit("-", 1)[1])):
        events, discarded = read_trace_ints(c)
        seen.extend((e.fields["thread"], e.fields["seq"]) for e in events if e.name == "ust:tick")
        discards += discarded
    want = [(th, s) for th, n in sorted(emitted.items()) for s in range(n)]
    t.ok(emitted and sorted(seen) == want and len(set(seen)) == len(seen) and discards == 0,
         "rotation: the chunks hold the %d events emitted, each once, none discarded"
         % len(want), "seen %d, distinct %d, discarded %d" % (len(seen), len(set(seen)), discards))
    ws2.cleanup()

# --- A full disk on the direct path: the writes in flight past the one
# that failed are cut off with it, the trace stops (paused) with whole
# packets, every event before the stop there once, in order, and the
# events in the trace and those ustd says are lost are all the program's.
mnt, why = small_ext4(ws, 16) if not refuses_direct(ws.root) else (None, "no direct path")
if not mnt:
    t.ok(True, "# SKIP no small ext4 can be loop-mounted: %s" % why)
else:
    ws3 = Workspace()
    ustd = VerboseUstd(ws3, mnt, ["--stats", "--direct-io"])
    proc = flood_one_cpu(t, ws3, 4000000, "full: flood done", UST_TRACE=1,
                         UST_AUTOPROBE="ust:flood", UST_CHANNELS="*::@inf")
    proc.stdin.close()
    t.eq(proc.wait(timeout=120), 0, "full: program exits 0")
    m = ustd.wait_line(r"cannot write trace (\S+): No space left on device")
    t.ok(m, "full: ustd says the disk is full", ustd.seen[-5:])
    lost = ustd.wait_line(LOST_RE, timeout=60)
    t.ok(lost, "full: ustd says how many events are lost", ustd.seen[-5:])
    t.ok(not any("ended; 0 events" in l for l in ustd.seen),
         "full: and never that none are", ustd.seen[-5:])
    ustd.stop()
    trace = one_trace(mnt)
    t.ok(trace, "full: one trace")
    if trace:
        t.eq(ustest.stream_problems(trace, padded=True), [],
             "full: every stream file ends with a whole packet its index holds")
        ok, err = babeltrace_check(trace)
        t.ok(ok, "full: babeltrace2 reads what was written", err[-2000:])
        events, _ = read_trace_ints(trace)
        seqs = [e.fields["seq"] for e in events if e.name == "ust:flood"]
        t.ok(len(seqs) > 100000 and seqs == list(range(len(seqs))),
             "full: the %d events written are the program's first, in order, none missing"
             % len(seqs), seqs[:3] + seqs[-3:])
        if lost:
            t.eq(len(seqs) + int(lost.group(1)), 4000000,
                 "full: the events in the trace and those said lost are all the program's "
                 "(its buffers block: none discarded in the trace)")
    why = unmount(mnt)
    t.ok(why is None, "full: unmounted", why)
    ws3.cleanup()

LAG_EVENTS = 4000000


def throttled_ustd(label, size_mib, bps, args, **env):
    """A ws with an ext4 of size_mib whose direct writes are held to bps
    (blkio_throttle()), and a ustd --stats --direct-io (and args) in that
    group writing there: (ws, mnt, ustd, group), ustd None after a SKIP
    said why. The caller stops ustd, leaves the group (blkio_leave()) and
    unmounts mnt when not None."""
    ws = Workspace()
    mnt, why = small_ext4(ws, size_mib) if not refuses_direct(ws.root) else (None, "no direct path")
    cg = blkio_throttle(mnt, bps) if mnt else (None, why)
    if not cg[0]:
        t.ok(True, "# SKIP %s: no lagging device: %s" % (label, cg[1]))
        return ws, mnt, None, None
    ustd = VerboseUstd(ws, mnt, ["--stats", "--direct-io"] + list(args), **env)
    with open(os.path.join(cg[0], "cgroup.procs"), "w") as f:
        f.write("%d\n" % ustd.proc.pid)
    return ws, mnt, ustd, cg[0]


def lagging_flood(label, size_mib, ustd_env=None):
    """A ws with an ext4 of size_mib whose direct writes are held to 16 MB/s
    (blkio_throttle()), a ustd --direct-io --realtime in that group, and
    tests/apps/flood's 4 M events into it at full speed, their buffers
    discarding when full, ended: (ws, mnt, ustd, group), ustd still
    running (None after a SKIP said why); the caller stops it, then leaves
    the group (blkio_leave()) and unmounts mnt when not None."""
    ws, mnt, ustd, cg = throttled_ustd(label, size_mib, 16 * MIB, ["--realtime"],
                                       **(ustd_env or {}))
    if not ustd:
        return ws, mnt, None, None
    # 64 sub-buffers (16 MiB, 45 ms of the writer): a suite's other
    # tests' writeback slows the page cache too, and the default ring
    # (11 ms) then discarded in 1 run of 6; without ustd's copies the
    # writers still lose most of the events.
    proc = flood_one_cpu(t, ws, LAG_EVENTS, "%s: flood done" % label, UST_TRACE=1,
                         UST_AUTOPROBE="ust:flood", UST_SUBBUF_NUM="64")
    proc.stdin.close()
    t.eq(proc.wait(timeout=120), 0, "%s: program exits 0" % label)
    return ws, mnt, ustd, cg


# --- A device that lags: ustd's direct writes held to 16 MB/s by a blkio
# cgroup while the program writes about 48 MB at full speed, its buffers
# discarding when full. The writes in flight hold a quarter of the ring:
# waiting for them, the writers would fill the rest and discard (85 % of
# the events were, before). Instead the held packets are copied out and
# the next ones go through the page cache (stream_direct.h): nothing
# discarded, every event once, in order, and ustd --stats says what it
# did. ustd runs --realtime: what is tested is the device, not the
# scheduler of a machine the test suite keeps busy (the loop device's
# and the flushers' kernel threads share ustd's CPU here; at ordinary
# priority 1 run in 12 lost about 1 % of the events on a quiet machine).
ws4, mnt, ustd, cg = lagging_flood("lag", 256)
if ustd:
    stats = ustd.wait_line(STATS_RE, timeout=120)
    lag = re.search(r"the device lagged: (\d+) packets copied out of the ring, (\d+) through "
                    r"the page cache", stats.group(0)) if stats else None
    t.ok(stats and stats.group(2) == "0", "lag: ustd --stats: nothing discarded",
         stats.group(0) if stats else ustd.seen[-5:])
    t.ok(lag and int(lag.group(1)) > 0 and int(lag.group(2)) > 0 and DIRECT in stats.group(0),
         "lag: ustd --stats: written with O_DIRECT, packets copied out of the ring and "
         "through the page cache while the device lagged", stats.group(0) if stats else None)
    ustd.stop()
    blkio_leave(cg, ustd.proc.pid)
    trace = one_trace(mnt)
    t.ok(trace, "lag: one trace")
    if trace:
        check_flood("lag", trace, LAG_EVENTS - 1)
if mnt:
    why = unmount(mnt)
    t.ok(why is None, "lag: unmounted", why)
ws4.cleanup()

# --- Rotations while the device lags: a session whose chunks are on an
# ext4 whose writes from ustd are held to 1 MB/s (a 256 KiB packet takes
# 256 ms or more), rotated 5 times, 500 ms apart, while a program fills a
# packet about every 170 ms: the first rotation finds writes in flight. A rotation closes files with writes in
# flight: their packets are copied out of the ring at once, and the
# packets up to the rotation go through the page cache (stream_direct.h,
# ustd_stream_direct_closing()), so that neither the writers nor ustd's
# loop wait for the device; the chunks still hold every event once, in
# order, or count it as discarded.
ws6, mnt, ustd, cg = throttled_ustd("rotations while the device lags", 256, MIB, [],
                                    UST_DEBUG="1")
if ustd:
    emitted = rotated_ticks(ws6, "lagging rotation", "lagrot", mnt, ["--subbuf-num", "32"],
                            ["-i", "1000", "-e", "100"], 5, 0.5)
    for args in (["stop-session", "lagrot"], ["destroy-session", "lagrot"]):
        res = ws6.ustctl_fast(args)
        t.ok(res.returncode == 0, "lagging rotation: ustctl %s" % " ".join(args), res.stderr)
    stats = ustd.wait_line(r"drain of ticker\[\d+\]: .*", timeout=60)
    t.diag("lagging rotation: %s" % (stats.group(0) if stats else None))
    closes = re.search(r"at files' closes (\d+) packets copied out of the ring, (\d+) through "
                       r"the page cache", stats.group(0)) if stats else None
    t.ok(closes and int(closes.group(1)) > 0 and DIRECT in stats.group(0),
         "lagging rotation: ustd --stats: written with O_DIRECT, and packets in flight "
         "copied out of the ring at the files' closes",
         stats.group(0) if stats else ustd.seen[-5:])
    t.ok(any("published once its files were whole" in l for l in ustd.seen),
         "lagging rotation: a chunk was published once its files were whole (UST_DEBUG)",
         [l for l in ustd.seen if "chunk" in l][-3:])
    ustd.stop()
    blkio_leave(cg, ustd.proc.pid)
    sdir = ustest.session_dir(mnt, "lagrot")
    chunks = ustest.archived_chunks(sdir) if sdir else []
    t.ok(len(chunks) >= 5, "lagging rotation: at least 5 chunks (%d)" % len(chunks))
    traces = [d for c in chunks for d in sorted(os.path.join(c, n) for n in os.listdir(c))
              if os.path.exists(os.path.join(d, "metadata"))]
    t.eq([(d, p) for d in traces for p in [ustest.stream_problems(d, padded=True)] if p], [],
         "lagging rotation: every chunk's stream files match their indexes")
    bad = [(d, err[-500:]) for d in traces for ok, err in [babeltrace_check(d)] if not ok]
    t.eq(bad, [], "lagging rotation: each chunk reads on its own with babeltrace2")
    seen, discards = [], {}
    for d in traces:
        events, _ = read_trace_ints(d)
        seen.extend(e.fields["seq"] for e in events if e.name == "ust:tick")
        # Counted per stream from its start: the newest count is the total.
        for name, n in ustest.stream_discarded(d).items():
            discards[name] = max(discards.get(name, 0), n)
    discards = sum(discards.values())
    n = emitted.get(0, 0)
    t.ok(n > 100000 and seen == sorted(set(seen)) and seen and seen[-1] == n - 1 and
         len(seen) + discards == n,
         "lagging rotation: the chunks hold the %d events emitted once each, in order, "
         "or count them as discarded" % n,
         "seen %d, distinct %d, discarded %d" % (len(seen), len(set(seen)), discards))
if mnt:
    why = unmount(mnt)
    t.ok(why is None, "lagging rotation: unmounted", why)
ws6.cleanup()

# --- A process that ends with packets waiting for a device that lags: an
# ext4 whose writes from ustd are held to 1 MB/s, a ring of 32 packets,
# about 14 of them written at once (less than half the ring: the device
# is not seen to lag), then the process ends. Its trace's last packets
# would be written straight from the ring, four at a time, each batch
# waited for in ustd's loop (about a second each here, 3.5 s in all).
# Past 50 ms the file closes as a rotation closes it: the rest through
# the page cache (stream.c, STREAM_FINISH_WAIT_NS); every event once.
END_EVENTS = 300000
ws7, mnt, ustd, cg = throttled_ustd("a process ending while the device lags", 64, MIB, [])
if ustd:
    proc = flood_one_cpu(t, ws7, END_EVENTS, "lagging end: flood done", UST_TRACE=1,
                         UST_AUTOPROBE="ust:flood", UST_SUBBUF_NUM="32")
    ended = time.monotonic()
    proc.stdin.close()
    t.eq(proc.wait(timeout=120), 0, "lagging end: program exits 0")
    stats = ustd.wait_line(STATS_RE, timeout=120)
    t.diag("lagging end: its trace was whole %.2f s after the program was told to end: %s"
           % (time.monotonic() - ended, stats.group(0) if stats else None))
    closes = re.search(r"at files' closes (\d+) packets copied out of the ring, (\d+) through "
                       r"the page cache", stats.group(0)) if stats else None
    t.ok(stats and stats.group(2) == "0" and DIRECT in stats.group(0) and closes and
         int(closes.group(2)) > 0,
         "lagging end: ustd --stats: nothing discarded, written with O_DIRECT, the last "
         "packets through the page cache at the file's close",
         stats.group(0) if stats else ustd.seen[-5:])
    ustd.stop()
    blkio_leave(cg, ustd.proc.pid)
    trace = one_trace(mnt)
    t.ok(trace, "lagging end: one trace")
    if trace:
        check_flood("lagging end", trace, END_EVENTS - 1)
if mnt:
    why = unmount(mnt)
    t.ok(why is None, "lagging end: unmounted", why)
ws7.cleanup()

# --- stop-session while the device lags: ustd's writes held to 4 KiB/s,
# so that a session's 4 KiB packets are at the device for a second each
# when it stops. stop-session answers once they landed: the files read
# then are whole and hold every tick the trace will ever hold.
ws8, mnt, ustd, cg = throttled_ustd("stop while the device lags", 64, 4096, [])
if ustd:
    for args in (["create-session", "-o", mnt, "--subbuf-size", "4k", "--subbuf-num", "32",
                  "st"], ["enable-marker", "-s", "st", "ust:tick"], ["start-session", "st"]):
        res = ws8.ustctl(args)
        t.eq(res.returncode, 0, "lagging stop: ustctl %s" % args[0])
    ticker = ws8.start_app("ticker", ["-i", "2000"])
    time.sleep(2.5)
    res = ws8.ustctl(["stop-session", "st"])
    t.eq(res.returncode, 0, "lagging stop: stop-session")
    sdir = ustest.session_dir(mnt, "st")
    trace = os.path.join(sdir, "ticker-%d" % ticker.pid) if sdir else None
    t.eq(ustest.stream_problems(trace, padded=True) if trace else ["no trace"], [],
         "lagging stop: when stop-session answers, each stream file ends with a whole "
         "packet its index holds")
    at_stop = sorted(e.fields["seq"] for e in read_trace_ints(trace)[0]
                     if e.name == "ust:tick") if trace else []
    ws8.stop_app(ticker)
    res = ws8.ustctl(["destroy-session", "st"])
    t.eq(res.returncode, 0, "lagging stop: destroy-session")
    ustd.stop()
    blkio_leave(cg, ustd.proc.pid)
    after = sorted(e.fields["seq"] for e in read_trace_ints(trace)[0]
                   if e.name == "ust:tick") if trace else []
    t.ok(at_stop and at_stop == after,
         "lagging stop: the %d ticks read when stop-session answered are all the trace holds"
         % len(at_stop), "at stop %d, in the end %d" % (len(at_stop), len(after)))
if mnt:
    why = unmount(mnt)
    t.ok(why is None, "lagging stop: unmounted", why)
ws8.cleanup()

# --- A full disk while the device lags: a 16 MiB ext4, the direct writes
# held to 16 MB/s, 4 M events (48 MB). Packets that left the ring (copied
# out, or written through the page cache) and were then cut off the file
# with the write that failed are counted as lost, as those still in the
# ring are: the events in the trace and those ustd says are in no file
# add up to what the program recorded.
ws5, mnt, ustd, cg = lagging_flood("lag, full", 16, {"UST_DEBUG": "1"})
if ustd:
    full = ustd.wait_line(r"cannot write trace (\S+): No space left on device", timeout=60)
    t.ok(full, "lag, full: ustd says the disk is full", ustd.seen[-5:])
    lost = ustd.wait_line(LOST_RE, timeout=60)
    t.ok(lost, "lag, full: ustd says how many events are lost", ustd.seen[-5:])
    t.ok(any("the device lags" in l for l in ustd.seen),
         "lag, full: the device lagged before the disk was full (UST_DEBUG)",
         [l for l in ustd.seen if "lags" in l or "full" in l][-3:])
    ustd.stop()
    blkio_leave(cg, ustd.proc.pid)
    trace = one_trace(mnt)
    t.ok(trace, "lag, full: one trace")
    if trace and lost:
        t.eq(ustest.stream_problems(trace, padded=True), [],
             "lag, full: every stream file ends with a whole packet its index holds")
        ok, err = babeltrace_check(trace)
        t.ok(ok, "lag, full: babeltrace2 reads what was written", err[-2000:])
        events, discarded = read_trace_ints(trace)
        seqs = [e.fields["seq"] for e in events if e.name == "ust:flood"]
        t.ok(len(seqs) > 100000 and seqs[0] == 0 and
             all(a < b for a, b in zip(seqs, seqs[1:])) and
             len(seqs) + discarded == seqs[-1] + 1,
             "lag, full: the %d events written are the program's first, in order, each "
             "missing one counted in the trace as discarded (%d)" % (len(seqs), discarded),
             seqs[:3] + seqs[-3:])
        t.eq(len(seqs) + discarded + int(lost.group(1)), LAG_EVENTS,
             "lag, full: the events in the trace, those it counts as discarded and those "
             "ustd says are lost are all the program's")
if mnt:
    why = unmount(mnt)
    t.ok(why is None, "lag, full: unmounted", why)
ws5.cleanup()

# --- tmpfs: the page cache's path, said, and the trace as whole.
mnt, why = small_tmpfs("256m")
if not mnt:
    t.ok(True, "# SKIP no tmpfs can be mounted: %s" % why)
else:
    EVENTS = 1000000
    trace, stats = flood_run("tmpfs", mnt, EVENTS, "*::@inf", False)
    t.ok("(tmpfs" in stats, "tmpfs: ustd --stats says why: tmpfs", stats)
    if trace:
        check_flood("tmpfs", trace, EVENTS - 1)
    why = unmount(mnt)
    t.ok(why is None, "tmpfs: unmounted", why)
t.done()
