# SPDX-License-Identifier: GPL-2.0-only
"""A ustd SIGKILLed while the device still has writes of it in flight:
those packets land in its files after its death, and their sub-buffers,
never given back, are still in the program's ring. The next ustd finds
the dead one's files by their write marks (<rundir>/writing), waits on
their locks for the last write to land, cuts them back to the packets
the ring no longer holds and indexes them, then writes the rest from the
ring: every tick once across the two traces, whether the program comes
back to the new ustd (adopted) or ended meanwhile (its orphan); when
the program was killed too, the dead ustd's files are indexed to their
end; in a rotating session, whose restart archives the dead ustd's
directories as a chunk, the repair finds them there.

The device lags on purpose: ustd's direct writes are held to 4 KiB/s
(a cgroup v1 blkio throttle on a loop-mounted ext4), so that each 4 KiB
packet is at the device for about a second."""

import os
import re
import signal
import time

import ustest
from lagging_disk import blkio_throttle, refuses_direct, small_ext4
from ustest import (Tap, VerboseUstd, Workspace, babeltrace_check, read_trace_ints, unmount,
                    wait_for)

t = Tap()
TAKEN_RE = (r"stream (\S+) taken over: (\S+) keeps (\d+) packets \((\d+) index entries "
            r"added\), (\d+) cut off")
INDEXED_RE = r"(\S+), a killed ustd's file, indexed to its end: (\d+) entries added"


def ticks(path):
    """[tick numbers of thread 0] in the trace at path, and its discarded
    count (babeltrace2's text output: the bindings would keep the files
    open, and the disk could not be unmounted)."""
    events, discarded = read_trace_ints(path)
    return [e.fields["seq"] for e in events
            if e.name == "ust:tick" and e.fields["thread"] == 0], discarded


def marks(ws):
    d = os.path.join(ws.rundir, "writing")
    return sorted(os.listdir(d)) if os.path.isdir(d) else []


def traces(mnt):
    return sorted(d for d, _, files in os.walk(mnt) if "metadata" in files)


def start_rotating_session(label, ws, mnt):
    """A session rotating every hour, started, that a ticker joins."""
    for args in (["create-session", "-o", mnt, "--subbuf-size", "4k", "--subbuf-num", "32",
                  "rot"],
                 ["enable-marker", "-s", "rot", "ust:tick"],
                 ["enable-rotation", "-s", "rot", "--every", "1h"],
                 ["start-session", "rot"]):
        res = ws.ustctl(args)
        t.eq(res.returncode, 0, "%s: ustctl %s" % (label, args[0]))
    return ws.start_app("ticker", ["-i", "2000"])


def killed_under_load(label, ws, mnt, session):
    """A ticker traced by a ustd (straight from the rings, the default)
    whose writes are throttled, alone or in a rotating session, SIGKILLed
    with packets at the device: ((ticker, the dead ustd's trace, the
    throttled group, to remove once done), None), or (None, why not)."""
    cg, why = blkio_throttle(mnt, 4096)
    if not cg:
        return None, why
    ustd = VerboseUstd(ws, mnt)
    with open(os.path.join(cg, "cgroup.procs"), "w") as f:
        f.write("%d\n" % ustd.proc.pid)
    # 4 KiB packets, one every 0.5 s or so: three or four are at the
    # device (1 s each) when ustd dies, far from the half-full ring that
    # would send the next through the page cache.
    ticker = (start_rotating_session(label, ws, mnt) if session else
              ws.start_app("ticker", ["-i", "2000"], UST_TRACE=1, UST_AUTOPROBE="ust:tick",
                           UST_SUBBUF_SIZE=4096, UST_SUBBUF_NUM=32))
    wait_for(lambda: len(traces(mnt)) == 1)
    time.sleep(2.5)
    t.ok(len(marks(ws)) > 0, "%s: the streams being written are marked" % label, marks(ws))
    ustd.proc.send_signal(signal.SIGKILL)
    ustd.proc.wait()
    dead = traces(mnt)
    return (ticker, dead[0] if dead else None, cg), None


def check_split(label, ws, mnt, dead, emitted, ustd2):
    """The dead trace and the new one hold every tick once between them."""
    taken = [m for m in (re.search(TAKEN_RE, l) for l in ustd2.seen) if m]
    cut = sum(int(m.group(5)) for m in taken)
    t.ok(taken and all(m.group(2).startswith(dead + "/") for m in taken),
         "%s: the new ustd took over the dead one's stream files" % label, ustd2.seen[-10:])
    t.ok(cut > 0, "%s: and cut off %d packets that landed after the death, which the ring "
         "still held" % (label, cut), [m.group(0) for m in taken])
    t.eq(ustest.stream_problems(dead, padded=True), [],
         "%s: every stream file of the dead trace ends with a whole packet its index holds"
         % label)
    new = [d for d in traces(mnt) if d != dead]
    t.ok(len(new) == 1, "%s: the new ustd wrote one trace" % label, traces(mnt))
    if len(new) != 1:
        return
    for d in (dead, new[0]):
        ok, err = babeltrace_check(d)
        t.ok(ok, "%s: babeltrace2 reads %s" % (label, os.path.basename(d)), err[-2000:])
    old, old_discarded = ticks(dead)
    fresh, discarded = ticks(new[0])
    both = sorted(set(old) & set(fresh))
    t.ok(not both, "%s: no tick in both traces (the dead one has %d, the new one %d)"
         % (label, len(old), len(fresh)), "%d in both: %r" % (len(both), both[:5] + both[-5:]))
    every = sorted(old + fresh)
    t.ok(every == list(range(emitted)) and old_discarded + discarded == 0,
         "%s: the two hold every tick the program emitted (%d), once" % (label, emitted),
         "%d ticks, %d distinct, %d discarded" % (len(every), len(set(every)),
                                                  old_discarded + discarded))


def emitted_count(out):
    m = re.search(r"emitted 0 (\d+)", out)
    return int(m.group(1)) if m else -1


def run(label, how):
    ws = Workspace()
    why = refuses_direct(ws.root)
    mnt, why = small_ext4(ws, 64) if not why else (None, why)
    killed, why = killed_under_load(label, ws, mnt, how == "session") if mnt else (None, why)
    if not killed:
        t.ok(True, "# SKIP %s: no lagging device: %s" % (label, why))
        if mnt:
            unmount(mnt)
        return
    ticker, dead, cg = killed
    if how in ("adopted", "session"):
        # The program ticks on and reports to the next ustd; a rotating
        # session's directories are archived as a chunk first, the dead
        # ustd's files with them.
        ustd2 = VerboseUstd(ws, mnt, [], UST_DEBUG=1)
        t.ok(ustd2.wait_line(r"pid %d answered the reconnect request" % ticker.pid, 20),
             "%s: the program reports to the new ustd" % label)
        t.ok(ustd2.wait_line(TAKEN_RE, 30), "%s: which takes its streams over" % label,
             ustd2.seen[-5:])
        time.sleep(1)
        out, _ = ws.stop_app(ticker)
        ustd2.wait_line(r"ticker\[%d\].*ended" % ticker.pid, 30)
    elif how == "dead":
        # The program is killed too: nobody has its ring, the new ustd
        # indexes the dead one's files to their end.
        ticker.kill()
        ticker.wait()
        before = ustest.stream_problems(dead, padded=True)
        ustd2 = VerboseUstd(ws, mnt, [], UST_DEBUG=1)
        ustd2.stop_and_read()
        indexed = [m for m in (re.search(INDEXED_RE, l) for l in ustd2.seen) if m]
        t.ok(before and indexed and all(m.group(1).startswith(dead + "/") for m in indexed),
             "dead: the new ustd indexed the files the dead one left to their end",
             (before, ustd2.seen[-5:]))
        t.eq(ustest.stream_problems(dead, padded=True), [],
             "dead: every stream file then ends with a whole packet its index holds")
        ok, err = babeltrace_check(dead)
        t.ok(ok, "dead: babeltrace2 reads the dead trace", err[-2000:])
        t.eq(marks(ws), [], "dead: no write mark is left")
        os.rmdir(cg)
        why = unmount(mnt)
        t.ok(why is None, "dead: unmounted", why)
        ws.cleanup()
        return
    else:
        # The program ends meanwhile and leaves its trace as an orphan.
        time.sleep(1)
        out, _ = ws.stop_app(ticker)
        ustd2 = VerboseUstd(ws, mnt, [], UST_DEBUG=1)
    t.eq(ticker.returncode, 0, "%s: the program exits 0" % label)
    ustd2.stop_and_read()
    if how == "session":
        archived = [d for d in traces(mnt) if "/archives/" in d]
        t.ok(len(archived) == 1 and archived[0].endswith("/" + os.path.basename(dead)),
             "session: the dead ustd's trace was archived as a chunk", traces(mnt))
        dead = archived[0] if archived else dead
    check_split(label, ws, mnt, dead, emitted_count(out), ustd2)
    t.eq(marks(ws), [], "%s: no write mark is left" % label)
    os.rmdir(cg)
    why = unmount(mnt)
    t.ok(why is None, "%s: unmounted" % label, why)
    ws.cleanup()


run("adopted", "adopted")
run("orphan", "orphan")
run("dead", "dead")
run("session", "session")
t.done()
