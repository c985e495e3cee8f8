"""The "machine" section of bench.py: what draining a trace costs the whole
machine, counted the same way for both tracers.

The consumer row of the events section counts the consumer daemon's own
threads only. ustd writes back and drops its pages itself (its writeback
thread's sync_file_range() and fadvise()), so that work is in its
figure; lttng-consumerd leaves it to the kernel's flusher threads, which
that row does not see. Here each run counts, from the writer's start to
the moment its trace is on disk:
- the consumer daemon's threads and every kernel thread (the flushers,
  kswapd, ksoftirqd...: the children of kthreadd), from
  /proc/PID/task/TID/schedstat (nanoseconds);
- then `sync -f` on the output directory, whose writeback runs in those
  kernel threads, so that the pages lttng-consumerd left dirty are
  written within the window as ustd's are;
- the writer's own CPU time (wait4()'s rusage: every thread of the
  program, LTTng-UST's listener threads included, and the program's
  start, libust's populating of its buffers included) beside its wall
  time, and the writer thread's own CPU clock over its loop alone
  (bench_loop.h), which neither the start nor other threads move.
Other user processes of a shared machine are not counted; kernel threads
also work for them (their writeback), which the median over runs and the
interleaving of the tracers' runs even out. ustd runs at its ordinary
priority here (no --realtime), as lttng-consumerd does. The 1-minute load
average at the end of each run is printed with the table.

A row also says what 2 threads / 1 thread these costs allow: on a
machine with as many CPUs as writers, the drain takes CPU time from the
writers, and N t / (t + d) bounds the speed-up (t the writer's CPU per
event, d the drain's). The events section's measured speed-up is to be
read against it."""

import os
import statistics
import subprocess

from bench_util import interleaved, parse_worker, parse_worker_cpu, read, settle


def _tasks_ns(pids):
    """{tid: CPU ns} of the tasks of pids and of every kernel thread, and
    the set of the tids of pids."""
    procs, own = set(pids), set()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        stat = read("/proc/%s/stat" % d)
        if stat and (d == "2" or stat.rsplit(")", 1)[1].split()[1] == "2"):
            procs.add(int(d))
    out = {}
    for pid in procs:
        try:
            tids = os.listdir("/proc/%d/task" % pid)
        except OSError:
            continue
        for tid in tids:
            stat = read("/proc/%d/task/%s/schedstat" % (pid, tid))
            if stat:
                out[int(tid)] = int(stat.split()[0])
                if pid in pids:
                    own.add(int(tid))
    return out, own


def _wait_cpu_s(proc):
    """Waits for proc; (its exit status, its CPU seconds, user and system)."""
    _, status, ru = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, ru.ru_utime + ru.ru_stime


def one_run(tracer, events):
    """A run of 1 writer thread of `events` typed events, in a session of
    its own: {"drain": machine ns beyond the writer, "consumer": the
    consumer daemon's ns, "writer": writer CPU ns, "thread": the writer
    thread's CPU ns over its loop, "wall": writer ns per
    event, "events": n, "discarded": n, "load": 1-minute load average}."""
    token = tracer.session("ints")
    pids = tracer.consumer_pids()
    before, _ = _tasks_ns(pids)
    argv, env = tracer.command("ints", 1, events)
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    proc.stdout.close()
    status, writer_s = _wait_cpu_s(proc)
    if status:
        raise RuntimeError("%s's worker exited with %d" % (tracer.name, status))
    ns, n, _ = parse_worker(out)
    thread_ns = parse_worker_cpu(out)
    settle(tracer.out, 0.1)
    sync = subprocess.Popen(["sync", "-f", tracer.out])
    _wait_cpu_s(sync)
    after, own = _tasks_ns(pids)
    delta = {tid: v - before.get(tid, 0) for tid, v in after.items()}
    tracer.end_session(token)
    _, discarded = tracer.trace_stats()
    return {"drain": sum(delta.values()), "consumer": sum(delta[tid] for tid in own), "writer": writer_s * 1e9,
            "thread": thread_ns, "wall": ns, "events": n, "discarded": discarded,
            "load": os.getloadavg()[0]}


def measure(tracers, runs, events, log):
    """runs of one_run() per tracer, interleaved; a list per tracer. ustd
    runs at its ordinary priority, as lttng-consumerd does."""
    for t in tracers:
        t.realtime = False
        t.start()
    try:
        res = interleaved(tracers, runs, lambda t: one_run(t, events))
    finally:
        for t in tracers:
            t.stop()
    for t, rs in zip(tracers, res):
        for r in rs:
            log("%s machine: drain %.2f ms/M (consumer %.2f), writer %.1f ns/event CPU "
                "(thread %.1f), %.1f wall, %d discarded, load %.2f"
                % (t.name, r["drain"] / r["events"], r["consumer"] / r["events"],
                   r["writer"] / r["events"], r["thread"] / r["events"], r["wall"],
                   r["discarded"], r["load"]))
    return res


def measure_paths(ust, ust_cache, lt, runs, events, log):
    """measure() of ustd as it writes by default (straight from the rings,
    O_DIRECT through io_uring, where the output directory's file system
    allows), of a second ustd told --page-cache, and of LTTng-UST (None:
    not installed), interleaved in one run; [direct, page cache,
    LTTng-UST] runs. ust_cache is cleaned up here."""
    ust_cache.name = "UST --page-cache"
    ust_cache.ustd_args = ["--page-cache"]
    try:
        res = measure([ust, ust_cache] + ([lt] if lt else []), runs, events, log)
        direct = [l for l in ust.stats_lines() if "written with O_DIRECT" in l]
        log("UST: %d of its traces written with O_DIRECT through io_uring" % len(direct))
        lagged = [l for l in direct if "the device lagged" in l]
        if lagged:
            log("UST: the device lagged in %d of them: %s" % (len(lagged), lagged[-1]))
    finally:
        ust_cache.cleanup()
    return res[0], res[1], (res[2] if lt else None)


def _scaling_bound(r):
    """2 threads / 1 thread that this run's costs allow: with 1 writer the
    drain runs beside it; with 2, the writers' 2t and the drain's 2d per
    pair of events share the machine's CPUs (N t / (t + d) at most, and 2).
    A faster writer (smaller t) makes the same drain cost more of it."""
    t, d = r["writer"] / r["events"], r["drain"] / r["events"]
    return min(2.0, (os.cpu_count() or 1) * t / (t + d))


def _med(rs, f):
    return statistics.median(f(r) for r in rs)


def _ratio(us, lt, f):
    return "%.2f" % statistics.median(f(u) / f(l) for u, l in zip(us, lt) if f(l) > 0)


def paths_table(direct, page_cache):
    """ustd's two ways of writing, from the same run: medians, and the
    ratio as the median of the runs' ratios."""
    rows = (
        ("drain, machine-wide beyond the writer, CPU ms per million events",
         lambda r: r["drain"] / r["events"], "%.2f"),
        ("of it in ustd's own threads, CPU ms per million events",
         lambda r: r["consumer"] / r["events"], "%.2f"),
        ("writer, CPU ns per event", lambda r: r["writer"] / r["events"], "%.1f"),
        ("writer thread, CPU ns per event (its own clock, over its loop)",
         lambda r: r["thread"] / r["events"], "%.1f"),
        ("writer CPU plus machine-wide drain, ns per event",
         lambda r: (r["writer"] + r["drain"]) / r["events"], "%.1f"),
        ("writer thread's CPU plus machine-wide drain, ns per event",
         lambda r: (r["thread"] + r["drain"]) / r["events"], "%.1f"),
        ("2 threads / 1 thread these costs allow on %d CPUs" % (os.cpu_count() or 1),
         _scaling_bound, "%.2f×"),
    )
    out = ["| measure | direct (default: O_DIRECT, io_uring) | --page-cache | direct/page cache |",
           "|---|---|---|---|"]
    for label, f, fmt in rows:
        out.append("| %s | %s | %s | %s |" % (label, fmt % _med(direct, f),
                                              fmt % _med(page_cache, f),
                                              _ratio(direct, page_cache, f)))
    out.append("| events discarded in those runs (all runs) | %d | %d | – |" % (
        sum(r["discarded"] for r in direct), sum(r["discarded"] for r in page_cache)))
    out.append("")
    out.append("1-minute load average at the end of each run: direct %s; --page-cache %s" % (
        " ".join("%.2f" % r["load"] for r in direct),
        " ".join("%.2f" % r["load"] for r in page_cache)))
    return "\n".join(out)


def table(us, lt):
    """The section's table: medians, and ratios as medians of the runs'
    ratios (run i of UST beside run i of LTTng-UST)."""
    rows = (
        ("drain, machine-wide beyond the writer (consumer daemon, kernel threads, "
         "writeback by sync -f), CPU ms per million events",
         lambda r: r["drain"] / r["events"], "%.2f", "≤ 0.5× LTTng-UST"),
        ("of it in the consumer daemon's own threads, CPU ms per million events",
         lambda r: r["consumer"] / r["events"], "%.2f", ""),
        ("writer, CPU ns per event (process CPU clock, 1 thread)",
         lambda r: r["writer"] / r["events"], "%.1f", ""),
        ("writer thread, CPU ns per event (its own thread CPU clock, over its loop only)",
         lambda r: r["thread"] / r["events"], "%.1f", ""),
        ("writer, wall ns per event (same runs)", lambda r: r["wall"], "%.1f", ""),
        ("writer CPU plus machine-wide drain, ns per event",
         lambda r: (r["writer"] + r["drain"]) / r["events"], "%.1f", "≤ 0.3× LTTng-UST"),
        ("writer thread's CPU plus machine-wide drain, ns per event",
         lambda r: (r["thread"] + r["drain"]) / r["events"], "%.1f", "≤ 0.3× LTTng-UST"),
        ("2 threads / 1 thread these costs allow on %d CPUs: N t / (t + d), at most 2"
         % (os.cpu_count() or 1), _scaling_bound, "%.2f×", "≥ 1.8× (events section)"),
        ("events discarded in those runs (all runs)", None, "%d", "0"),
    )
    out = ["| measure | UST | LTTng-UST | UST/LTTng-UST | target |", "|---|---|---|---|---|"]
    for label, f, fmt, target in rows:
        if f is None:
            u = fmt % sum(r["discarded"] for r in us)
            l = fmt % sum(r["discarded"] for r in lt) if lt else "–"
            out.append("| %s | %s | %s | – | %s |" % (label, u, l, target))
            continue
        out.append("| %s | %s | %s | %s | %s |" % (
            label, fmt % _med(us, f), fmt % _med(lt, f) if lt else "–",
            _ratio(us, lt, f) if lt else "–", target))
    out.append("")
    out.append("1-minute load average at the end of each run: UST %s; LTTng-UST %s" % (
        " ".join("%.2f" % r["load"] for r in us),
        " ".join("%.2f" % r["load"] for r in lt) if lt else "–"))
    return "\n".join(out)
