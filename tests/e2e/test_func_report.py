# SPDX-License-Identifier: GPL-2.0-only
"""The function report of sink.ust.summary and ust-summary, as uftrace's
report and graph: func_calls (tests/apps/func_calls.c: two threads,
recursion, a dlopen()ed C++ library) traced with usttrace; every figure
the summary prints is computed here from babeltrace2's events (names by
binutils' nm, as test_func): the table in every sort order with every row,
the call graph of the program and of one function, the filters -F, -N, -D
and -t alone and together, for both; the same in the XML (valid against
ust-summary.xsd). Then uftrace records the same program built with -pg
(the library replaced by an uninstrumented one, which neither profile
sees): per function of the program, the calls its report counts are ours,
with the same filters (times are of two runs, so not compared)."""

import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

from functrace import calls_of, namer
from ustest import BABELTRACE2, BT2_PLUGIN_PATH, TOP_BUILD, TOP_SRC, UST_SUMMARY, Tap, Workspace, app, read_trace

LIB = os.path.join(TOP_BUILD, "tests", "apps", ".libs", "libfunc_cxx.so")
NS = "{https://ust.dev/xml/ns/summary}"
XSD = os.path.join(TOP_SRC, "doc", "xml", "ust-summary.xsd")

t = Tap()
ws = Workspace()

res = ws.usttrace(["-m", "ust_func:*", "-m", "ust_statedump:*", "-c", "vtid", app("func_calls"), LIB])
t.eq(res.returncode, 0, "usttrace traces func_calls")
dirs = ws.trace_dirs()
events, discarded = read_trace(dirs[0])
t.eq(discarded, 0, "nothing discarded")
name = namer([e.fields for e in events if e.name == "ust_statedump:bin_info"])
calls = calls_of(events, name)
t.ok(len(calls) > 40, "babeltrace2 gives the calls (%d)" % len(calls))


def chain(c):
    """c and its callers, outermost first."""
    out = []
    while c:
        out.insert(0, c)
        c = c["up"]
    return out


def shown(c, only=(), hide=(), depth=0, min_ns=0):
    """Whether the filters count c, as uftrace's: under an -F function
    (depth from the outermost one), under no -N one, at most -D deep, lasting
    at least -t. Computed from the call's own chain of callers."""
    ch = chain(c)
    if any(x["name"] in hide for x in ch):
        return False
    tops = [i for i, x in enumerate(ch) if not only or x["name"] in only]
    if not tops:
        return False
    return (not depth or len(ch) - tops[0] <= depth) and c["dur"] >= min_ns


def want_report(**flt):
    """{name: (calls, total, self, avg, min, max)} over the calls counted;
    total of a thread's outermost counted call of a function only."""
    rows = {}
    for c in calls:
        if not shown(c, **flt):
            continue
        outer = any(x["name"] == c["name"] and shown(x, **flt) for x in chain(c)[:-1])
        r = rows.setdefault(c["name"], [0, 0, 0, 0, None, 0])
        r[0] += 1
        r[1] += 0 if outer else c["dur"]
        r[2] += c["dur"] - c["child"]
        r[3] += c["dur"]
        r[4] = c["dur"] if r[4] is None else min(r[4], c["dur"])
        r[5] = max(r[5], c["dur"])
    return {n: (r[0], r[1], r[2], r[3] // r[0], r[4], r[5]) for n, r in rows.items()}


def want_graph(of, **flt):
    """{path of names: [calls, total, self]}: a counted call's path starts at
    the outermost call of the unbroken chain of counted callers above it (of
    'of', when not '*')."""
    nodes = {}
    for c in calls:
        if not shown(c, **flt):
            continue
        run = [c]
        x = c["up"]
        while x and shown(x, **flt):
            run.insert(0, x)
            x = x["up"]
        if of != "*":
            starts = [i for i, x in enumerate(run) if x["name"] == of]
            if not starts:
                continue
            run = run[starts[0]:]
        n = nodes.setdefault(tuple(x["name"] for x in run), [0, 0, 0])
        n[0] += 1
        n[1] += c["dur"]
        n[2] += c["dur"] - c["child"]
    return nodes


def run_summary(args, desc):
    res = subprocess.run([UST_SUMMARY] + args + [dirs[0]], capture_output=True, text=True,
                         env=ws.env())
    t.ok(res.returncode == 0, desc, res.stderr)
    return res.stdout


def xml_of(args, desc):
    out = run_summary(["--mi", "xml"] + args, desc)
    chk = subprocess.run(["xmllint", "--noout", "--schema", XSD, "-"], input=out,
                         capture_output=True, text=True)
    t.ok(chk.returncode == 0, "  its XML is valid against ust-summary.xsd", chk.stderr + out[-400:])
    try:
        return ET.fromstring(out).find(NS + "functions")
    except ET.ParseError:
        return None


def xml_report(fx):
    return {f.get("name"): tuple(int(f.get(k)) for k in ("calls", "total_ns", "self_ns", "avg_ns",
                                                        "min_ns", "max_ns"))
            for f in (fx.findall(NS + "function") if fx is not None else [])}


def xml_graph(fx):
    nodes = {}

    def walk(el, path):
        for n in el.findall(NS + "node"):
            p = path + (n.get("name"),)
            nodes[p] = [int(n.get("calls")), int(n.get("total_ns")), int(n.get("self_ns"))]
            walk(n, p)
    g = fx.find(NS + "graph") if fx is not None else None
    if g is not None:
        walk(g, ())
    return nodes


def text_tables(text):
    """The text's function tables: [(title, [(calls, total s, self s, avg us,
    min us, max us, name)], more)] and the graph's [(calls, total, self,
    indent, name)]."""
    tables, graph, rows = [], [], None
    for line in text.splitlines():
        m = re.match(r"calls\s+total \(s\)\s+self \(s\)\s+(avg.*max \(us\)\s+)?(.+)$", line)
        if m:
            rows = []
            if m.group(1):
                tables.append((m.group(2), rows, 0))
            else:
                rows = graph
            continue
        if rows is None:
            continue
        m = re.match(r"\((\d+) more functions\)$", line)
        if m:
            tables[-1] = (tables[-1][0], tables[-1][1], int(m.group(1)))
        elif rows is graph and re.match(r"\d+\s+[\d.]+\s+[\d.]+  ", line):
            f = re.match(r"(\d+)\s+([\d.]+)\s+([\d.]+)  ( *)(.+)$", line)
            graph.append((int(f.group(1)), float(f.group(2)), float(f.group(3)),
                          len(f.group(4)) // 2, f.group(5)))
        elif re.match(r"\d+\s", line):
            f = re.match(r"(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)  (.+)$", line)
            rows.append((int(f.group(1)),) + tuple(float(f.group(i)) for i in range(2, 7)) +
                        (f.group(7),))
        else:
            rows = None
    return tables, graph


def close(a, b, tol):
    return abs(a - b) <= tol


# --- The table: every function, its figures exact in the XML, and every
# sort order in the text with every row.
base = want_report()
t.ok({"main", "work", "recurse", "middle", "leaf", "worker"} <= set(base),
     "the trace has the program's functions", sorted(base))
fx = xml_of([], "ust-summary --mi xml reads the trace")
t.eq(xml_report(fx), base, "the XML has every function's calls, total, self, avg, min and max (ns)")
t.ok(fx is not None and fx.find(NS + "graph") is None, "and no graph unless asked")
keys = {"calls": 0, "total": 1, "self": 2, "avg": 3, "min": 4, "max": 5}
for key in ("calls", "total", "self", "avg", "min", "max", "name"):
    text = run_summary(["-s", key, "--rows", "all"], "ust-summary -s %s --rows all" % key)
    tables = text_tables(text)[0]
    t.eq(len(tables), 1, "  one table")
    rows = tables[0][1] if tables else []
    order = sorted(base, key=lambda n: (n,) if key == "name" else (-base[n][keys[key]], n))
    t.eq([r[-1] for r in rows], order, "  every function, sorted by %s (ties by name)" % key)
    bad = [r for r in rows if r[0] != base[r[-1]][0] or not close(r[1], base[r[-1]][1] / 1e9, 1e-6)
           or not close(r[2], base[r[-1]][2] / 1e9, 1e-6)
           or not all(close(r[2 + i], base[r[-1]][2 + i] / 1e3, 1e-3) for i in (1, 2, 3))]
    t.eq(bad, [], "  with their figures, to the digits printed")
text = run_summary([], "ust-summary without options")
tables = text_tables(text)[0]
t.eq([(title, [r[-1] for r in rows]) for title, rows, _ in tables],
     [("function, by total time", sorted(base, key=lambda n: (-base[n][1], n))),
      ("function, by self time", sorted(base, key=lambda n: (-base[n][2], n))[:10])],
     "by default: by total time (up to 50 rows), then by self time (10)")
tables = text_tables(run_summary(["--rows", "2"], "ust-summary --rows 2"))[0]
t.eq([(len(rows), more) for _, rows, more in tables], [(2, len(base) - 2)] * 2,
     "--rows 2: two rows a table, the others counted")
fx = xml_of(["--rows", "3", "-s", "calls"], "ust-summary --mi xml --rows 3 -s calls")
t.eq([f.get("name") for f in fx.findall(NS + "function")] if fx is not None else None,
     sorted(base, key=lambda n: (-base[n][0], n))[:3], "the XML: the first 3 by calls")

# --- The call graph, of the program and of one function.
for of in ("*", "work", "recurse"):
    want = want_graph(of)
    args = ["--graph"] if of == "*" else ["--graph=" + of]
    t.eq(xml_graph(xml_of(args, "ust-summary --mi xml %s" % args[0])), want,
         "  the XML graph is the trace's calls aggregated by path, calls, total and self (ns)")
    text = run_summary(args, "ust-summary %s" % args[0])
    graph = text_tables(text)[1]
    paths, stack = [], []
    for calls_n, total, self_s, depth, fname in graph:
        stack[depth:] = [fname]
        paths.append((tuple(stack), calls_n, total, self_s))
    t.eq(sorted(p for p, _, _, _ in paths), sorted(want), "  the text has the same paths, "
         "each under its caller")
    bad = [p for p, n, tot, slf in paths if p in want and (n != want[p][0] or
           not close(tot, want[p][1] / 1e9, 1e-6) or not close(slf, want[p][2] / 1e9, 1e-6))]
    t.eq(bad, [], "  with the same calls, total and self time")
t.ok(("main", "work", "middle", "leaf") in want_graph("*") and
     want_graph("*")[("main", "work", "middle", "leaf")][0] == 6,
     "(the trace's graph: main -> work -> middle called 3 times, leaf 6)")

# --- The filters, for the table and the graph: computed from the trace.
durs = sorted(c["dur"] for c in calls)
median = durs[len(durs) // 2]
FILTERS = [
    (["-F", "work"], dict(only={"work"})),
    (["-F", "middle", "-F", "recurse"], dict(only={"middle", "recurse"})),
    (["-N", "middle"], dict(hide={"middle"})),
    (["-N", "recurse", "-N", "worker"], dict(hide={"recurse", "worker"})),
    (["-D", "3"], dict(depth=3)),
    (["-F", "work", "-D", "2"], dict(only={"work"}, depth=2)),
    (["-t", "%dns" % median], dict(min_ns=median)),
    (["-t", "%.3fus" % (median / 1e3)], dict(min_ns=median)),
    (["-F", "work", "-N", "leaf", "-D", "4", "-t", "1"], dict(only={"work"}, hide={"leaf"},
                                                             depth=4, min_ns=1)),
]
for args, flt in FILTERS:
    want = want_report(**flt)
    fx = xml_of(args + ["--graph"], "ust-summary --mi xml --graph " + " ".join(args))
    t.eq(xml_report(fx), want, "  the table counts only the calls the filters choose")
    t.eq(xml_graph(fx), want_graph("*", **flt), "  and so does the graph")
    said = (sorted(e.get("name") for e in fx.findall(NS + "filter")),
            sorted(e.get("name") for e in fx.findall(NS + "notrace")),
            int(fx.get("depth", 0)), int(fx.get("min_call_ns", 0))) if fx is not None else None
    t.eq(said, (sorted(flt.get("only", ())), sorted(flt.get("hide", ())), flt.get("depth", 0),
                flt.get("min_ns", 0)), "  the XML says which filters")
    text = run_summary(args, "ust-summary " + " ".join(args))
    tables = text_tables(text)[0]
    t.eq(sorted(r[-1] for r in (tables[0][1] if tables else [])), sorted(want),
         "  the text lists the same functions")
t.ok(len(want_report(only={"work"})) < len(base) and want_report(depth=3) != base and
     want_report(min_ns=median) != base and want_report(hide={"middle"}) != base,
     "(each filter leaves calls out of this trace)")
fx = xml_of(["--graph=work", "-D", "2"], "ust-summary --mi xml --graph=work -D 2")
t.eq(xml_graph(fx), want_graph("work", depth=2), "  a function's graph under a depth limit")

# --- The sink's parameters, in any babeltrace2 graph; bad values refused.
res = subprocess.run([BABELTRACE2, "--plugin-path=" + BT2_PLUGIN_PATH, dirs[0], "-c",
                      "sink.ust.summary", "-p",
                      'func-sort="self",func-rows="all",func-filter="work;worker",func-depth="2"'],
                     capture_output=True, text=True)
tables = text_tables(res.stdout)[0]
want = want_report(only={"work", "worker"}, depth=2)
t.eq([r[-1] for r in (tables[0][1] if tables else [])],
     sorted(want, key=lambda n: (-want[n][2], n)),
     "sink.ust.summary -p func-sort,func-rows,func-filter (two names),func-depth")
for param in ('func-sort="often"', 'func-rows="0"', 'func-depth="x"', 'func-time="3 days"',
              'func-filter=""', 'func-graph=""'):
    res = subprocess.run([BABELTRACE2, "--plugin-path=" + BT2_PLUGIN_PATH, dirs[0], "-c",
                          "sink.ust.summary", "-p", param], capture_output=True, text=True)
    key = param.split("=")[0]
    t.ok(res.returncode == 1 and "parameter `%s`" % key in res.stderr,
         "sink.ust.summary refuses %s, naming it" % param, res.stderr[-600:])
for args in (["-s", "often"], ["--rows", "none"], ["-D", "0"], ["-t", "5 min"], ["-F"]):
    res = subprocess.run([UST_SUMMARY] + args + [dirs[0]], capture_output=True, text=True,
                         env=ws.env())
    t.ok(res.returncode == 2 and "ust-summary" in res.stderr,
         "ust-summary %s: a usage error (exit 2)" % " ".join(args), res.stderr)

# --- uftrace on the same program: built with -pg (its calls of the
# executable's functions are the same, whatever the run), the C++ library
# replaced by an uninstrumented stub so that its calls, which uftrace would
# not see, are in neither. Calls per function of the executable compared,
# with each filter but -t (durations differ between two runs).
if t.ok(shutil.which("uftrace"), "uftrace is installed (quickstart.sh installs it)"):
    src = os.path.join(TOP_SRC, "tests", "apps", "func_calls.c")
    exe, stub = os.path.join(ws.root, "func_calls_pg"), os.path.join(ws.root, "stub.so")
    with open(os.path.join(ws.root, "stub.c"), "w") as f:
        f.write("int func_cxx_run(int n) { return n; }\n")
    cc = os.environ.get("CC", "cc").split()[0]
    b1 = subprocess.run([cc, "-pg", "-O1", "-pthread", "-o", exe, src, "-ldl"], capture_output=True, text=True)
    b2 = subprocess.run([cc, "-shared", "-fPIC", "-o", stub, os.path.join(ws.root, "stub.c")],
                        capture_output=True, text=True)
    t.ok(b1.returncode == 0 and b2.returncode == 0, "func_calls built with -pg, and a stub library",
         b1.stderr + b2.stderr)
    data = os.path.join(ws.root, "uftrace.data")
    rec = subprocess.run(["uftrace", "record", "--no-libcall", "--no-event", "-d", data, exe, stub],
                         capture_output=True, text=True, timeout=120)
    t.ok(rec.returncode == 0, "uftrace record runs it", rec.stderr)
    ours = {"main", "worker", "work", "recurse", "middle", "leaf"}
    for args, flt in [([], {})] + [f for f in FILTERS if "-t" not in f[0]]:
        rep = subprocess.run(["uftrace", "report", "-d", data, "-f", "call"] + args,
                             capture_output=True, text=True, timeout=60)
        theirs = {}
        for line in rep.stdout.splitlines():
            m = re.match(r"\s*(\d+)\s+(\S.*)$", line)
            if m and m.group(2) in ours:
                theirs[m.group(2)] = int(m.group(1))
        mine = {n: r[0] for n, r in want_report(**flt).items() if n in ours}
        t.ok(mine and mine == theirs, "uftrace report %s counts the calls ours does" % " ".join(args),
             "ours:    %r\nuftrace: %r" % (mine, theirs))
t.done()
