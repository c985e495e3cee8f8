"""Function tracing rows of bench.py: cost per instrumented call (entry
and exit) of the same -finstrument-functions loop (bench_func.c) under
libust-func (disabled, and enabled under usttrace), LTTng-UST's
liblttng-ust-cyg-profile.so (LD_PRELOAD, in a session that enables its
events) and uftrace record, each minus the uninstrumented loop; runs
interleaved, medians of per-run differences."""

import glob
import os
import shutil
import statistics
import subprocess
import tempfile

from bench_util import interleaved_rows, usttrace_binary

# The steady state: a run of 500 000 calls wrote 6 MB, all of it on the
# first pass over rings whose pages were still being made.
CALLS = 2000000
# LTTng-UST's channel: large enough to lose nothing in discard mode (a
# discarded event would look cheap). usttrace's function tracing is
# lossless with its default buffers (it waits for ustd), so UST runs as a
# user runs it; the larger buffers only made it pay its first pass over
# 32 MiB rings in every run (manual 7.4).
SUBBUF = ("1M", "32")


def _worker(builddir, variant):
    return os.path.join(builddir, "tests", "benchmark", "bench_func_" + variant)


def _ns(out):
    return float(out.split()[0])


def _cyg_profile():
    for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"):
        hits = glob.glob(os.path.join(d, "liblttng-ust-cyg-profile.so*"))
        if hits:
            return sorted(hits)[0]
    return None


def measure(builddir, runs, tmp, lttng_class):
    """{row name: [ns per call of each run]} and notes on what was not run."""
    work = tempfile.mkdtemp(prefix="func.", dir=tmp)
    env = dict(os.environ, UST_RUNDIR=os.path.join(work, "run"))
    os.mkdir(env["UST_RUNDIR"], 0o700)
    env.pop("UST_TRACE", None)
    usttrace = usttrace_binary(builddir, env)
    cyg = _cyg_profile()
    lt = lttng_class(builddir, tmp) if cyg and shutil.which("lttng-sessiond") else None
    notes = []
    if not lt:
        notes.append("LTTng-UST cyg-profile: not measured (liblttng-ust-cyg-profile.so or "
                     "lttng-sessiond missing).")
    if not shutil.which("uftrace"):
        notes.append("uftrace: not measured (not installed).")
    results = {}

    def run(cmd, e=None):
        return _ns(subprocess.run(cmd, env=e or env, check=True, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True).stdout)

    def ust_on():
        out = os.path.join(work, "ust")
        ns = run([usttrace, "-o", out, "-m", "ust_func:*", _worker(builddir, "ust"),
                  str(CALLS)])
        shutil.rmtree(out, ignore_errors=True)
        return ns

    def lttng_on():
        lt.seq += 1
        name = "func%d" % lt.seq
        lt.lttng("create", name, "--output=" + os.path.join(lt.out, name))
        lt.lttng("enable-channel", "-u", "-s", name, "--discard", "--subbuf-size", SUBBUF[0],
                 "--num-subbuf", SUBBUF[1], "chan")
        lt.lttng("enable-event", "-u", "-s", name, "-c", "chan", "lttng_ust_cyg_profile:*")
        lt.lttng("start", name)
        # The library is preloaded into the worker only, through env after
        # setpriv: preloaded into setpriv (root), LTTng-UST's threads start
        # there, and glibc aborts setpriv when one of them fails its share
        # of the setresgid() to nobody.
        ns = _ns(subprocess.run(lt.prefix + ["env", "LD_PRELOAD=" + cyg,
                                             _worker(builddir, "cyg"), str(CALLS)],
                                env=lt.environ(), check=True, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True).stdout)
        lt.lttng("stop", name)
        lt.lttng("destroy", name)
        shutil.rmtree(os.path.join(lt.out, name), ignore_errors=True)
        return ns

    def uftrace_on():
        out = os.path.join(work, "uftrace.data")
        ns = run(["uftrace", "record", "-d", out, _worker(builddir, "cyg"), str(CALLS)])
        shutil.rmtree(out, ignore_errors=True)
        return ns

    rows = [("plain", lambda: run([_worker(builddir, "plain"), str(CALLS)])),
            ("glibc's empty hooks", lambda: run([_worker(builddir, "cyg"), str(CALLS)])),
            ("UST libust-func, disabled", lambda: run([_worker(builddir, "ust"), str(CALLS)])),
            ("UST libust-func, enabled (usttrace -m 'ust_func:*')", ust_on)]
    if lt:
        rows.append(("LTTng-UST liblttng-ust-cyg-profile, enabled", lttng_on))
    if shutil.which("uftrace"):
        rows.append(("uftrace 0.13 record", uftrace_on))
    try:
        if lt:
            lt.start()
        interleaved_rows(rows, runs, results, notes)
    finally:
        if lt:
            lt.cleanup()
        shutil.rmtree(work, ignore_errors=True)
    return results, notes


def table(results, notes):
    """Markdown: ns per call above the plain loop, and the ratio to UST's."""
    plain = results["plain"]
    ust = results["UST libust-func, enabled (usttrace -m 'ust_func:*')"]
    out = ["| function entry + exit, %d calls | ns per call above the plain loop, "
           "median (min–max) | ÷ UST enabled |" % CALLS, "|---|---|---|"]
    for label, vals in results.items():
        if label == "plain":
            continue
        d = [v - p for v, p in zip(vals, plain)]
        r = statistics.median((v - p) / (u - p) for v, p, u in zip(vals, plain, ust)
                              if u - p > 0) if any(u - p > 0 for u, p in zip(ust, plain)) else 0
        out.append("| %s | %.1f (%.1f–%.1f) | %.2f |" % (label, statistics.median(d), min(d),
                                                         max(d), r))
    out.append("| plain loop (the baseline) | %.2f ns per iteration | – |"
               % statistics.median(plain))
    out += notes
    return "\n".join(out)
