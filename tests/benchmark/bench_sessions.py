"""Session rows of bench.py: what an active ustd session costs a program
that starts. bench_idle (one marker, ustbench:idle) and bench_idle_plain
(the same without -lust) are started one after the other, runs
interleaved, in run directories without a session and under a private
ustd holding one active session whose rule matches nothing or
bench_idle's marker, the latter with buffers per process (the default)
and per user (--buffers-uid, manual 4.6). Medians in ms.

And what a service's children cost (manual 11.1, "Never harm the program"):
tests/apps/forkexec, traced by a session matching its marker, starts
forkexec again (fork(), exec(), that program's main() prints how long
since the fork), against the same without a session; and forks and execs
/bin/true, ustd's CPU time (user and system, /proc/PID/stat) divided by
the children."""

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


def _stamp(prog, env):
    """(ms from before the exec to main(), ms of the program's CPU time,
    user and system, start to exit)."""
    t0 = time.monotonic_ns()
    proc = subprocess.Popen([prog, "stamp"], env=env, stdout=subprocess.PIPE)
    out = proc.stdout.read()
    proc.stdout.close()
    _, status, ru = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, prog)
    return (int(out) - t0) / 1e6, (ru.ru_utime + ru.ru_stime) * 1e3


def _files(root):
    """(trace directories, stream files) under a session's output."""
    dirs = files = 0
    for path, _, names in os.walk(root):
        if "metadata" in names:
            dirs += 1
            files += len([n for n in names if n != "metadata"])
    return dirs, files


def _ustctl(builddir, env, *args):
    subprocess.run([os.path.join(builddir, "ustctl", "ustctl")] + list(args), env=env,
                   check=True, stdout=subprocess.DEVNULL)


def _ustd(builddir, env, work):
    r, w = os.pipe()
    # --realtime: as measured before ustd took SCHED_FIFO only when asked.
    proc = subprocess.Popen([os.path.join(builddir, "ustd", "ustd"), "--realtime", "-o",
                             os.path.join(work, "out"), "--ready-fd", str(w)],
                            env=env, pass_fds=(w,), stderr=subprocess.DEVNULL)
    os.close(w)
    os.read(r, 1)
    os.close(r)
    return proc


def measure(builddir, runs, tmp):
    """{"plain": ms, "none", "nomatch": ms over plain, "threads": n,
    "apply": ms over nomatch, "join": ms from exec to main() over nomatch,
    "cpu": ms of the program's CPU time over nomatch, and the same three
    with buffers per user as "apply_uid", "join_uid", "cpu_uid"; "dirs",
    "files" and "dirs_uid", "files_uid": trace directories and stream files
    the runs left}. Four run directories, runs interleaved: none without
    ustd or session, nomatch, match and match_uid each with a ustd whose one
    active session matches nothing or bench_idle's marker."""
    idle = os.path.join(builddir, "tests/benchmark/bench_idle")
    plain = os.path.join(builddir, "tests/benchmark/bench_idle_plain")
    work = tempfile.mkdtemp(prefix="sessions.", dir=tmp)
    base = {k: v for k, v in os.environ.items()
            if k not in ("UST_TRACE", "UST_AUTOPROBE", "UST_DAEMON_SOCKET")}
    envs, daemons = {}, []
    times = {"plain": [], "none": [], "nomatch": [], "match": [], "match_uid": []}
    stamps = {"nomatch": [], "match": [], "match_uid": []}
    try:
        for kind, pattern in (("none", None), ("nomatch", "nothing:*"),
                              ("match", "ustbench:*"), ("match_uid", "ustbench:*")):
            env = dict(base, UST_RUNDIR=os.path.join(work, kind))
            os.mkdir(env["UST_RUNDIR"], 0o700)
            envs[kind] = env
            if pattern:
                daemons.append(_ustd(builddir, env, os.path.join(work, kind)))
                _ustctl(builddir, env, "create-session", kind,
                        *(["--buffers-uid"] if kind == "match_uid" else []))
                _ustctl(builddir, env, "enable-marker", "-s", kind, pattern)
                _ustctl(builddir, env, "start-session", kind)
        for _ in range(runs):
            times["plain"].append(_run(plain, base))
            for kind in ("none", "nomatch", "match", "match_uid"):
                times[kind].append(_run(idle, envs[kind]))
            for kind in ("nomatch", "match", "match_uid"):
                stamps[kind].append(_stamp(idle, envs[kind]))
        threads = int(subprocess.run([idle, "threads"], env=envs["nomatch"], check=True,
                                     stdout=subprocess.PIPE, text=True).stdout)
        for kind in ("match", "match_uid"):
            _ustctl(builddir, envs[kind], "destroy-session", kind)
        files = {kind: _files(os.path.join(work, kind, "out")) for kind in ("match", "match_uid")}
    finally:
        for d in daemons:
            d.terminate()
            d.wait()
        shutil.rmtree(work, ignore_errors=True)
    med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
    # The differences of the runs' pairs (each match run beside a nomatch
    # run), their median: the machine's load changes between pairs.
    pairs = list(zip(stamps["match"], stamps["nomatch"]))
    upairs = list(zip(stamps["match_uid"], stamps["nomatch"]))
    return {"plain": med["plain"], "none": med["none"] - med["plain"],
            "nomatch": med["nomatch"] - med["plain"], "threads": threads,
            "apply": med["match"] - med["nomatch"],
            "join": statistics.median(m[0] - n[0] for m, n in pairs),
            "cpu": statistics.median(m[1] - n[1] for m, n in pairs),
            "apply_uid": med["match_uid"] - med["nomatch"],
            "join_uid": statistics.median(m[0] - n[0] for m, n in upairs),
            "cpu_uid": statistics.median(m[1] - n[1] for m, n in upairs),
            "runs": 2 * runs, "dirs": files["match"][0], "files": files["match"][1],
            "dirs_uid": files["match_uid"][0], "files_uid": files["match_uid"][1]}


def _events(worker, env, threads, count):
    """ns per event of the worker's typed events, THREADS threads of COUNT."""
    proc = subprocess.Popen([worker, "ints", str(threads), str(count)], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    out, _ = proc.communicate("go\n", timeout=300)
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, worker)
    return float(out.split()[0])


def measure_events(builddir, runs, tmp, count=2000000):
    """{(buffers, threads): [ns per event of each run]}: bench_ust's typed
    event recorded through a session with buffers per process and one with
    buffers per user, each under its own ustd, runs interleaved."""
    worker = os.path.join(builddir, "tests/benchmark/bench_ust")
    work = tempfile.mkdtemp(prefix="events.", dir=tmp)
    base = {k: v for k, v in os.environ.items()
            if k not in ("UST_TRACE", "UST_AUTOPROBE", "UST_DAEMON_SOCKET")}
    envs, daemons, res = {}, [], {}
    try:
        for kind in ("pid", "uid"):
            env = dict(base, UST_RUNDIR=os.path.join(work, kind))
            os.mkdir(env["UST_RUNDIR"], 0o700)
            envs[kind] = env
            daemons.append(_ustd(builddir, env, os.path.join(work, kind)))
            # Rings of 32 MiB per CPU: nothing discarded, which would look cheap.
            _ustctl(builddir, env, "create-session", "--buffers-" + kind, "--subbuf-size", "1M",
                    "--subbuf-num", "32", kind)
            _ustctl(builddir, env, "enable-marker", "-s", kind, "ustbench:ints")
            _ustctl(builddir, env, "start-session", kind)
        for _ in range(runs):
            for threads in (1, 2):
                for kind in ("pid", "uid"):
                    res.setdefault((kind, threads), []).append(
                        _events(worker, envs[kind], threads, count))
    finally:
        for d in daemons:
            d.terminate()
            d.wait()
        shutil.rmtree(work, ignore_errors=True)
    return res


def events_rows(r):
    """Rows in bench.py's table layout: medians, and the median of the
    per-run ratios."""
    rows = []
    for threads in (1, 2):
        pid, uid = r[("pid", threads)], r[("uid", threads)]
        ratio = statistics.median(u / p for u, p in zip(uid, pid))
        rows.append(("typed event through a session, %d thread%s, ns: per process / per user "
                     "(--buffers-uid), ratio" % (threads, "s" if threads > 1 else ""),
                     "%.1f / %.1f, %.2f" % (statistics.median(pid), statistics.median(uid),
                                            ratio), "–", "–", "per user ≈ per process"))
    return rows


def _cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _fork_to_main(forkexec, env, n):
    """Medians in ms of fork() to the exec'd child's main(), n children."""
    out = subprocess.run([forkexec, "fork", str(n), forkexec, "stamp"], env=env, check=True,
                         stdout=subprocess.PIPE, text=True).stdout.splitlines()
    # Each child's line: microseconds, then its faults before main().
    return statistics.median(int(line.split()[0]) for line in out
                             if line.split() and line.split()[0].isdigit()) / 1e3


def measure_children(builddir, rounds, tmp):
    """{"untraced", "traced": ms fork to main, "cpu": ms of ustd per child}."""
    forkexec = os.path.join(builddir, "tests/apps/forkexec")
    work = tempfile.mkdtemp(prefix="children.", dir=tmp)
    base = {k: v for k, v in os.environ.items()
            if k not in ("UST_TRACE", "UST_AUTOPROBE", "UST_DAEMON_SOCKET")}
    plain = dict(base, UST_RUNDIR=os.path.join(work, "plain"))
    traced = dict(base, UST_RUNDIR=os.path.join(work, "traced"))
    os.mkdir(plain["UST_RUNDIR"], 0o700)
    os.mkdir(traced["UST_RUNDIR"], 0o700)
    daemon = _ustd(builddir, traced, work)
    times = {"untraced": [], "traced": []}
    try:
        _ustctl(builddir, traced, "create-session", "kids")
        _ustctl(builddir, traced, "enable-marker", "-s", "kids", "ust:*")
        _ustctl(builddir, traced, "start-session", "kids")
        for _ in range(rounds):
            times["untraced"].append(_fork_to_main(forkexec, plain, 20))
            times["traced"].append(_fork_to_main(forkexec, traced, 20))
        n = 1000  # the CPU clock ticks every 10 ms: 0.01 ms a child
        cpu0 = _cpu_s(daemon.pid)
        subprocess.run([forkexec, "fork", str(n), "/bin/true"], env=traced, check=True,
                       stdout=subprocess.DEVNULL)
        time.sleep(0.5)
        cpu = (_cpu_s(daemon.pid) - cpu0) / n * 1e3
    finally:
        daemon.terminate()
        daemon.wait()
        shutil.rmtree(work, ignore_errors=True)
    return {"untraced": statistics.median(times["untraced"]),
            "traced": statistics.median(times["traced"]), "cpu": cpu}


def children_rows(r):
    """Rows in bench.py's table layout."""
    return [("fork to main of a child that joins the parent's session, ms over an untraced "
             "child (untraced: %.2f ms)" % r["untraced"], "%.2f" % (r["traced"] - r["untraced"]),
             "–", "–", "< 1 ms"),
            ("ustd CPU per short-lived child of a traced program (fork, exec /bin/true), ms",
             # 1000 children and a clock of 10 ms ticks: 0.01 ms is the resolution.
             "%.2f" % r["cpu"] if r["cpu"] >= 0.01 else "< 0.01", "–", "–", "bounded")]


def rows(r):
    """Rows in bench.py's table layout."""
    return [("a plain program without -lust, start to exit, ms", "%.2f" % r["plain"],
             "–", "–", ""),
            ("start-up of an untraced -lust program, no session, ms over the plain one "
             "(same runs as the rows below)", "%.2f" % r["none"], "–", "–", "< 1 ms"),
            ("start-up of an untraced -lust program with a session active that does not "
             "match it, ms over the plain one (threads)",
             "%.2f (%d)" % (r["nomatch"], r["threads"]), "–", "–", "< 1 ms, 1 thread"),
            ("session apply time for a newly started program (join, buffers, connection "
             "to ustd, one event, flush at exit), ms", "%.2f" % r["apply"], "–", "–", ""),
            ("session join of a newly started program, exec to main(), ms over one the "
             "session does not match", "%.2f" % r["join"], "–", "–", "< 1 ms"),
            ("CPU time of a program that joins a session, start to exit, ms over one "
             "the session does not match", "%.2f" % r["cpu"], "–", "–", "< 1 ms"),
            ("the same three with buffers per user (--buffers-uid): apply, join, CPU, ms",
             "%.2f, %.2f, %.2f" % (r["apply_uid"], r["join_uid"], r["cpu_uid"]), "–", "–",
             "< 1 ms"),
            ("%d short-lived processes of a session: trace directories, stream files, per "
             "process / per user" % r["runs"],
             "%d, %d / %d, %d" % (r["dirs"], r["files"], r["dirs_uid"], r["files_uid"]),
             "–", "–", "per user: 1, channels x CPUs")]
