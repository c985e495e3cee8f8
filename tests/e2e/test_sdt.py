# SPDX-License-Identifier: GPL-2.0-only
"""UST's sites as sys/sdt.h probes (UST_SDT, the default of configure
--with-sdt; here forced with -DUST_SDT=1 so that any build tree tests it).

The compile matrix's programs, built with gcc (C) and g++ (C++) and
UST_SDT=1: readelf -n lists a stapsdt note for every marker and typed
event, by provider and name, with its arguments; the semaphores of typed
events and C markers lie in .probes (where perf and bpftrace look for
them), C++ markers have none. Under usttrace the programs record exactly
what they record without SDT. Where bpftrace can attach uprobes (root,
tracefs mounted), bpftrace usdt: probes fire at the sites, with their
arguments, while libust records nothing; elsewhere that part is skipped,
saying why."""

import os
import re
import shutil
import subprocess
import sys

from ustest import TOP_BUILD, TOP_SRC, Tap, Workspace, read_trace

sys.path.insert(0, os.path.join(TOP_SRC, "tests", "compile"))
from mx_programs import SESSION, expected  # noqa: E402

SRC = os.path.join(TOP_SRC, "tests", "compile")
FLAGS = ["-DUST_SDT=1", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2",
         "-I" + os.path.join(TOP_SRC, "include"), "-I" + os.path.join(TOP_BUILD, "include"),
         "-I" + SRC]
LIBDIR = os.path.join(TOP_BUILD, ".libs")
LINK = ["-L" + LIBDIR, "-Wl,-rpath," + LIBDIR, "-lust"]

t = Tap()
if not os.path.exists("/usr/include/x86_64-linux-gnu/sys/sdt.h") and \
        not os.path.exists("/usr/include/sys/sdt.h"):
    print("1..0 # SKIP sys/sdt.h is missing: apt-get install systemtap-sdt-dev")
    sys.exit(0)
if os.environ.get("SANITIZE_CFLAGS"):
    print("1..0 # SKIP sanitizer build: tests/compile/test_matrix.py says why")
    sys.exit(0)

ws = Workspace()


def sh(cmd):
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return res.returncode == 0, " ".join(cmd) + "\n" + res.stdout + res.stderr


progs = {}
b = os.path.join(ws.root, "b")
os.mkdir(b)
ok, diag = sh(["gcc", "-std=c11"] + FLAGS + [os.path.join(SRC, f) for f in
                                             ("mx_main.c", "mx_other.c", "mx_probes.c")] +
              ["-o", os.path.join(b, "mx-sdt-c")] + LINK)
if t.ok(ok, "gcc -std=c11 -DUST_SDT=1 -Wall -Wextra -Werror -pedantic builds the C program", diag):
    progs["c"] = (os.path.join(b, "mx-sdt-c"), None)
steps = [["gcc", "-std=c11"] + FLAGS + ["-c", os.path.join(SRC, "mx_probes.c"), "-o",
                                       os.path.join(b, "probes.o")],
         ["g++", "-std=c++17"] + FLAGS + ["-fPIC", "-fvisibility=hidden", "-shared", os.path.join(SRC, "mx_lib.cpp"),
                                         "-o", os.path.join(b, "libmx-sdt.so")] + LINK,
         ["g++", "-std=c++17"] + FLAGS + [os.path.join(SRC, "mx_main.cpp"), "-x", "c++",
                                         os.path.join(SRC, "mx_other.c"), "-x", "none",
                                         os.path.join(b, "probes.o"), "-o",
                                         os.path.join(b, "mx-sdt-cxx")] + LINK + ["-ldl"]]
log = []
for cmd in steps:
    ok, diag = sh(cmd)
    log.append(diag)
    if not ok:
        break
if t.ok(ok, "g++ -std=c++17 -DUST_SDT=1 -Wall -Wextra -Werror -pedantic builds the C++ program",
        "\n".join(log)):
    progs["c++"] = (os.path.join(b, "mx-sdt-cxx"), os.path.join(b, "libmx-sdt.so"))


def notes(path):
    """(provider, name, semaphore, arguments) of every stapsdt note."""
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True).stdout
    rx = re.compile(r"Provider: (\S+)\s+Name: (\S+)\s+Location: \S+, Base: \S+, "
                    r"Semaphore: (0x[0-9a-f]+)\s+Arguments: ?([^\n]*)")
    return [(m.group(1), m.group(2), int(m.group(3), 16), m.group(4).strip())
            for m in rx.finditer(out)]


def section(path, name):
    """(address, size) of a section."""
    out = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True).stdout
    m = re.search(r"\s%s\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)" % re.escape(name), out)
    return (int(m.group(1), 16), int(m.group(2), 16)) if m else (0, 0)


TYPED = {("mx", "request"), ("mx", "nothing"), ("mxf", "value"), ("mxlib", "call")}
for lang, (exe, lib) in sorted(progs.items()):
    found = notes(exe) + (notes(lib) if lib else [])
    names = {(p, n) for p, n, _, _ in found}
    want = {tuple(name.split(":")) for name, _ in expected(lang)}
    t.eq(sorted(want - names), [], "%s: readelf -n shows a stapsdt note for every site" % lang)
    args = {(p, n): a for p, n, _, a in found}
    t.ok(len(args.get(("mx", "mark"), "").split()) == 3 and
         len(args.get(("mx", "request"), "").split()) == 3 and args.get(("mx", "noargs")) == "",
         "%s: each note has the site's arguments (mx:mark 3, mx:request 3, mx:noargs none)" % lang,
         args)
    lo, size = section(exe, ".probes")
    # mx_probes.c, the programs' one C file, has the marker mx:from_c.
    typed = [(p, n, s) for p, n, s, _ in notes(exe) if (p, n) in TYPED or lang == "c" or
             (p, n) == ("mx", "from_c")]
    marks = [(p, n, s) for p, n, s, _ in notes(exe) if (p, n) not in TYPED]
    t.ok(typed and all(lo <= s < lo + size for _, _, s in typed),
         "%s: the semaphores of typed events and C markers lie in .probes" % lang,
         (hex(lo), size, typed))
    if lang == "c++":
        cxx = [m for m in marks if m[:2] != ("mx", "from_c")]
        t.ok(cxx and all(s == 0 for _, _, s in cxx), "c++: C++ markers' probes have no semaphore",
             cxx)

# ------------------------------------------------ libust records the same
if progs:
    session = os.path.join(ws.root, "s.xml")
    open(session, "w").write(SESSION)
    script = os.path.join(ws.root, "run.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\n")
        for exe, lib in progs.values():
            f.write('"%s" %s >/dev/null || exit 1\n' % (exe, '"%s"' % lib if lib else ""))
    os.chmod(script, 0o755)
    res = ws.usttrace(["-f", "--session", session, script])
    t.ok(res.returncode == 0, "usttrace runs the SDT programs", res.stderr)
    dirs = ws.trace_dirs()
    for lang, (exe, lib) in sorted(progs.items()):
        d = [x for x in dirs if os.path.basename(x).startswith(os.path.basename(exe) + "-")]
        events = read_trace(d[0])[0] if d else []
        got = [(e.name, e.fields) for e in events]
        t.ok(got == expected(lang), "%s: with SDT probes, libust records exactly the same events"
             % lang, "got %d events: %r" % (len(got), got[:5]))


# ------------------------------------------------------------- bpftrace
def bpftrace_skip_reason():
    if os.geteuid() != 0:
        return "bpftrace needs root"
    if not shutil.which("bpftrace"):
        return "bpftrace is not installed (apt-get install bpftrace)"
    if not os.path.exists("/sys/kernel/tracing/uprobe_events") and \
            not os.path.exists("/sys/kernel/debug/tracing/uprobe_events"):
        return ("tracefs is not mounted, bpftrace cannot create uprobes "
                "(mount -t tracefs nodev /sys/kernel/tracing)")
    return None


why = bpftrace_skip_reason() if "c" in progs else "the C program did not build"
if why:
    for _ in range(3):
        t.n += 1
        print("ok %d - # SKIP bpftrace usdt: %s" % (t.n, why))
else:
    exe = progs["c"][0]
    script = ('usdt:%s:mxf:value { @v[arg0] = count(); } '
              'usdt:%s:mx:mark { @m[arg0, str(arg1), arg2] = count(); } '
              'usdt:%s:mx:req_begin { @b = count(); }' % (exe, exe, exe))
    res = subprocess.run(["bpftrace", "-e", script, "-c", exe], capture_output=True, text=True,
                         timeout=300)
    out = res.stdout
    values = sorted(int(m.group(1)) for m in re.finditer(r"^@v\[(\d+)\]: 1$", out, re.M))
    t.eq(values, list(range(10)),
         "bpftrace usdt:mxf:value fires at every call, libust not tracing (semaphore set)")
    marks = sorted(re.findall(r"^@m\[(\d+), str, (\d+)\]: 1$", out, re.M))
    t.eq(marks, [("0", "0"), ("1", "1000000000"), ("2", "2000000000")],
         "bpftrace reads a C marker's arguments (int, string, long)")
    t.ok(re.search(r"^@b: 3$", out, re.M), "a span's begin marker is a probe too", out + res.stderr)
# ------------------------------------------- the disabled site is unchanged
# The benchmark's loop (three sites, bench_fire() called in the loop),
# compiled as the bench is, with and without the probes: in both
# bench_fire() is inlined into bench_thread(), and each site's disabled
# branch is the same load of its enabled word, test and branch. (With the
# note's dozens of asm lines counted by gcc's inliner, bench_fire() was
# called instead, a disabled site cost a call and a prologue.)
BENCH = os.path.join(TOP_SRC, "tests", "benchmark")


def disabled_branches(sdt):
    """bench_thread()'s calls and its disabled-site branches (a load from
    a rip-relative word, test of it, je), or None and why."""
    obj = os.path.join(b, "bench-sdt%d.o" % sdt)
    ok, diag = sh(["gcc", "-std=gnu11", "-O2", "-pthread", "-DUST_SDT=%d" % sdt,
                   "-I" + os.path.join(TOP_SRC, "include"),
                   "-I" + os.path.join(TOP_BUILD, "include"), "-I" + BENCH, "-c",
                   os.path.join(BENCH, "bench_ust.c"), "-o", obj])
    if not ok:
        return None, diag
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj], capture_output=True,
                         text=True).stdout
    m = re.search(r"<bench_thread>:\n(.*?)\n\n", dis, re.S)
    if not m:
        return None, dis
    ins = [l.split("\t", 1)[1].split("#")[0].strip() for l in m.group(1).splitlines()
           if "\t" in l]
    calls = [i for i in ins if i.startswith("call") and "bench_fire" in i]
    branches = sum(1 for x, y, z in zip(ins, ins[1:], ins[2:])
                   if re.fullmatch(r"mov\s+0x0\(%rip\),(%e\w\w)", x) and
                   y == "test   %s,%s" % (x[-4:], x[-4:]) and z.startswith("je"))
    return (calls, branches), "\n".join(ins)


plain, plain_dis = disabled_branches(0)
probed, probed_dis = disabled_branches(1)
t.ok(plain is not None and probed is not None and plain == probed == ([], 3),
     "bench_fire() inlined and 3 disabled sites of load, test, je, with and without the "
     "probes: %s / %s" % (plain, probed), plain_dis + "\n----\n" + probed_dis)
t.done()
