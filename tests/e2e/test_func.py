# SPDX-License-Identifier: GPL-2.0-only
"""Function tracing (-finstrument-functions, libust-func): func_calls, whose
call tree is known, traced with usttrace; babeltrace2 reads every entry with
its exit, properly nested, per thread; the statedump names every object the
functions live in, the C++ library loaded with dlopen() too; the addresses,
named with binutils' nm from the objects the statedump names, give the
program's call tree; sink.ust.perfetto draws the same tree with the same
names (demangled); the summary lists the functions by total and self time;
--filter on the address keeps one function."""

import json
import os
import platform
import re
import subprocess

from functrace import first_load, func_calls, namer, nm_symbols, trees_from_events
from ustest import TOP_BUILD, TOP_SRC, UST_SUMMARY, USTTRACE, Tap, Workspace, app, read_trace

LIB = os.path.join(TOP_BUILD, "tests", "apps", ".libs", "libfunc_cxx.so")
DEPTH, MIDDLE, CXX_CALLS = 8, 3, 4
# The program's call tree (tests/apps/func_calls.c): (name, children).
rec = ("recurse", [])
for _ in range(DEPTH - 1):
    rec = ("recurse", [rec])
WORK = ("work", [rec] + [("middle", [("leaf", []), ("leaf", [])])] * MIDDLE)
MAIN_TREE = [("main", [WORK, ("func_cxx_run", [("shapes::Square::Square(int)", [])] +
                               [("shapes::Square::area(int) const", [])] * CXX_CALLS)])]
WORKER_TREE = [("worker", [WORK])]

t = Tap()
ws = Workspace()
out_json = os.path.join(ws.root, "calls.json")


def trees_from_json(evs):
    stacks, forests, problems = {}, {}, []
    for e in evs:
        if e.get("cat") != "func":
            continue
        stack = stacks.setdefault(e["tid"], [])
        if e["ph"] == "B":
            node = (e["name"], [])
            (stack[-1][1] if stack else forests.setdefault(e["tid"], [])).append(node)
            stack.append(node)
        elif e["ph"] == "E" and stack and stack[-1][0] == e["name"]:
            stack.pop()
        else:
            problems.append(e)
    return forests, problems


def summary_rows(trace, desc):
    """ust-summary's function table of trace, {name: (calls, total s, self s)},
    and its whole text."""
    summ = subprocess.run([UST_SUMMARY, trace], capture_output=True, text=True, env=ws.env())
    t.eq(summ.returncode, 0, desc)
    table, section = {}, False
    for line in summ.stdout.splitlines():
        if "function, by total time" in line:
            section = True
        elif not line.strip():
            section = False
        elif section:
            m = re.match(r"(\d+)\s+([\d.]+)\s+([\d.]+)(?:\s+[\d.]+){3}\s+(.+)$", line)
            table[m.group(4)] = (int(m.group(1)), float(m.group(2)), float(m.group(3)))
    return table, summ.stdout


def trace_to(out, args):
    """usttrace -o out args (ws.usttrace traces to the workspace's own)."""
    return subprocess.run([USTTRACE, "-o", out] + args, env=ws.env(), capture_output=True,
                          text=True, timeout=120)


def as_lists(forest):
    return [[n, as_lists(c)] for n, c in forest]


res = ws.usttrace(["-m", "ust_func:*", "-m", "ust_statedump:*", "-c", "vtid",
                   "--perfetto", out_json, "--summary", app("func_calls"), LIB])
t.eq(res.returncode, 0, "usttrace traces func_calls")
if res.returncode:
    t.diag(res.stderr)
dirs = ws.trace_dirs()
t.eq(len(dirs), 1, "one trace")
events, discarded = read_trace(dirs[0])
t.eq(discarded, 0, "nothing discarded")
infos = [e.fields for e in events if e.name == "ust_statedump:bin_info"]
paths = {i["path"] for i in infos}
t.ok(os.path.realpath(app("func_calls")) in paths, "the statedump names the executable", paths)
t.ok(os.path.realpath(LIB) in {os.path.realpath(p) for p in paths},
     "the statedump names the library loaded with dlopen()", paths)
build_ids = {i["path"]: bytes(i["build_id"]) for i in infos}
want_id = subprocess.run(["readelf", "-n", LIB], capture_output=True, text=True).stdout
m = re.search(r"Build ID: ([0-9a-f]+)", want_id)
t.ok(m and build_ids.get(LIB, build_ids.get(os.path.realpath(LIB))) == bytes.fromhex(m.group(1)),
     "with the build-id readelf reads from the file")

name = namer(infos)
forests, problems = trees_from_events(events, name)
t.eq(problems, [], "every entry has its exit, nested (babeltrace2)")
fcalls = func_calls(events)
t.eq([e.name for e in fcalls if e.tid != e.context["vtid"]], [],
     "the thread each event's run names is the one its vtid context names")
t.ok(sum(1 for e in fcalls if e.name.endswith("_cont")) > len(fcalls) // 2,
     "most events are the short forms that name no thread")
t.eq(len(forests), 2, "two threads call functions")
main_tid = next((e.tid for e in fcalls if e.kind == "entry" and name(e.addr) == "main"), None)
t.eq(as_lists(forests.get(main_tid, [])), as_lists(MAIN_TREE),
     "the main thread's calls are the program's call tree, named by nm")
others = [f for tid, f in forests.items() if tid != main_tid]
t.eq(as_lists(others[0]) if others else None, as_lists(WORKER_TREE),
     "the other thread's too")

doc = json.load(open(out_json))
jforests, jproblems = trees_from_json(doc["traceEvents"])
t.eq(jproblems, [], "sink.ust.perfetto: every span begins and ends, nested")
t.eq({tid: as_lists(f) for tid, f in jforests.items()},
     {tid: as_lists(f) for tid, f in forests.items()},
     "sink.ust.perfetto draws the same call tree with the same names, C++ demangled")

# The summary: every function's calls, total and self time, as computed
# here from babeltrace2's events (to the microsecond it prints).
rows, text = summary_rows(dirs[0], "ust-summary reads the trace")
t.ok("partial" not in text and "had not returned" not in text and "had no entry" not in text,
     "and says of no loss, no open call and no unmatched exit", text)
# Total time: summed over threads, a thread's outermost call of a
# function only (recursion counted once).
want, stacks = {}, {}
for ev in fcalls:
    stack = stacks.setdefault(ev.tid, [])
    if ev.kind == "entry":
        stack.append([name(ev.addr), ev.ts, 0])
        continue
    fname, start, child = stack.pop()
    dur = ev.ts - start
    calls, total, self_ns = want.get(fname, (0, 0, 0))
    outermost = all(f[0] != fname for f in stack)
    want[fname] = (calls + 1, total + (dur if outermost else 0), self_ns + dur - child)
    if stack:
        stack[-1][2] += dur
t.eq({n: r[0] for n, r in rows.items()}, {n: w[0] for n, w in want.items()},
     "the summary counts the calls of each function")
off = {n: (rows[n][1:], (w[1] / 1e9, w[2] / 1e9)) for n, w in want.items()
       if n in rows and (abs(rows[n][1] - w[1] / 1e9) > 1.5e-6 or abs(rows[n][2] - w[2] / 1e9) > 1.5e-6)}
t.eq(off, {}, "and its total time (outermost calls) and self time")

# --filter on the address: with a fixed layout (no ASLR), leaf's address.
arch = ["setarch", platform.machine(), "-R"]
res = subprocess.run(arch + [USTTRACE, "-o", os.path.join(ws.root, "norand"), "-m",
                             "ust_statedump:*", app("func_calls"), LIB],
                     env=ws.env(), capture_output=True, text=True, timeout=120)
exe = [i for i in read_trace(os.path.join(ws.root, "norand"))[0]
       if i.name == "ust_statedump:bin_info" and i.fields["path"] == os.path.realpath(app("func_calls"))]
syms = {v: k for k, v in nm_symbols(app("func_calls")).items()}
leaf = exe[0].fields["baddr"] - first_load(app("func_calls")) + syms["leaf"] if exe else 0
res = subprocess.run(arch + [USTTRACE, "-o", os.path.join(ws.root, "filtered"), "-m", "ust_func:*",
                             "--filter", "addr == 0x%x" % leaf, app("func_calls"), LIB],
                     env=ws.env(), capture_output=True, text=True, timeout=120)
t.eq(res.returncode, 0, "usttrace --filter 'addr == 0x%x'" % leaf)
fev = read_trace(os.path.join(ws.root, "filtered"))[0]
# Exits name no function: the filter keeps entries, in their long form.
t.eq(sorted({(e.name, e.fields["addr"]) for e in fev}),
     [("ust_func:entry", leaf)], "only leaf's entries are kept")
t.eq(len(fev), 4 * MIDDLE, "all of them")

# A plugin built the ordinary way, with the flag and without libust-func:
# the linker bound its hooks to the C library's stubs, under the C
# library's symbol version, which libust-func exports too. It has a marker:
# the functions UST's headers put in it (registration, probes) are not
# the plugin's and are not profiled.
PLUGIN_CALLS = 1000
src = os.path.join(ws.root, "plugin.c")
with open(src, "w") as f:
    f.write("#include <ust/marker.h>\n"
            "static volatile int sink;\n"
            "__attribute__((noinline)) void plugin_step(int i) { sink += i; }\n"
            "int func_cxx_run(int n) { for (int i = 0; i < n * %d; i++) plugin_step(i);"
            " trace_mark(plugin, done, \"n %%d\", n); return sink; }\n"
            % (PLUGIN_CALLS // CXX_CALLS))
plugin = os.path.join(ws.root, "plugin.so")
cc = subprocess.run([os.environ.get("CC", "cc").split()[0], "-shared", "-fPIC", "-O1",
                     "-finstrument-functions", "-I", os.path.join(TOP_SRC, "include"),
                     "-I", os.path.join(TOP_BUILD, "include"), "-o", plugin, src,
                     "-L", os.path.join(TOP_BUILD, ".libs"), "-lust"],
                    capture_output=True, text=True)
t.ok(cc.returncode == 0, "a plugin built with cc -shared -fPIC -finstrument-functions", cc.stderr)
refs = subprocess.run(["objdump", "-T", plugin], capture_output=True, text=True).stdout
t.ok(re.search(r"GLIBC_[\d.]+\)?\s+__cyg_profile_func_enter", refs),
     "its hooks are bound to the C library's version", refs)
res = trace_to(os.path.join(ws.root, "plugin"), ["-m", "ust_func:*",
                   app("func_calls"), plugin])
t.ok(res.returncode == 0, "usttrace -m 'ust_func:*' traces func_calls loading it", res.stderr)
prow = summary_rows(os.path.join(ws.root, "plugin"), "ust-summary reads that trace")[0]
t.eq((prow.get("plugin_step", (0,))[0], prow.get("func_cxx_run", (0,))[0]), (PLUGIN_CALLS, 1),
     "every call into the plugin is recorded and named, with the one pattern")
t.eq(sorted(n for n in prow if n.startswith("__ust") or "ust_object" in n), [],
     "none of the functions UST's headers made in it is profiled")

# main() calls finish(), which calls exit(): neither returns; both are
# counted, up to the last function event of the main thread.
res = trace_to(os.path.join(ws.root, "exit"), ["-m", "ust_func:*",
                   app("func_calls"), LIB, "exit"])
t.ok(res.returncode == 0, "usttrace traces func_calls ending in exit()", res.stderr)
erow, etext = summary_rows(os.path.join(ws.root, "exit"), "ust-summary reads that trace")
t.eq((erow.get("main", (0,))[0], erow.get("finish", (0,))[0]), (1, 1),
     "main() and finish(), which never return, are counted once each")
t.ok("main" in erow and erow["main"][1] >= erow["work"][1] + erow["func_cxx_run"][1],
     "main()'s total time holds the calls it made", etext)
t.ok("2 calls had not returned when the trace ended" in etext, "the summary says so", etext)

# Function tracing under usttrace is lossless unless told otherwise: every
# call of 50 000 middle() is in the trace, through buffers far too small.
calls_dir = os.path.join(ws.root, "lossless")
res = trace_to(calls_dir, ["--subbuf-size", "4096", "--subbuf-num", "2",
                   "-m", "ust_func:*", app("func_calls"), "loop", "50000"])
t.ok(res.returncode == 0 and "function tracing is lossless" in res.stderr,
     "usttrace -m 'ust_func:*' says it traces functions losslessly", res.stderr)
cevents, cdiscarded = read_trace(os.path.join(calls_dir, os.listdir(calls_dir)[0]))
t.eq((cdiscarded, sum(1 for e in func_calls(cevents) if e.kind == "exit")), (0, 3 * 50000 + 1),
     "with 2 x 4 KiB buffers, nothing is discarded: every exit is there")

# What a call costs on disk, as usttrace traces functions by default: the
# stream files (packet headers, the statedump and all) over the calls.
SIZE_CALLS = 100000
size_dir = os.path.join(ws.root, "size")
res = ws.usttrace(["-o", size_dir, "-m", "ust_func:*", app("func_calls"), "loop", str(SIZE_CALLS)])
t.ok(res.returncode == 0, "usttrace traces %d calls of middle()" % SIZE_CALLS, res.stderr)
trace_dir = os.path.join(size_dir, os.listdir(size_dir)[0])
stream_bytes = sum(os.path.getsize(os.path.join(root, f))
                   for root, _, files in os.walk(trace_dir) for f in files
                   if f != "metadata" and not root.endswith("index"))
calls = 3 * SIZE_CALLS + 1
t.ok(stream_bytes / calls <= 16, "a call costs %.2f bytes on disk (at most 16)" % (stream_bytes / calls))

# With --blocking-timeout 0, the same buffers discard: the profile stays
# consistent (no self time above the total), says it is partial, and counts
# the calls made after each loss. At 12 bytes a call ustd may keep up:
# three times the calls, each event made 32 bytes longer by contexts.
loss_dir = os.path.join(ws.root, "loss")
res = trace_to(loss_dir, ["--subbuf-size", "4096", "--subbuf-num", "2",
                          "--blocking-timeout", "0", "-c", "procname,pthread_id,ip",
                          "-m", "ust_func:*", app("func_calls"), "loop", "150000"])
t.ok(res.returncode == 0 and "lossless" not in res.stderr,
     "usttrace --blocking-timeout 0 traces them with discards allowed", res.stderr)
levents, ldiscarded = read_trace(os.path.join(loss_dir, os.listdir(loss_dir)[0]))
t.ok(ldiscarded > 0, "events are discarded (%d)" % ldiscarded)
lrow, ltext = summary_rows(loss_dir, "ust-summary reads that trace")
t.ok("warning: the function figures are partial" in ltext, "the summary says its figures are partial",
     ltext)
t.eq([n for n, r in lrow.items() if r[2] > r[1] + 1e-6 and n != "recurse"], [],
     "no function's self time exceeds its total time")
lname = namer([e.fields for e in levents if e.name == "ust_statedump:bin_info"])
# leaf calls nothing: its exit is the next function event of its thread.
last, leaf_exits = {}, 0
for e in func_calls(levents):
    leaf_exits += e.kind == "exit" and last.get(e.tid) == "leaf"
    last[e.tid] = lname(e.addr) if e.kind == "entry" and e.addr is not None else None
# A call open across a loss is dropped by design, and there are more of
# those the more is discarded, which grows with the machine's load (84 %
# of the exits counted in one CI run, 47 % in a fresh clone's run beside
# the sanitizer suite, 90 % and more on a quiet machine). What this checks
# is that counting starts again after each loss (issue O): a summary that
# stopped at the first loss, a few thousand events into rings of 2 x 4 KiB,
# would count about 1 % of them.
t.ok(leaf_exits and lrow.get("leaf", (0,))[0] >= 0.2 * leaf_exits,
     "the calls after each loss are counted: %d of leaf's %d exits in the trace"
     % (lrow.get("leaf", (0,))[0], leaf_exits))
t.done()
