# SPDX-License-Identifier: GPL-2.0-only
"""fork(), vfork()+exec and posix_spawn() while tracing.

A forked child of a traced program gets a trace of its own (its own
buffers, its own connection to ustd, so its own directory) with the same
rules, and the parent's trace holds exactly the parent's events, even when
the parent has threads tracing while it forks. vfork()+exec and
posix_spawn() run no atfork handler: the new program starts from the
environment's settings and inherits no descriptor of the parent's libust."""

import os
import re
import subprocess

from ustest import Tap, Workspace, app, babeltrace_check, read_trace_ints

t = Tap()


def by_pid(ws):
    """{pid: trace directory} of every trace under the output directory."""
    dirs = {}
    for d in ws.trace_dirs():
        m = re.search(r"-(\d+)-\d{8}-\d{6}$", d)
        if m:
            dirs[int(m.group(1))] = d
    return dirs


def check_trace(path, what):
    ok, err = babeltrace_check(path)
    t.ok(ok, "%s reads cleanly" % what, err)
    return read_trace_ints(path)


# One fork: two traces, each with exactly its own events.
N = 1000
ws = Workspace()
res = ws.usttrace([app("forker"), str(N)])
t.ok(res.returncode == 0, "forker and usttrace succeed", res.stderr)
dirs = ws.trace_dirs()
t.eq(len(dirs), 2, "two traces: the parent's and the child's")
events = {}
for d in dirs:
    evs, discarded = check_trace(d, os.path.basename(d))
    t.eq(discarded, 0, "nothing discarded in %s" % os.path.basename(d))
    names = {e.name for e in evs}
    events[frozenset(names)] = evs
t.eq(sorted(tuple(sorted(k)) for k in events),
     [("ust:child",), ("ust:parent",)], "one trace per process, none mixed")
t.eq([e.fields["seq"] for e in events.get(frozenset({"ust:parent"}), [])],
     list(range(2 * N)), "every parent event, before and after the fork, in order")
t.eq([e.fields["seq"] for e in events.get(frozenset({"ust:child"}), [])],
     list(range(N)), "every child event, in order")

# Many forks from a multithreaded parent that traces all the while.
FORKS, EVENTS, THREADS = 50, 200, 2
ws = Workspace()
# 2 MiB per CPU: the busy threads write about 12 MB/s under ASan, and ustd,
# busy with 50 new children, may be kept off the CPU for 40 ms (the time
# 512 KiB lasted) when both suites run on two CPUs.
res = ws.usttrace(["--subbuf-size", "256k", "--subbuf-num", "8", app("fork_storm"),
                   str(FORKS), str(EVENTS), str(THREADS)], timeout=90)
t.ok(res.returncode == 0, "fork_storm (%d forks, %d threads) and usttrace succeed"
     % (FORKS, THREADS), res.stderr)
children = [int(l.split()[1]) for l in res.stdout.splitlines() if l.startswith("child ")]
emitted = {int(l.split()[1]): int(l.split()[2]) for l in res.stdout.splitlines()
           if l.startswith("emitted ")}
t.eq(len(children), FORKS, "every fork succeeded")
traces = by_pid(ws)
t.eq(sorted(p for p in traces if p in children), sorted(children),
     "every child has a trace directory of its own")
bad = []
for pid in children:
    d = traces.get(pid)
    if not d:
        continue
    ok, err = babeltrace_check(d)
    evs, discarded = read_trace_ints(d) if ok else ([], -1)
    seqs = [e.fields["seq"] for e in evs]
    if not ok or discarded or seqs != list(range(EVENTS)) or \
            {e.name for e in evs} != {"ust:child"}:
        bad.append((pid, ok, discarded, len(seqs), err[-300:]))
t.eq(bad, [], "every child's trace reads cleanly and holds exactly its %d events" % EVENTS)
parents = [p for p in traces if p not in children]
t.eq(len(parents), 1, "one trace for the parent")
if parents:
    evs, discarded = check_trace(traces[parents[0]], "the parent's trace")
    t.eq({e.name for e in evs}, {"ust:busy"}, "the parent's trace holds only its own events")
    seqs = {}
    for e in evs:
        seqs.setdefault(e.fields["thread"], []).append(e.fields["seq"])
    t.eq({k: (len(v), v == list(range(len(v)))) for k, v in seqs.items()},
         {k: (n, True) for k, n in emitted.items()},
         "every event of every parent thread, in order (discarded: %d)" % discarded)

# vfork()+exec and posix_spawn(): the new program (usttrace -f) traces by
# the environment and inherits none of libust's descriptors.
LS = "/bin/ls"
for mode in ("vfork", "spawn"):
    ws = Workspace()
    res = ws.usttrace(["-f", app("spawner"), mode, app("forker"), "10"])
    t.ok(res.returncode == 0, "%s: spawner runs forker traced" % mode, res.stderr)
    found = []
    for d in ws.trace_dirs():
        ok, err = babeltrace_check(d)
        evs, discarded = read_trace_ints(d) if ok else ([], -1)
        seqs = {}
        for e in evs:
            if e.name != "ust:spawner_busy":
                seqs.setdefault(e.name, []).append(e.fields["seq"])
        found.append((os.path.basename(d).split("-")[0], ok, discarded,
                      sorted((k, v == list(range(len(v))), len(v)) for k, v in seqs.items())))
    t.eq(sorted(found), [("forker", True, 0, [("ust:child", True, 10)]),
                         ("forker", True, 0, [("ust:parent", True, 20)]),
                         ("spawner", True, 0, [("ust:spawner", True, 200)])],
         "%s: the spawner's trace is complete, the program it started (and that "
         "one's forked child) traced by the environment's settings" % mode)
    res = ws.usttrace([app("spawner"), mode, LS, "-l", "/proc/self/fd"])
    leaked = [l for l in res.stdout.splitlines()
              if re.search(r"memfd:|eventfd|socket:", l)]
    t.ok(res.returncode == 0 and " -> " in res.stdout,
         "%s: the exec'd ls lists its descriptors" % mode, res.stderr)
    t.eq(leaked, [], "%s: no descriptor of the parent's libust survives exec" % mode)
t.done()
