# SPDX-License-Identifier: GPL-2.0-only
"""Record-time filters of function tracing (usttrace --func-filter,
--func-exclude, --func-depth; libust-func/func_record.c): func_calls,
whose call tree is known, traced without a filter, then with each; each
filtered trace holds exactly the calls the filter keeps of the unfiltered
one, per thread, and no event for the others. usttrace refuses a bad
depth and the filters with -p; a function of a library loaded later is
said not found."""

import os

from ustest import TOP_BUILD, Tap, Workspace, app, func_calls, namer, read_trace, trees_from_events

LIB = os.path.join(TOP_BUILD, "tests", "apps", ".libs", "libfunc_cxx.so")

t = Tap()
ws = Workspace()


def trace(name, args):
    """The call forests per thread of func_calls traced with args, and the
    number of function events."""
    out = os.path.join(ws.root, name)
    res = ws.usttrace(["-o", out, "-m", "ust_func:*"] + args + [app("func_calls"), LIB])
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

for args, what in ((["--func-depth", "0"], "a depth of 0"),
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
