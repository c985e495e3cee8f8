# SPDX-License-Identifier: GPL-2.0-only
"""A trace stopped by a full disk is picked up again once there is room
(ustd/space_wait.c): ustd pauses it and says so, the program runs on, its
buffers discarding and counting what does not fit; once the user frees
space, ustd asks the program back and the trace goes on in a new
directory from the packet that did not fit. Between the two directories
every event the program emitted is there once, but those the tracer
counted as discarded; the first is whole and readable on its own."""

import errno
import os
import re
import shutil
import time

from ustest import (Tap, VerboseUstd, Workspace, babeltrace_check, read_trace, small_tmpfs,
                    stream_discarded, unmount, wait_for)

t = Tap()
ws = Workspace()
mnt, why = small_tmpfs("8m")
if not mnt:
    t.ok(True, "# SKIP cannot mount a small tmpfs: %s" % why)
    t.done()
    raise SystemExit(0)


def fill(path):
    """Writes path until the file system is full; the bytes written."""
    n = 0
    with open(path, "wb", buffering=0) as f:
        try:
            while True:
                n += f.write(b"\0" * 65536)
        except OSError as e:
            if e.errno != errno.ENOSPC:
                raise
    return n


def traces(pid):
    return sorted(os.path.join(mnt, d) for d in os.listdir(mnt)
                  if re.fullmatch(r"ticker-%d-.*" % pid, d))


try:
    ustd = VerboseUstd(ws, mnt)
    # 4 KiB packets, a few a second: the disk is written all along.
    proc = ws.start_app("ticker", ["-i", "200"], UST_TRACE=1, UST_AUTOPROBE="ust:tick",
                        UST_SUBBUF_SIZE=4096, UST_SUBBUF_NUM=8)
    t.ok(wait_for(lambda: len(traces(proc.pid)) == 1, timeout=15), "ticker traced")
    time.sleep(0.5)
    ballast = os.path.join(mnt, "ballast")
    t.diag("ballast: %d MiB" % (fill(ballast) >> 20))
    m = ustd.wait_line(r"cannot write trace (\S+): No space left on device; tracing of "
                       r"ticker\[%d\] paused.* once (\S+) has (\d+) MiB free" % proc.pid)
    t.ok(m, "ustd says the trace is paused, why, and how much room it waits for",
         "".join(ustd.seen[-5:]))
    # The program runs on; its buffers fill and discard meanwhile.
    time.sleep(1.5)
    t.ok(proc.poll() is None, "the program runs on")
    first = traces(proc.pid)
    ok, err = babeltrace_check(first[0]) if first else (False, "no trace")
    t.ok(ok, "the paused trace holds whole packets, readable", err)
    os.unlink(ballast)
    t.ok(ustd.wait_line(r"ustd: %s has room again \(\d+ MiB free\): asking pid %d to report its "
                        r"trace here again" % (re.escape(mnt), proc.pid)),
         "once the ballast is deleted, ustd asks the program back", "".join(ustd.seen[-5:]))
    t.ok(wait_for(lambda: len(traces(proc.pid)) == 2, timeout=15),
         "the program reports again: a second trace directory", traces(proc.pid))
    time.sleep(1)
    out, _ = ws.stop_app(proc)
    emitted = int(re.search(r"^emitted 0 (\d+)$", out, re.M).group(1))
    t.eq(proc.returncode, 0, "the program exits 0")
    ustd.stop()
    # Read from copies: the reader may hold its files open for a while,
    # and the file system is unmounted below.
    both = []
    for d in traces(proc.pid):
        both.append(os.path.join(ws.root, os.path.basename(d)))
        shutil.copytree(d, both[-1])
    seqs, readable = [], True
    for d in both:
        ok, err = babeltrace_check(d)
        readable = readable and ok
        events, _ = read_trace(d) if ok else ([], 0)
        seqs.extend(e.fields["seq"] for e in events if e.name == "ust:tick")
    t.ok(readable and len(both) == 2, "babeltrace2 reads both traces", both)
    discarded = sum(stream_discarded(both[-1]).values()) if len(both) == 2 else -1
    missing = set(range(emitted)) - set(seqs)
    t.ok(len(seqs) == len(set(seqs)) and set(seqs) <= set(range(emitted)) and
         len(missing) == discarded and discarded > 0,
         "the two hold each of the %d events emitted once, but the %d counted discarded "
         "while the disk was full" % (emitted, discarded),
         "%d events, %d distinct, %d missing" % (len(seqs), len(set(seqs)), len(missing)))
    t.ok(seqs and max(seqs) == emitted - 1, "up to the last event")
finally:
    why = unmount(mnt)
    if why:
        t.diag(why)
ws.cleanup()
t.done()
