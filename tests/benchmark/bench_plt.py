"""Library-call rows of bench.py (section plt): cost per call through the
PLT of the same loop (bench_plt.c, abs() of the C library) under
libust-plt, the dynamic linker's audit library (alone, without a
recorder: the dynamic linker's PLT hooks; and under usttrace --plt, with
and without -A and -R), uftrace record --force (its own PLT hooks) and
ltrace (breakpoints, on fewer calls), each minus the plain loop; runs
interleaved, medians of per-run differences."""

import os
import shutil
import statistics
import subprocess
import tempfile

from bench_util import interleaved_rows

CALLS = 2000000
LTRACE_CALLS = 20000       # ltrace takes about 0.1 ms a call
SUBBUF = ("1M", "32")      # no loss: a discarded event would look cheap


def _ns(out):
    return float(out.split()[0])


def measure(builddir, runs, tmp):
    """{row name: [ns per call of each run]} and notes on what was not run."""
    work = tempfile.mkdtemp(prefix="plt.", dir=tmp)
    env = dict(os.environ, UST_USTD=os.path.join(builddir, "ustd", "ustd"),
               UST_RUNDIR=os.path.join(work, "run"))
    os.mkdir(env["UST_RUNDIR"], 0o700)
    env.pop("UST_TRACE", None)
    usttrace = os.path.join(builddir, "usttrace", "usttrace")
    worker = os.path.join(builddir, "tests", "benchmark", "bench_plt")
    audit = os.path.join(builddir, ".libs", "libust-plt.so")
    notes, results = [], {}
    if not os.path.exists(audit):
        return results, ["Library calls: not measured (libust-plt is built on x86-64 only)."]

    def run(cmd, e=None, calls=CALLS):
        return _ns(subprocess.run(cmd + [str(calls)], env=e or env, check=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True).stdout)

    def ust(extra):
        def fire():
            out = os.path.join(work, "ust")
            ns = run([usttrace, "-o", out, "--plt", "--subbuf-size", SUBBUF[0],
                      "--subbuf-num", SUBBUF[1]] + extra + [worker])
            shutil.rmtree(out, ignore_errors=True)
            return ns
        return fire

    def uftrace_on():
        out = os.path.join(work, "uftrace.data")
        ns = run(["uftrace", "record", "--force", "-d", out, worker])
        shutil.rmtree(out, ignore_errors=True)
        return ns

    rows = [("plain", lambda: run([worker])),
            ("LD_AUDIT=libust-plt.so alone (the PLT hooks, no recorder)",
             lambda: run([worker], dict(env, LD_AUDIT=audit))),
            ("UST usttrace --plt", ust([])),
            ("UST usttrace --plt -A abs@1 -R abs", ust(["-A", "abs@1", "-R", "abs"]))]
    if shutil.which("uftrace"):
        rows.append(("uftrace record --force", uftrace_on))
    else:
        notes.append("uftrace: not measured (not installed).")
    if shutil.which("ltrace"):
        rows.append(("ltrace -e abs (%d calls)" % LTRACE_CALLS,
                     lambda: run(["ltrace", "-o", os.devnull, "-e", "abs", worker],
                                 calls=LTRACE_CALLS)))
    else:
        notes.append("ltrace: not measured (not installed).")
    try:
        interleaved_rows(rows, runs, results, notes)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return results, notes


def table(results, notes):
    """Markdown: ns per call above the plain loop."""
    if "plain" not in results:
        return "\n".join(notes)
    plain = results["plain"]
    out = ["| library call through the PLT, %d calls | ns per call above the plain loop, "
           "median (min–max) |" % CALLS, "|---|---|"]
    for label, vals in results.items():
        if label == "plain":
            continue
        d = [v - p for v, p in zip(vals, plain)]
        out.append("| %s | %.1f (%.1f–%.1f) |" % (label, statistics.median(d), min(d), max(d)))
    out.append("| plain loop (the baseline) | %.2f ns per call |" % statistics.median(plain))
    out += notes
    return "\n".join(out)
