# SPDX-License-Identifier: GPL-2.0-only
"""A snapshot's directory appears whole or not at all (ustd/dir_publish.c):
a reader polling the parent directory while ustd writes a 32 MiB ring
must find, the moment a snapshot's name appears, every file at its final
size. Before, ustd created the directory first and filled it after, and
a test that read a snapshot as soon as it appeared read half of one
(test_trigger, on a loaded machine). No hidden directory is left behind,
and the snapshot's files hold no blocks reserved past their end."""

import os
import re
import subprocess
import threading
import time

from ustest import Tap, Workspace, app, babeltrace_check, blocks_past_end, read_trace

SNAP_RE = re.compile(r"-snapshot-\d+$")
SNAPSHOTS = 3

t = Tap()
ws = Workspace()
ws.start_ustd()
cpu = min(os.sched_getaffinity(0))
# One CPU, one 32 MiB ring: writing a snapshot takes tens of milliseconds,
# hundreds of the poller's looks.
proc = subprocess.Popen([app("flood"), "1", "4000000"],
                        env=ws.env(UST_TRACE=1, UST_OVERWRITE=1, UST_AUTOPROBE="ust:flood",
                                   UST_SUBBUF_SIZE=1 << 20, UST_SUBBUF_NUM=32),
                        preexec_fn=lambda: os.sched_setaffinity(0, {cpu}),
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
ws.daemons.append(proc)
t.eq(proc.stdout.readline().strip(), "ready", "flood program ready")
proc.stdin.write("go\n")
proc.stdin.flush()
t.eq(proc.stdout.readline().strip(), "done", "flood done: its ring is full")

snapdir = os.path.join(ws.root, "snaps")
os.mkdir(snapdir)
first_sight = {}
hidden_seen = set()
stop = threading.Event()


def files_of(d):
    """{relative path: size} of every file under d, as it is now."""
    out = {}
    for root, _, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            try:
                out[os.path.relpath(p, d)] = os.path.getsize(p)
            except FileNotFoundError:
                out[os.path.relpath(p, d)] = None
    return out


def poll():
    while not stop.is_set():
        for name in os.listdir(snapdir):
            if name.startswith("."):
                hidden_seen.add(name)
            elif SNAP_RE.search(name) and name not in first_sight:
                first_sight[name] = files_of(os.path.join(snapdir, name))
        time.sleep(0.0005)


poller = threading.Thread(target=poll)
poller.start()
paths = []
for i in range(SNAPSHOTS):
    res = ws.ustctl_fast(["snapshot", "-o", snapdir, str(proc.pid)])
    t.ok(res.returncode == 0 and res.stdout.strip(), "snapshot %d taken" % (i + 1),
         res.stdout + res.stderr)
    paths.append(res.stdout.strip().split()[-1])
stop.set()
poller.join()

names = sorted(n for n in os.listdir(snapdir) if SNAP_RE.search(n))
t.eq(len(names), SNAPSHOTS, "%d snapshot directories, numbered" % SNAPSHOTS)
t.ok(hidden_seen, "the poller saw the snapshots being written under a hidden name",
     sorted(hidden_seen))
for name in names:
    path = os.path.join(snapdir, name)
    final = files_of(path)
    seen = first_sight.get(name)
    streams = [f for f in final if re.fullmatch(r"\w+_\d+", f)]
    t.ok(seen == final and streams and final["metadata"] > 0,
         "%s: when its name appeared, every file was there at its final size "
         "(%d files, %d MiB)" % (name, len(final), sum(v or 0 for v in final.values()) >> 20),
         "first seen %r, final %r" % (seen, final))
    t.ok(not blocks_past_end(path), "%s: no blocks reserved past the end of its files" % name,
         blocks_past_end(path))
left = [n for n in os.listdir(snapdir) if n.startswith(".")]
t.ok(not left, "no hidden directory left behind", left)

last = os.path.join(snapdir, names[-1]) if names else None
ok, err = babeltrace_check(last) if last else (False, "no snapshot")
t.ok(ok, "babeltrace2 reads the last snapshot", err)
events, _ = read_trace(last) if ok else ([], None)
seqs = [e.fields["seq"] for e in events if e.name == "ust:flood"]
t.ok(seqs and seqs[-1] == 3999999 and seqs == list(range(seqs[0], seqs[0] + len(seqs))),
     "it holds the newest %d events without a hole, up to the last" % len(seqs))
t.ok(sorted(os.path.basename(p) for p in paths) == names,
     "ustctl printed the snapshots' final names", paths)

proc.stdin.close()
t.eq(proc.wait(timeout=60), 0, "the program exits 0")
ws.cleanup()
t.done()
