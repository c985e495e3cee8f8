# SPDX-License-Identifier: GPL-2.0-only
"""A full disk while a session rotates (--rotate-every 500ms): the output
is an 8 MiB tmpfs, filled by a file once a few chunks are archived. ustd
says which trace, the cause and what becomes of the process; the chunks
archived before keep every event the program emitted until then, in
order, none twice, each read by babeltrace2; the process whose write
failed is not traced again (manual 4.2), while ustd, the program and the
session go on: once space is back, a program started in the session is
traced whole, into the next chunks."""

import os
import re
import shutil
import time

import ustest
from ustest import (Tap, VerboseUstd, Workspace, babeltrace_check, read_trace, small_tmpfs,
                    unmount, wait_for)

CHUNK_RE = re.compile(r"-(\d+)$")

t = Tap()


def ctl(*args):
    res = ws.ustctl_fast([str(a) for a in args])
    return res


def ok_cmd(what, *args):
    res = ctl(*args)
    t.ok(res.returncode == 0, what, res.stdout + res.stderr)
    return res


def chunks(sdir):
    adir = os.path.join(sdir, "archives")
    # Not a chunk being filled, under its hidden name.
    names = [n for n in (os.listdir(adir) if os.path.isdir(adir) else [])
             if not n.startswith(".") and CHUNK_RE.search(n)]
    return [os.path.join(adir, n) for n in sorted(names, key=lambda n: int(CHUNK_RE.search(n)
                                                                           .group(1)))]


def stop_ticker(proc):
    out, _ = ws.stop_app(proc)
    return sum(int(m.group(1)) for m in re.finditer(r"^emitted \d+ (\d+)$", out, re.M))


def fill(path):
    """Writes path until the file system is full (the trace may have
    filled it already: tmpfs charges each new file's inode to its size)."""
    try:
        with open(path, "wb") as f:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
    except OSError as e:
        return e.errno


ws = Workspace()
mnt, why = small_tmpfs("8m")
if not mnt:
    t.ok(True, "full disk during rotation # SKIP cannot mount a small tmpfs: %s" % why)
    ws.cleanup()
    t.done()
try:
    ustd = VerboseUstd(ws, mnt)
    ok_cmd("create-session --rotate-every 500ms on an 8 MiB file system",
           "create-session", "-o", mnt, "--subbuf-size", "16k", "--subbuf-num", "4",
           "--rotate-every", "500ms", "full")
    ok_cmd("enable-marker -s full ust:tick", "enable-marker", "-s", "full", "ust:tick")
    ok_cmd("start-session full", "start-session", "full")
    sdir = ustest.session_dir(mnt, "full")
    first = ws.start_app("ticker", ["-i", "200"])
    t.ok(wait_for(lambda: len(chunks(sdir)) >= 3, timeout=15),
         "3 chunks archived before the disk fills", os.listdir(sdir))
    before = chunks(sdir)
    filler = os.path.join(mnt, "filler")
    t.eq(fill(filler), 28, "the file system is full (ENOSPC)")
    m = ustd.wait_line(r"error: cannot write trace (\S+): No space left on device; "
                       r"tracing of ticker\[%d\] stopped, other traces continue; (.*)$"
                       % first.pid)
    t.ok(m is not None and "ticker-%d" % first.pid in m.group(1) and
         "next chunk" in m.group(2) and "restarted" in m.group(2),
         "ustd names the trace, the cause and what becomes of the process",
         "\n".join(ustd.seen))
    t.ok(first.poll() is None and ustd.proc.poll() is None,
         "the program and ustd run on")
    # Space comes back: the session goes on rotating, a new program in it
    # is traced whole.
    os.unlink(filler)
    time.sleep(1.2)
    second = ws.start_app("ticker", ["-i", "500"])
    time.sleep(1.5)
    emitted = {first.pid: stop_ticker(first), second.pid: stop_ticker(second)}
    ok_cmd("stop-session full", "stop-session", "full")
    res = ctl("rotate-session", "full")
    t.ok(res.returncode == 0 or "nothing to archive" in res.stderr,
         "rotate-session of the stopped session archives what is left", res.stderr)
    ok_cmd("destroy-session full", "destroy-session", "full")

    # Read from a copy: babeltrace2's Python reader keeps its files open
    # for a while, which would keep the file system from unmounting.
    kept = os.path.join(ws.root, "full")
    shutil.copytree(sdir, kept)
    paths = chunks(kept)
    t.eq([os.path.basename(p) for p in paths[:len(before)]],
         [os.path.basename(p) for p in before], "the chunks archived before the disk filled are kept")
    bad = [(p, err) for p in paths for ok, err in [babeltrace_check(p)] if not ok]
    t.ok(not bad, "each of the %d chunks reads on its own with babeltrace2" % len(paths), bad[:2])
    seqs = {first.pid: [], second.pid: []}
    for p in paths:
        events, discarded = read_trace(p)
        for e in events:
            if e.name == "ust:tick":
                seqs[e.vpid].append(e.fields["seq"])
    got = seqs[first.pid]
    t.ok(len(got) > 0 and got == list(range(len(got))),
         "the first program: its %d events written before the disk filled are all there, "
         "in order, none twice" % len(got), got[-5:])
    early = sum(1 for p in paths[:len(before)] for e in read_trace(p)[0] if e.vpid == first.pid)
    t.ok(early <= len(got) < emitted[first.pid],
         "its trace stopped at the full disk (%d of %d events), not resumed (manual 4.2)"
         % (len(got), emitted[first.pid]))
    t.eq(seqs[second.pid], list(range(emitted[second.pid])),
         "the program started once space was back: all its %d events, in the chunks after"
         % emitted[second.pid])
finally:
    ws.cleanup()
    why = unmount(mnt)
    if why:
        t.diag(why)
t.done()
