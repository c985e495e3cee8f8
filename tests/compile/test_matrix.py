# SPDX-License-Identifier: GPL-2.0-only
"""The compile matrix: the public headers as users' compilers see them.

Every combination of compiler and language standard (gcc and clang: C99,
C11, C17, gnu17; g++ and clang++: C++11, 14, 17, 20, 23) builds the same
instrumented program with -Wall -Wextra -Werror -pedantic -O2: markers, a
tracepoint with a probe, typed events, spans, a filtered event, a function
in a header called from two files, a provider header shared by C and C++
files; the C++ programs add templates, a lambda, a member function, a
namespace, std::string and a C++ library (-fvisibility=hidden) loaded and
unloaded with dlopen, which lists an inlined marker twice.
All of them then run under one usttrace -f (one ustd for the lot), and
babeltrace2's bindings read back every program's exact events: names,
field values, counts, order.

Every combination is run, not only compiled: what differs between them
is what the compiler made of the headers (section entries, COMDAT
statics, initialisers), which only a run and its trace show. The builds
run in parallel (nproc); the C probes file of the C++ programs is built
once per compiler. A sanitizer build skips the matrix: its libust needs the
sanitizer runtime of the compiler it was built with, which the other
compiler's programs cannot load.
"""

import concurrent.futures
import os
import shutil
import subprocess
import sys

from ustest import TOP_BUILD, TOP_SRC, Tap, Workspace, read_trace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mx_programs import SESSION, expected  # noqa: E402

SRC = os.path.join(TOP_SRC, "tests", "compile")
FLAGS = ["-Wall", "-Wextra", "-Werror", "-pedantic", "-O2"]
INCLUDES = ["-I" + os.path.join(TOP_SRC, "include"), "-I" + os.path.join(TOP_BUILD, "include"),
            "-I" + SRC]
LIBDIR = os.path.join(TOP_BUILD, ".libs")
LINK = ["-L" + LIBDIR, "-Wl,-rpath," + LIBDIR, "-lust"]

C_STDS = ["c99", "c11", "c17", "gnu17"]
CXX_STDS = ["c++11", "c++14", "c++17", "c++20", "c++23"]
# clang 14 and older know C++23 as c++2b.
CXX_STD_ALIASES = {"c++23": "c++2b"}
PAIRS = [("gcc", "g++"), ("clang", "clang++")]

t = Tap()
if os.environ.get("SANITIZE_CFLAGS"):
    print("1..0 # SKIP sanitizer build: the matrix runs in the plain build (see its docstring)")
    sys.exit(0)

ws = Workspace()
build = os.path.join(ws.root, "build")
os.mkdir(build)


def run(cmd):
    """(ok, diagnostics) of a compiler command."""
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return res.returncode == 0, " ".join(cmd) + "\n" + res.stdout + res.stderr


def std_flag(compiler, std):
    """-std=STD, or this compiler's older name for it."""
    probe = subprocess.run([compiler, "-std=" + std, "-x", "c++" if "+" in compiler else "c",
                            "-E", "-"], input="", capture_output=True, text=True)
    if probe.returncode != 0 and std in CXX_STD_ALIASES:
        return "-std=" + CXX_STD_ALIASES[std]
    return "-std=" + std


def obj(name):
    return os.path.join(build, name)


def build_c(cc, std):
    """The C program with cc -std=std: (ok, diagnostics, binary)."""
    tag = "%s-%s" % (cc, std)
    flag = std_flag(cc, std)
    objs, log = [], []
    for src in ("mx_main.c", "mx_other.c", "mx_probes.c"):
        o = obj("%s-%s.o" % (tag, src[:-2]))
        ok, diag = run([cc, flag] + FLAGS + INCLUDES + ["-c", os.path.join(SRC, src), "-o", o])
        log.append(diag)
        if not ok:
            return False, "\n".join(log), None
        objs.append(o)
    exe = obj("mx-" + tag)
    ok, diag = run([cc] + objs + ["-o", exe] + LINK)
    return ok, "\n".join(log + [diag]), exe


def build_c_probes(cc):
    """mx_probes.c for the C++ programs, once per compiler."""
    o = obj("%s-probes-for-cxx.o" % cc)
    ok, diag = run([cc, "-std=c11"] + FLAGS + INCLUDES +
                   ["-c", os.path.join(SRC, "mx_probes.c"), "-o", o])
    return ok, diag, o


def build_cxx(cxx, std, probes):
    """The C++ program and its library with cxx -std=std: (ok, diagnostics, binary, library)."""
    tag = "%s-%s" % (cxx, std)
    flag = std_flag(cxx, std)
    objs, log = [probes], []
    for src in ("mx_main.cpp", "mx_other.c"):
        o = obj("%s-%s.o" % (tag, src.split(".")[0]))
        lang = ["-x", "c++"] if src.endswith(".c") else []
        ok, diag = run([cxx, flag] + FLAGS + INCLUDES + lang +
                       ["-c", os.path.join(SRC, src), "-o", o])
        log.append(diag)
        if not ok:
            return False, "\n".join(log), None, None
        objs.append(o)
    lib = obj("libmx-%s.so" % tag)
    ok, diag = run([cxx, flag] + FLAGS + INCLUDES + ["-fPIC", "-fvisibility=hidden", "-shared",
                   os.path.join(SRC, "mx_lib.cpp"), "-o", lib] + LINK)
    log.append(diag)
    if not ok:
        return False, "\n".join(log), None, None
    exe = obj("mx-" + tag)
    ok, diag = run([cxx] + objs + ["-o", exe] + LINK + ["-ldl"])
    return ok, "\n".join(log + [diag]), exe, lib


# ------------------------------------------------------------- the builds
combos = []         # (language, compiler, std)
missing = []
for cc, cxx in PAIRS:
    for compiler, stds, lang in ((cc, C_STDS, "c"), (cxx, CXX_STDS, "c++")):
        if shutil.which(compiler):
            combos += [(lang, compiler, std) for std in stds]
        else:
            missing += [(lang, compiler, std) for std in stds]

jobs = max(1, len(os.sched_getaffinity(0)))
with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
    probes = {cc: pool.submit(build_c_probes, cc) for cc, cxx in PAIRS if shutil.which(cxx)}
    futures = {}
    for lang, compiler, std in combos:
        if lang == "c":
            futures[(lang, compiler, std)] = pool.submit(build_c, compiler, std)
    probe_objs = {}
    for cc, fut in probes.items():
        ok, diag, o = fut.result()
        t.ok(ok, "%s -std=c11: the C probes file of the C++ programs builds" % cc, diag)
        probe_objs[dict(PAIRS)[cc]] = o if ok else None
    for lang, compiler, std in combos:
        if lang == "c++" and probe_objs.get(compiler):
            futures[(lang, compiler, std)] = pool.submit(build_cxx, compiler, std,
                                                         probe_objs[compiler])

built = []          # (combo, binary, library)
for combo in combos:
    lang, compiler, std = combo
    what = "%s -std=%s %s builds the %s program" % (compiler, std, " ".join(FLAGS), lang.upper())
    if combo not in futures:
        t.ok(False, what + " (its C probes did not build)")
        continue
    res = futures[combo].result()
    if t.ok(res[0], what, res[1]):
        built.append((combo, res[2], res[3] if lang == "c++" else None))
for lang, compiler, std in missing:
    t.n += 1
    print("ok %d - # SKIP %s is not installed (-std=%s)" % (t.n, compiler, std))

# -------------------------------------------------- one usttrace for all
session = os.path.join(ws.root, "matrix.xml")
with open(session, "w") as f:
    f.write(SESSION)
script = os.path.join(ws.root, "run-all.sh")
with open(script, "w") as f:
    f.write('#!/bin/sh\n')
    for combo, exe, lib in built:
        f.write('"%s" %s >"%s.out" 2>&1 || echo "%s failed: $?" >&2\n'
                % (exe, '"%s"' % lib if lib else "", exe, exe))
os.chmod(script, 0o755)

res = ws.usttrace(["-f", "--session", session, script], timeout=600)
t.ok(res.returncode == 0 and "failed" not in res.stderr,
     "usttrace -f runs the %d programs" % len(built), res.stderr)

dirs = ws.trace_dirs()


def trace_of(exe):
    """The trace directory of the program exe (named after it, then its pid)."""
    base = os.path.basename(exe)[:15]
    found = [d for d in dirs if os.path.basename(d).startswith(base + "-")]
    return found


for (lang, compiler, std), exe, lib in built:
    found = trace_of(exe)
    what = "%s -std=%s: babeltrace2 reads the exact events" % (compiler, std)
    if not found:
        t.ok(False, what + " (no trace)", open(exe + ".out").read() if os.path.exists(exe + ".out") else "")
        continue
    events, discarded = read_trace(found[0])
    got = [(e.name, e.fields) for e in events]
    want = expected(lang)
    first = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), None)
    t.ok(got == want and discarded == 0, what + " (%d)" % len(want),
         "first difference at %s: got %r want %r; %d events, %d expected, %d discarded"
         % (first, got[first] if first is not None else None,
            want[first] if first is not None else None, len(got), len(want), discarded))

t.done()
