# SPDX-License-Identifier: GPL-2.0-only
"""usttrace -f and --overwrite.

Without -f, usttrace traces the program and the children it forks, not the
programs its children execute, and returns when the program has ended.
With -f it traces every descendant, waits for all of them, orphans
included, and lists every trace directory. --overwrite keeps the buffers'
last contents (flight recorder), written when the program exits."""

import os
import time

from ustest import Tap, Workspace, app, babeltrace_check, read_trace

t = Tap()
# The shell exits at once; its orphaned subshell runs forker a second later.
SCRIPT = "( sleep 1; exec %s 10 ) & exit 0" % app("forker")


def traces(ws):
    found = []
    for d in ws.trace_dirs():
        ok, err = babeltrace_check(d)
        evs, discarded = read_trace(d) if ok else ([], -1)
        found.append((os.path.basename(d).split("-")[0], ok, discarded,
                      sorted({e.name for e in evs}), len(evs)))
    return sorted(found)


ws = Workspace()
start = time.time()
res = ws.usttrace(["-f", "/bin/sh", "-c", SCRIPT])
took = time.time() - start
t.ok(res.returncode == 0, "-f: usttrace succeeds", res.stderr)
t.ok(took >= 1, "-f: usttrace waits for the orphaned descendant (%.1f s)" % took)
t.eq(traces(ws), [("forker", True, 0, ["ust:child"], 10),
                  ("forker", True, 0, ["ust:parent"], 20)],
     "-f: the executed descendant and its forked child are traced, complete")
listed = sorted(l.split()[-1] for l in res.stderr.splitlines() if "trace written to" in l)
t.eq(listed, ws.trace_dirs(), "-f: usttrace lists every trace directory")

ws = Workspace()
res = ws.usttrace(["/bin/sh", "-c", SCRIPT])
t.ok(res.returncode == 0, "without -f: usttrace succeeds", res.stderr)
time.sleep(2)
t.eq(ws.trace_dirs(), [], "without -f: a program executed by a descendant is not traced")

ws = Workspace()
res = ws.usttrace([app("spawner"), "vfork", app("forker"), "10"])
t.eq(traces(ws), [("spawner", True, 0, ["ust:spawner", "ust:spawner_busy"],
                   traces(ws)[0][4] if traces(ws) else 0)],
     "without -f: the program is traced, what it executes is not")

# Flight recorder: a ring of 4 x 4 KiB keeps only the last events. The
# rings are per CPU: a program that migrates leaves older events in the
# ring of the CPU it left, and the merged trace is not one contiguous run
# (seen in 3 runs of 4 under ASan). One CPU makes "the last events" one run.
N = 20000
ws = Workspace()
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
res = ws.usttrace(["--overwrite", "--subbuf-size", "4k", "--subbuf-num", "4",
                   app("forker"), str(N)])
t.ok(res.returncode == 0, "--overwrite: usttrace succeeds", res.stderr)
parent = [d for d in ws.trace_dirs() if babeltrace_check(d)[0] and
          {e.name for e in read_trace(d)[0]} == {"ust:parent"}]
t.eq(len(parent), 1, "--overwrite: the parent's trace reads cleanly")
if parent:
    seqs = [e.fields["seq"] for e in read_trace(parent[0])[0]]
    t.ok(seqs and seqs[-1] == 2 * N - 1 and len(seqs) < 2 * N and
         seqs == list(range(seqs[0], 2 * N)),
         "--overwrite: the trace holds the ring's last contents, up to the last event "
         "(%d of %d, from %s)" % (len(seqs), 2 * N, seqs[0] if seqs else None))
t.done()
