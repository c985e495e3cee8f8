# SPDX-License-Identifier: GPL-2.0-only
"""Record-time filters of function tracing (usttrace --func-filter,
--func-exclude, --func-depth, --func-time; libust-func/func_record.c): func_calls,
whose call tree is known, traced without a filter, then with each; each
filtered trace holds exactly the calls the filter keeps of the unfiltered
one, per thread, and no event for the others. usttrace refuses a bad
depth and the filters with -p; a function of a library loaded later is
said not found."""

import json
import os

from functrace import func_calls, namer, trees_from_events
from ustest import TOP_BUILD, Tap, Workspace, app, read_trace

LIB = os.path.join(TOP_BUILD, "tests", "apps", ".libs", "libfunc_cxx.so")

t = Tap()
ws = Workspace()


def trace(name, args):
    """The call forests per thread of func_calls traced with args, and the
    number of function events."""
    out = os.path.join(ws.root, name)
    res = ws.usttrace(["-o", out, "-m", "ust_func:*", "--perfetto", out + ".json"] + args +
                      [app("func_calls"), LIB])
    t.ok(res.returncode == 0, "usttrace %s traces func_calls" % " ".join(args), res.stderr)
    if res.returncode:
        return {}, 0
    events = read_trace(out)[0]
    forests, problems = trees_from_events(
        events, namer([e.fields for e in events if e.name == "ust_statedump:bin_info"]))
    t.eq(problems, [], "%s: every entry has its exit" % " ".join(args))
    return forests, len(func_calls(events))


def kept(forest, only, never, depth, root=None, level=0):
    """The calls of forest that uftrace record's -F, -N and -D keep: a
    kept call's kept callees are its children."""
    out = []
    for name, children in forest:
        if name in never:
            continue
        if only and root is None and name not in only:
            out += kept(children, only, never, depth, None, 0)
            continue
        if depth and level >= depth:
            continue
        out.append((name, kept(children, only, never, depth, True, level + 1)))
    return out


def calls(forest):
    return sum(1 + calls(c) for _, c in forest)


def by_shape(forests):
    """The forests of the threads, in an order that does not depend on tids."""
    return sorted(repr(f) for f in forests.values() if f)


def leaves_dropped(full, got):
    """How many childless calls of full are missing from got, when got is
    full without them (the other calls in place, in order), else None."""
    dropped, j = 0, 0
    for name, children in full:
        sub = leaves_dropped(children, got[j][1]) if j < len(got) and got[j][0] == name else None
        if sub is not None:
            dropped, j = dropped + sub, j + 1
        elif children:
            return None
        else:
            dropped += 1
    return dropped if j == len(got) else None


def leaf_calls(forest):
    return sum(leaf_calls(c) if c else 1 for _, c in forest)


def by_roots(forests):
    """The forests of the threads, sorted by their roots' names."""
    return sorted((f for f in forests.values() if f), key=lambda f: [n for n, _ in f])


full, nfull = trace("full", [])
t.eq(nfull, 2 * sum(calls(f) for f in full.values()), "unfiltered: two events a call")
t.ok(len(full) == 2 and all(calls(f) > 10 for f in full.values()),
     "unfiltered: two threads' calls", full)

CASES = [
    ("--func-filter leaf", ["--func-filter", "leaf"], {"leaf"}, set(), 0),
    ("--func-filter middle --func-filter recurse",
     ["--func-filter", "middle", "--func-filter", "recurse"],
     {"middle", "recurse"}, set(), 0),
    ("--func-exclude middle", ["--func-exclude", "middle"], set(), {"middle"}, 0),
    ("--func-depth 2", ["--func-depth", "2"], set(), set(), 2),
    ("-F work -D 2", ["-F", "work", "-D", "2"], {"work"}, set(), 2),
    ("-F work -N recurse", ["-F", "work", "-N", "recurse"], {"work"}, {"recurse"}, 0),
]
for desc, args, only, never, depth in CASES:
    want = {tid: kept(f, only, never, depth) for tid, f in full.items()}
    got, nev = trace(desc.replace(" ", "_"), args)
    t.eq(by_shape(got), by_shape(want), "%s keeps what the unfiltered trace holds of it" % desc)
    t.eq(nev, 2 * sum(calls(f) for f in want.values()),
         "%s: nothing written for the calls it filters out" % desc)



def pruned(sub, full):
    """Whether forest sub is forest full less some calls with their callees."""
    i = 0
    for name, children in sub:
        while i < len(full) and not (full[i][0] == name and pruned(children, full[i][1])):
            i += 1
        if i == len(full):
            return False
        i += 1
    return True


def spans_us(path):
    """The durations (us) of the calls sink.ust.perfetto drew in path."""
    stacks, out = {}, []
    for e in json.load(open(path))["traceEvents"]:
        if e.get("cat") == "func" and e["ph"] == "B":
            stacks.setdefault(e["tid"], []).append(e["ts"])
        elif e.get("cat") == "func" and e["ph"] == "E":
            out.append(e["ts"] - stacks[e["tid"]].pop())
    return out


# --func-time: an entry waits for its exit, and is written (ust_func:entry_at,
# with its start) only when the call lasted long enough; its callers' then
# too, since they last longer. Durations vary from run to run: at 1 ns every
# call that calls another is kept, at 10 s none, and at 2 us the calls kept
# are whole callers of the unfiltered tree's shape, each lasting 2 us or
# more. A leaf call may measure under 1 ns (2 ticks of a 2.6 GHz TSC): its
# two clock reads are a few instructions apart, and rdtsc is not ordered
# with them, so a few leaves may go; most must stay.
got, nev = trace("time_all", ["--func-time", "1ns"])
pairs = list(zip(by_roots(full), by_roots(got))) if len(got) == len(full) else []
drops = [leaves_dropped(f, g) for f, g in pairs]
leaves = sum(leaf_calls(f) for f in full.values())
t.ok(pairs and None not in drops and sum(drops) * 4 <= leaves,
     "--func-time 1ns keeps every call that calls another, in place, and most leaves",
     "leaves dropped per thread %r of %d; got %r, want %r" % (drops, leaves, by_shape(got),
                                                             by_shape(full)))
got, nev = trace("time_none", ["--func-time", "10s"])
t.eq(nev, 0, "--func-time 10s writes no function event")
got, nev = trace("time_mid", ["-t", "2us"])
shapes = {f[0][0] if f else None: f for f in full.values()}
t.ok(got and all(pruned(f, shapes.get(f[0][0] if f else None, [])) for f in got.values()),
     "-t 2us keeps calls with their callers, in the unfiltered tree's shape", got)
short = [d for d in spans_us(os.path.join(ws.root, "time_mid.json")) if d < 2 - 0.002]
t.ok(spans_us(os.path.join(ws.root, "time_mid.json")) and not short,
     "each lasting 2 us or more, where sink.ust.perfetto draws it (start from entry_at)", short)

for args, what in ((["--func-depth", "0"], "a depth of 0"),
                   (["--func-time", "2 minutes"], "a time with an unknown unit"),
                   (["--func-depth", "x"], "a depth that is no number"),
                   (["--func-filter", "leaf", "-p", "1"], "--func-filter with -p")):
    res = ws.usttrace(["-m", "ust_func:*"] + args + [app("func_calls"), LIB] if "-p" not in args
                      else ["-m", "ust_func:*"] + args)
    t.ok(res.returncode == 125 and "func" in res.stderr, "usttrace refuses %s" % what,
         (res.returncode, res.stderr))
# Names are resolved when the program starts: the library it loads later
# with dlopen() is not searched, and libust-func says so.
res = ws.usttrace(["-o", os.path.join(ws.root, "late"), "-m", "ust_func:*", "-F", "func_cxx_run",
                   app("func_calls"), LIB])
t.ok(res.returncode == 0 and "no function func_cxx_run" in res.stderr,
     "a function of a library loaded later is not found, and said so", res.stderr)
t.done()
