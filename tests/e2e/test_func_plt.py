# SPDX-License-Identifier: GPL-2.0-only
"""Library calls through the PLT (usttrace --plt, -A, -R: libust-plt, the
dynamic linker's audit library, and libust-func): plt_calls (tests/apps/
plt_calls.c, not built with -finstrument-functions) calls strlen on its
three arguments, abs(-i) and our library's plt_target_value(i, 2i), for i
from 1 to 5, then printf once. The trace has each call once, named by the
ust_plt:bind events, with the arguments and return values asked for,
exactly; ust-summary counts and shows the same; ltrace and uftrace (when
installed) count the same calls of the same program. The program linked
with -z now is traced the same; with LD_BIND_NOW set nothing is, and
usttrace says why. An exception thrown through a library call (plt_throw)
leaves the call, which is ended then. Without --plt nothing of this is
recorded."""

import os
import re
import shutil
import subprocess

from functrace import func_calls, namer
from ustest import UST_SUMMARY, USTTRACE, Tap, Workspace, app, read_trace

ARGV = ["a", "abc", "hello"]
ROUNDS = 5
WANT = {"strlen": ROUNDS * len(ARGV), "abs": ROUNDS, "plt_target_value": ROUNDS, "printf": 1}
ASK = ["-A", "strlen@1", "-R", "strlen", "-A", "plt_target_value@2", "-R",
       "plt_target_value", "-R", "abs"]

t = Tap()
ws = Workspace()
# In a sanitizer build the preloaded libust-func would come before the
# sanitizer's runtime, which must be first: it is preloaded before it.
SANITIZED = bool(os.environ.get("SANITIZE_CFLAGS"))
ASAN = {}
if SANITIZED and "address" in os.environ["SANITIZE_CFLAGS"]:
    ASAN["LD_PRELOAD"] = subprocess.run([os.environ.get("CC") or "cc", "-print-file-name=libasan.so"],
                                        capture_output=True, text=True).stdout.strip()


def trace(out, args, **env):
    """usttrace -o out args; its result and the events of its one trace."""
    res = subprocess.run([USTTRACE, "-o", out] + args,
                         env=ws.env(**dict(ASAN, **env)), capture_output=True, text=True,
                         timeout=120)
    dirs = [d for d, _, files in os.walk(out) if "metadata" in files]
    events, discarded = read_trace(dirs[0]) if len(dirs) == 1 else ([], None)
    return res, events, discarded


res, events, discarded = trace(os.path.join(ws.root, "plt"),
                               ["--plt"] + ASK + [app("plt_calls")] + ARGV)
t.eq(res.returncode, 0, "usttrace --plt traces plt_calls")
if res.returncode:
    t.diag(res.stderr)
t.eq(discarded, 0, "one trace, nothing discarded")
out_line = "strlen %d sum %d calls %d" % (
    ROUNDS * sum(map(len, ARGV)), sum(i + 1000 * i + 2 * i + 7 for i in range(1, ROUNDS + 1)), ROUNDS)
t.eq(res.stdout.strip(), out_line, "the program ran as without tracing")

# Names: by the symbol the program bound (strlen is an IFUNC: its address
# is one of its variants'); our own library's function, by binutils too.
binds = {}
for e in events:
    if e.name == "ust_plt:bind":
        binds.setdefault(e.fields["addr"], e.fields["name"])
infos = [e.fields for e in events if e.name == "ust_statedump:bin_info"]
nm_name = namer(infos)
target = [a for a, n in binds.items() if n == "plt_target_value"]
t.ok(len(target) == 1 and nm_name(target[0]) == "plt_target_value",
     "ust_plt:bind names plt_target_value at the address nm gives it", binds)
# (A sanitizer's runtime intercepts strlen.)
libc = [i for i in infos if os.path.basename(i["path"]).startswith(
    "libasan.so" if "LD_PRELOAD" in ASAN else "libc.so")]
t.ok([a for a, n in binds.items() if n == "strlen" and libc and
      libc[0]["baddr"] <= a < libc[0]["baddr"] + libc[0]["memsz"]],
     "strlen is bound in the C library the statedump names (or the sanitizer's)", binds)

# Each call once, entered and exited, in the program's one thread.
calls = func_calls(events)
counts, stack, order, bad = {}, [], [], []
for ev in calls:
    if ev.kind == "entry":
        name = binds.get(ev.addr, "?%x" % ev.addr)
        counts[name] = counts.get(name, 0) + 1
        stack.append(ev.addr)
    elif stack:
        stack.pop()
    else:
        bad.append(ev)
t.eq(counts, WANT, "each library call traced once, and nothing else (libust's are not)")
t.ok(not stack and not bad, "every entry has its exit", (stack, bad))

# Arguments and return values, in call order, exactly; each with the
# address and thread of its call.
args, rets = {}, {}
for e in events:
    if e.name in ("ust_plt:args", "ust_plt:ret"):
        d = args if e.name == "ust_plt:args" else rets
        d.setdefault(binds.get(e.fields["addr"]), []).append(
            e.fields["args"] if e.name == "ust_plt:args" else e.fields["ret"])
t.eq(sorted(args), ["plt_target_value", "strlen"], "arguments of the functions -A names only")
t.eq(args.get("plt_target_value"), [[i, 2 * i] for i in range(1, ROUNDS + 1)],
     "plt_target_value's two arguments, each call's")
ptrs = args.get("strlen", [])
base = ptrs[0][0] if ptrs else 0
offsets = [p[0] - base for p in ptrs]
t.eq(offsets, [0, 2, 6] * ROUNDS, "strlen's one argument: the argv strings, in order")
t.eq(rets.get("strlen"), [len(a) for a in ARGV] * ROUNDS, "strlen's return values")
t.eq(rets.get("abs"), list(range(1, ROUNDS + 1)), "abs's return values")
t.eq(rets.get("plt_target_value"), [1000 * i + 2 * i + 7 for i in range(1, ROUNDS + 1)],
     "plt_target_value's return values")
t.eq(sorted(rets), ["abs", "plt_target_value", "strlen"], "return values of the -R functions only")

# ust-summary: the calls by name, and the values.
trace_dir = [d for d, _, f in os.walk(os.path.join(ws.root, "plt")) if "metadata" in f]
summ = subprocess.run([UST_SUMMARY] + trace_dir, capture_output=True, text=True, env=ws.env())
t.eq(summ.returncode, 0, "ust-summary reads the trace")
table, section = {}, None
for line in summ.stdout.splitlines():
    if "function, by total time" in line or "arguments (ust_plt:args)" in line or \
       "returned (ust_plt:ret)" in line:
        section = line.split()[-1] if "ust_plt" in line else "calls"
        continue
    if not line.strip():
        section = None
    elif section == "calls":
        f = line.split()
        table[f[-1]] = int(f[0])
    elif section:
        m = re.match(r"(\d+)\s+(\S+)\s+(.+)$", line)
        table.setdefault((section, m.group(2)), []).append((m.group(3), int(m.group(1))))
t.eq({k: v for k, v in table.items() if isinstance(k, str)}, WANT,
     "ust-summary's function table: the calls, by the names bound")
t.eq(sorted(table.get(("(ust_plt:args)", "plt_target_value"), [])),
     sorted(("(%d, %d)" % (i, 2 * i), 1) for i in range(1, ROUNDS + 1)),
     "ust-summary lists plt_target_value's arguments")
t.eq(sorted(c for _, c in table.get(("(ust_plt:args)", "strlen"), [])), [ROUNDS] * len(ARGV),
     "ust-summary counts strlen's three distinct arguments")
t.eq(sorted(table.get(("(ust_plt:ret)", "strlen"), [])),
     sorted((str(len(a)), ROUNDS) for a in ARGV), "ust-summary counts strlen's return values")
t.eq(sorted(table.get(("(ust_plt:ret)", "abs"), [])),
     sorted((str(i), 1) for i in range(1, ROUNDS + 1)), "ust-summary lists abs's return values")

# Other tracers' counts of the same program's library calls.
def ltrace_counts():
    lt = subprocess.run(["ltrace", "-c", app("plt_calls")] + ARGV, capture_output=True,
                        text=True, timeout=120, env=ws.env())
    return {m.group(2): int(m.group(1)) for m in
            re.finditer(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(\S+)$", lt.stderr, re.M)}


def uftrace_counts():
    """uftrace record --force: its own PLT hooks, in a program without -pg."""
    d = os.path.join(ws.root, "uftrace.data")
    subprocess.run(["uftrace", "record", "--force", "-d", d, app("plt_calls")] + ARGV,
                   capture_output=True, text=True, timeout=120, env=ws.env())
    rep = subprocess.run(["uftrace", "report", "-d", d], capture_output=True, text=True,
                         timeout=120)
    return {m.group(2): int(m.group(1)) for m in
            re.finditer(r"^\s*[\d.]+ \S+\s+[\d.]+ \S+\s+(\d+)\s+(\S+)$", rep.stdout, re.M)}


for tool, counts_of in (("ltrace", ltrace_counts), ("uftrace", uftrace_counts)):
    if SANITIZED:
        # Neither expects a sanitizer's runtime in the program.
        t.ok(True, "# SKIP %s: a sanitizer build" % tool)
    elif not shutil.which(tool):
        t.ok(True, "# SKIP %s is not installed" % tool)
    else:
        got = counts_of()
        t.eq({n: c for n, c in got.items() if n in WANT}, WANT,
             "%s counts the same calls of the same program" % tool)

# Linked with -z now: still bound lazily while an audit library has PLT
# hooks (glibc ignores DT_BIND_NOW then), so traced the same.
res, events, _ = trace(os.path.join(ws.root, "now"), ["--plt", app("plt_calls_now")] + ARGV)
t.eq(res.returncode, 0, "usttrace --plt traces plt_calls linked with -z now")
binds = {e.fields["addr"]: e.fields["name"] for e in events if e.name == "ust_plt:bind"}
counts = {}
for ev in func_calls(events):
    if ev.kind == "entry":
        counts[binds.get(ev.addr)] = counts.get(binds.get(ev.addr), 0) + 1
t.eq(counts, WANT, "with the same calls")

# LD_BIND_NOW binds every call at load, past the PLT: said, not silently empty.
res, events, _ = trace(os.path.join(ws.root, "bindnow"), ["--plt", app("plt_calls")] + ARGV,
                       LD_BIND_NOW="1")
t.eq(res.returncode, 0, "usttrace --plt runs plt_calls with LD_BIND_NOW set")
t.ok("LD_BIND_NOW is set" in res.stderr and "no library call is traced" in res.stderr,
     "and says that no library call is traced", res.stderr)
t.eq([e.name for e in events if e.name.startswith(("ust_func:", "ust_plt:"))], [],
     "none is recorded")

# Exceptions thrown through library calls: the calls left without their
# exit hook are ended when the stack is back above them (plt_record.c), so
# the program's top-level calls are what it called, each closed.
res, events, _ = trace(os.path.join(ws.root, "throw"), ["--plt", app("plt_throw")])
t.ok(res.returncode == 0 and res.stdout.strip() == "sum 6 caught 3",
     "usttrace --plt runs plt_throw, its exceptions caught", (res.stdout, res.stderr[-300:]))
binds = {e.fields["addr"]: e.fields["name"] for e in events if e.name == "ust_plt:bind"}
top, depth, unmatched = [], 0, 0
for ev in func_calls(events):
    if ev.kind == "entry":
        if depth == 0:
            top.append(binds.get(ev.addr, "?%x" % ev.addr))
        depth += 1
    elif depth:
        depth -= 1
    else:
        unmatched += 1
want_top = []
for i in range(6):
    want_top += ["plt_throw_check"] + (["__cxa_begin_catch", "__cxa_end_catch"] if i % 2 else [])
t.eq(top, want_top + ["printf"], "the program's calls at the top, thrown ones ended")
t.ok(depth == 0 and unmatched == 0, "every entry has its exit", (depth, unmatched))

# Without --plt: the program's own event, nothing of its library calls.
res, events, _ = trace(os.path.join(ws.root, "none"), [app("plt_calls")] + ARGV)
t.eq(res.returncode, 0, "usttrace without --plt traces plt_calls")
names = {e.name for e in events}
t.ok("ust:plt_calls" in names and not any(n.startswith(("ust_func:", "ust_plt:")) for n in names),
     "its marker is recorded, no library call", names)

# Bad specifications are refused before anything runs.
for spec, why in ((["-A", "strlen@7"], "7 arguments"), (["-A", "@2"], "no name"),
                  (["-R", "a b"], "a space")):
    res = subprocess.run([USTTRACE, "-o", os.path.join(ws.root, "bad")] + spec +
                         [app("plt_calls")], env=ws.env(), capture_output=True, text=True,
                         timeout=60)
    t.ok(res.returncode == 125 and "usttrace: " in res.stderr and
         not os.path.exists(os.path.join(ws.root, "bad")),
         "%s (%s) is refused with exit 125" % (" ".join(spec), why), res.stderr)

ws.cleanup()
t.done()
