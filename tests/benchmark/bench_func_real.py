# SPDX-License-Identifier: GPL-2.0-only
"""Function tracing of a real program (bench.py --only=func-real): Brotli's
command-line tool, from Debian's source package of brotli 1.0.9 (fetched
now from deb.debian.org and checked against the SHA-256 of its .dsc, never
kept in the project), built here three times with the same gcc -O2: plain
(the baseline), with -finstrument-functions linked with libust-func (run
under usttrace -m 'ust_func:*'), and with -finstrument-functions on glibc's
empty hooks (run under uftrace record --no-libcall, whose libmcount
provides the hooks). Each run compresses the same 570 kB (the tool's
encoder and decoder sources) at quality 5; the three run in turn, --runs
times. The table: calls recorded (the totals, and each function
ust-summary lists against uftrace report's count of it), ns per call above
the plain build (median of the runs; whole command, so each tracer's
start-up and flush are in; usttrace and ustd as their binaries, as
installed, not libtool's wrapper scripts), bytes per call on disk, events discarded."""

import hashlib
import io
import os
import re
import shutil
import statistics
import subprocess
import tarfile
import tempfile
import time
import urllib.request

from bench_util import usttrace_binary

URL = "http://deb.debian.org/debian/pool/main/b/brotli/brotli_1.0.9.orig.tar.gz"
SHA256 = "f9e8d81d0405ba66d181529af42a3354f838c939095ff99930da6aa9cdf6fe46"
TOP = "brotli-1.0.9"
QUALITY = "5"
UST, UFTRACE = "UST libust-func (usttrace -m 'ust_func:*')", "uftrace 0.13 record --no-libcall"


def _fetch(work):
    """The unpacked source, or None and why."""
    try:
        with urllib.request.urlopen(URL, timeout=60) as r:
            data = r.read()
    except OSError as e:
        return None, "cannot fetch %s (%s)" % (URL, e)
    if hashlib.sha256(data).hexdigest() != SHA256:
        return None, "%s does not have the SHA-256 of Debian's brotli_1.0.9-2.dsc" % URL
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(work)    # its SHA-256 is known: no member escapes work
    return os.path.join(work, TOP), None


def _build(src, out, flags, libs):
    c = os.path.join(src, "c")
    files = [os.path.join(c, "tools", "brotli.c")]
    for d in ("common", "dec", "enc"):
        files += sorted(os.path.join(c, d, f) for f in os.listdir(os.path.join(c, d))
                        if f.endswith(".c"))
    subprocess.run(["gcc", "-O2", "-I", os.path.join(c, "include")] + flags + files + libs +
                   ["-lm", "-o", out], check=True, stdout=subprocess.DEVNULL)


def _input(src, path):
    """The tool's own encoder and decoder sources, concatenated."""
    with open(path, "wb") as out:
        for d in ("enc", "dec"):
            top = os.path.join(src, "c", d)
            for f in sorted(os.listdir(top)):
                if f.endswith(".c"):
                    with open(os.path.join(top, f), "rb") as i:
                        out.write(i.read())


def _du(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def _ust_counts(builddir, trace, env):
    """({function: calls}, calls, discarded), from ust-summary: its
    function table with every row, and its totals."""
    out = subprocess.run([os.path.join(builddir, "bt2plugin", "ust-summary"), "--rows", "all",
                          trace], env=env, check=True, capture_output=True, text=True).stdout
    # Every entry event: the long and short forms (entry, entry_cont) and
    # those written late by a time filter (entry_at).
    entries = sum(int(n) for n in re.findall(r"^ust_func:entry\w*\s+(\d+)", out, re.M))
    lost = re.search(r"^events\s+\d+ recorded, (\d+) discarded", out, re.M)
    funcs, table = {}, False
    for line in out.splitlines():
        if "function, by total time" in line:
            table = True
        elif not line.strip():
            table = False
        elif table:
            m = re.match(r"(\d+)\s+(?:[\d.]+\s+){5}(.+)$", line)
            if m:
                # Static functions of one name (copies in several files)
                # are rows of their own: summed, as uftrace report does.
                funcs[m.group(2)] = funcs.get(m.group(2), 0) + int(m.group(1))
    return funcs, entries, int(lost.group(1)) if lost else None


def _uftrace_counts(data):
    """({function: calls} of uftrace report, lost records or "some"). Its
    linux:schedule lines are the times the program was scheduled out, not
    calls."""
    res = subprocess.run(["uftrace", "report", "-d", data], check=True, capture_output=True,
                         text=True)
    funcs = {}
    for m in re.finditer(r"^\s*[\d.]+ \S+\s+[\d.]+ \S+\s+(\d+)\s+(\S+)$", res.stdout, re.M):
        if not m.group(2).startswith("linux:"):
            funcs[m.group(2)] = funcs.get(m.group(2), 0) + int(m.group(1))
    lost = [int(n) for n in re.findall(r"LOST (\d+) records", res.stdout + res.stderr)]
    if not lost and re.search(r"records are lost", res.stdout + res.stderr):
        return funcs, "some"
    return funcs, sum(lost)


def measure(builddir, runs, tmp):
    """(rows, notes), or (None, notes) when the program is out of reach."""
    work = tempfile.mkdtemp(prefix="func-real.", dir=tmp)
    notes = []
    try:
        if not shutil.which("uftrace"):
            return None, ["func-real: skipped: uftrace is not installed."]
        src, why = _fetch(work)
        if not src:
            return None, ["func-real: skipped: " + why + "."]
        libs = os.path.join(builddir, ".libs")
        bins = {k: os.path.join(work, "brotli_" + k) for k in ("plain", "ust", "cyg")}
        _build(src, bins["plain"], [], [])
        _build(src, bins["ust"], ["-finstrument-functions"],
               ["-L" + libs, "-lust-func", "-lust", "-Wl,-rpath," + libs])
        _build(src, bins["cyg"], ["-finstrument-functions"], [])
        data = os.path.join(work, "input")
        _input(src, data)
        env = dict(os.environ, UST_RUNDIR=os.path.join(work, "run"),
                   UST_BT2_PLUGIN_PATH=os.path.join(builddir, "bt2plugin", ".libs"))
        os.mkdir(env["UST_RUNDIR"], 0o700)
        env.pop("UST_TRACE", None)
        usttrace = usttrace_binary(builddir, env)
        args = ["-c", "-q", QUALITY, data]

        def timed(cmd):
            t0 = time.perf_counter()
            subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            return time.perf_counter() - t0

        walls = {"plain": [], UST: [], UFTRACE: []}
        kept = {}
        for i in range(runs):
            walls["plain"].append(timed([bins["plain"]] + args))
            out = os.path.join(work, "ust%d" % i)
            walls[UST].append(timed([usttrace, "-o", out, "-m", "ust_func:*", bins["ust"]] +
                                    args))
            uf = os.path.join(work, "uftrace%d" % i)
            walls[UFTRACE].append(timed(["uftrace", "record", "--no-libcall", "-d", uf,
                                         bins["cyg"]] + args))
            if i:
                shutil.rmtree(out)
                shutil.rmtree(uf)
            else:
                kept = {UST: out, UFTRACE: uf}
        ust_trace = os.path.join(kept[UST], os.listdir(kept[UST])[0])
        ufuncs, ust_calls, ust_lost = _ust_counts(builddir, ust_trace, env)
        ffuncs, uf_lost = _uftrace_counts(kept[UFTRACE])
        uf_calls = sum(ffuncs.values())
        differ = {f: (ufuncs.get(f), ffuncs.get(f)) for f in set(ufuncs) | set(ffuncs)
                  if ufuncs.get(f) != ffuncs.get(f)}
        notes.append("Calls per function (UST: ust-summary --rows all; uftrace: uftrace "
                     "report): %d functions, %s%s; totals %d "
                     "(UST, ust-summary's ust_func:entry events, all forms) and %d (uftrace)." %
                     (len(set(ufuncs) | set(ffuncs)), "all equal" if not differ else
                      "these differ (UST, uftrace): ", "" if not differ else repr(differ),
                      ust_calls, uf_calls))
        rows = []
        for label, calls, disk, lost in ((UST, ust_calls, _du(kept[UST]), ust_lost),
                                         (UFTRACE, uf_calls, _du(kept[UFTRACE]), uf_lost)):
            per = [(w - p) / calls * 1e9 for w, p in zip(walls[label], walls["plain"])]
            rows.append((label, calls, per, disk / calls, lost))
        notes.append("brotli -q %s of %d bytes; plain build %.3f s (median)." %
                     (QUALITY, os.path.getsize(data), statistics.median(walls["plain"])))
        return rows, notes
    finally:
        shutil.rmtree(work, ignore_errors=True)


def table(rows, notes):
    """Markdown: one row per tracer, and the ratios UST / uftrace."""
    out = []
    if rows:
        out += ["| %s, Brotli 1.0.9 (Debian source) | calls recorded | ns per call above "
                "the plain build, median (min–max) | bytes per call on disk | events "
                "discarded |" % "function tracing", "|---|---|---|---|---|"]
        for label, calls, per, bpc, lost in rows:
            out.append("| %s | %d | %.1f (%.1f–%.1f) | %.1f | %s |" %
                       (label, calls, statistics.median(per), min(per), max(per), bpc, lost))
        (_, _, up, ub, _), (_, _, fp, fb, _) = rows
        out.append("| UST ÷ uftrace | | %.3f (target ≤ 0.5) | %.2f (target ≤ 0.5) | |" %
                   (statistics.median(u / f for u, f in zip(up, fp) if f > 0), ub / fb))
    return "\n".join(out + notes)
