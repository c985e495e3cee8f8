"""Session rows of bench.py: what an active ustd session costs a program
that starts. bench_idle (one marker, ustbench:idle) and bench_idle_plain
(the same without -lust) are started one after the other, runs
interleaved, under a private ustd holding one active session whose rule
matches bench_idle's marker or matches nothing. Medians in ms."""

import os
import shutil
import statistics
import subprocess
import tempfile
import time


def _run(prog, env, arg=None):
    t0 = time.perf_counter()
    subprocess.run([prog] + ([arg] if arg else []), env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def _ustctl(builddir, env, *args):
    subprocess.run([os.path.join(builddir, "ustctl", "ustctl")] + list(args), env=env,
                   check=True, stdout=subprocess.DEVNULL)


def measure(builddir, runs, tmp):
    """{"plain": ms, "nomatch": ms over plain, "threads": n, "apply": ms}."""
    idle = os.path.join(builddir, "tests/benchmark/bench_idle")
    plain = os.path.join(builddir, "tests/benchmark/bench_idle_plain")
    work = tempfile.mkdtemp(prefix="sessions.", dir=tmp)
    env = {k: v for k, v in os.environ.items()
           if k not in ("UST_TRACE", "UST_AUTOPROBE", "UST_DAEMON_SOCKET")}
    env["UST_RUNDIR"] = os.path.join(work, "run")
    os.mkdir(env["UST_RUNDIR"], 0o700)
    r, w = os.pipe()
    ustd = subprocess.Popen([os.path.join(builddir, "ustd", "ustd"), "-o",
                             os.path.join(work, "out"), "--ready-fd", str(w)],
                            env=env, pass_fds=(w,), stderr=subprocess.DEVNULL)
    os.close(w)
    os.read(r, 1)
    os.close(r)
    times = {"plain": [], "nomatch": [], "match": []}
    try:
        _ustctl(builddir, env, "create-session", "nomatch")
        _ustctl(builddir, env, "enable-marker", "-s", "nomatch", "nothing:*")
        _ustctl(builddir, env, "create-session", "match")
        _ustctl(builddir, env, "enable-marker", "-s", "match", "ustbench:*")
        _ustctl(builddir, env, "start-session", "nomatch")
        for _ in range(runs):
            times["plain"].append(_run(plain, env))
            times["nomatch"].append(_run(idle, env))
        threads = int(subprocess.run([idle, "threads"], env=env, check=True,
                                     stdout=subprocess.PIPE, text=True).stdout)
        _ustctl(builddir, env, "stop-session", "nomatch")
        _ustctl(builddir, env, "start-session", "match")
        for _ in range(runs):
            times["match"].append(_run(idle, env))
    finally:
        ustd.terminate()
        ustd.wait()
        shutil.rmtree(work, ignore_errors=True)
    med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
    return {"plain": med["plain"], "nomatch": med["nomatch"] - med["plain"],
            "threads": threads, "apply": med["match"] - med["nomatch"]}


def rows(r):
    """Rows in bench.py's table layout."""
    return [("a plain program without -lust, start to exit, ms", "%.2f" % r["plain"],
             "–", "–", ""),
            ("start-up of an untraced -lust program with a session active that does not "
             "match it, ms over the plain one (threads)",
             "%.2f (%d)" % (r["nomatch"], r["threads"]), "–", "–", "< 1 ms, 1 thread"),
            ("session apply time for a newly started program (join, buffers, connection "
             "to ustd, one event, flush at exit), ms", "%.2f" % r["apply"], "–", "–", "")]
