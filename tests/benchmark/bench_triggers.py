# SPDX-License-Identifier: GPL-2.0-only
"""Trigger rows of bench.py: what a trigger costs on the event path, and
how long a firing takes to be a snapshot on disk.

Cost: the two-int event recorded at full speed by one thread, with no
trigger, with a trigger on another event (ustbench:string), and with a
trigger on this event whose filter rejects every event (so that nothing
fires: the check itself is measured). The UST worker waits on its
standard input (BENCH_GATE) while `ustctl add-trigger PID` installs the
trigger; LTTng-UST gets `lttng add-trigger --condition event-rule-matches
... --action notify` before its worker starts, beside a session recording
the event. Runs interleaved: UST and LTTng-UST, each variant in turn.

Latency: tests/apps/service records app:error on command in a
flight-recorder trace; from the event's time in the snapshot to ustd's
message that the snapshot is written (ustd -v for a per-PID trigger; the
session's "fired ... snapshotted" line, always said, for a session
trigger over two processes), timestamped when this process reads it.
Both times are CLOCK_MONOTONIC: the programs trace with
UST_CLOCK=monotonic, since the TSC clock's anchor to the wall clock is
taken once per boot and the wall clock drifts from it by milliseconds
over hours (manual 12.9)."""

import os
import queue
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time

# (variant, ustctl add-trigger arguments): none fires in these runs.
VARIANTS = (("none", None),
            ("other", ["--on", "ustbench:string"]),
            ("reject", ["--on", "ustbench:ints", "--filter", "a < 0 && b != -1"]))
LTTNG_VARIANTS = {"other": ["--name=ustbench:string"],
                  "reject": ["--name=ustbench:ints", "--filter=a < 0 && b != -1"]}
FIRINGS = 20


def _wait(pred, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.005)
    return False


def _ustctl(builddir, env, *args):
    res = subprocess.run([os.path.join(builddir, "ustctl", "ustctl")] + [str(a) for a in args],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if res.returncode:
        raise RuntimeError("ustctl %s: %s" % (" ".join(map(str, args)), res.stderr.strip()))
    return res.stdout


def _ust_fire(ust, builddir, variant, events):
    """One run of the UST worker with the trigger of variant installed."""
    env = dict(ust.env(True), BENCH_GATE="1")
    proc = subprocess.Popen([ust.worker, "ints", "1", str(events)], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        if proc.stdout.readline().strip() != "ready":
            raise RuntimeError("bench_ust did not start")
        args = dict(VARIANTS)[variant]
        if args:
            if not _wait(lambda: os.path.exists(os.path.join(ust.run, "apps", str(proc.pid)))):
                raise RuntimeError("bench_ust %d has no control socket" % proc.pid)
            _ustctl(builddir, env, "add-trigger", proc.pid, *args, "--snapshot")
        out, _ = proc.communicate("go\n", timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return float(out.split()[0])


def _lttng_fire(lt, variant, events):
    """One run of the LTTng-UST worker with the trigger of variant."""
    name = "bench-trigger-" + variant
    if variant != "none":
        lt.lttng("add-trigger", "--name=" + name, "--condition=event-rule-matches",
                 "--type=user", *LTTNG_VARIANTS[variant], "--action=notify")
    try:
        return lt.fire("ints", 1, events)[0]
    finally:
        if variant != "none":
            lt.lttng("remove-trigger", name)


def measure_cost(ust, lt, builddir, runs, events, log):
    """{(tracer name, variant): [ns/event per run]}, the runs of both
    tracers and all variants interleaved."""
    tracers = [ust] + ([lt] if lt else [])
    out = {(t.name, v): [] for t in tracers for v, _ in VARIANTS}
    for t in tracers:
        t.start()
    try:
        tokens = [t.session("ints") for t in tracers]
        for _ in range(runs):
            for t in tracers:
                for v, _ in VARIANTS:
                    ns = (_ust_fire(t, builddir, v, events) if t is ust
                          else _lttng_fire(t, v, events))
                    out[(t.name, v)].append(ns)
        for t, token in zip(tracers, tokens):
            t.end_session(token)
            t.trace_stats()
    finally:
        for t in tracers:
            t.stop()
    for (name, v), ns in out.items():
        log("%s trigger %s: %s ns/event" % (name, v, " ".join("%.1f" % x for x in ns)))
    return out


class _Ustd:
    """ustd -v with its own run and output directories; each line it says
    is kept with the CLOCK_MONOTONIC nanosecond it was read at. Programs
    started with its env trace with CLOCK_MONOTONIC too."""

    def __init__(self, builddir, work):
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith("UST_")}
        self.env["UST_RUNDIR"] = os.path.join(work, "run")
        self.env["UST_CLOCK"] = "monotonic"
        os.mkdir(self.env["UST_RUNDIR"], 0o700)
        self.out = os.path.join(work, "out")
        r, w = os.pipe()
        # --realtime: the latency as measured before ustd took SCHED_FIFO
        # only when asked (where it may: root, CAP_SYS_NICE).
        self.proc = subprocess.Popen([os.path.join(builddir, "ustd", "ustd"), "-v",
                                      "--realtime", "-o", self.out, "--ready-fd", str(w)],
                                     env=self.env,
                                     pass_fds=(w,), stderr=subprocess.PIPE, text=True)
        os.close(w)
        os.read(r, 1)
        os.close(r)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stderr:
            self.lines.put((time.monotonic_ns(), line))

    def wait_line(self, pattern, timeout=15.0):
        """(when, match) of the next line matching pattern."""
        rx = re.compile(pattern)
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise RuntimeError("ustd did not say /%s/" % pattern)
            try:
                when, line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            m = rx.search(line)
            if m:
                return when, m

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=60)


def _service(builddir, env):
    proc = subprocess.Popen([os.path.join(builddir, "tests", "apps", "service"), "1000"],
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    if proc.stdout.readline().strip() != "ready":
        raise RuntimeError("tests/apps/service did not start")
    if not _wait(lambda: os.path.exists(os.path.join(env["UST_RUNDIR"], "apps",
                                                     str(proc.pid)))):
        raise RuntimeError("service %d has no control socket" % proc.pid)
    return proc


def _command(proc, text):
    proc.stdin.write(text + "\n")
    proc.stdin.flush()
    if proc.stdout.readline().strip() != "done":
        raise RuntimeError("service %d did not answer %r" % (proc.pid, text))


def _quit(proc):
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    proc.communicate(timeout=30)


def _event_time(path, seq):
    """The CLOCK_MONOTONIC time of app:error number seq in the trace(s)
    under path: its clock's value, before the offset to the wall clock."""
    import bt2

    for msg in bt2.TraceCollectionMessageIterator(path):
        if (type(msg) is bt2._EventMessageConst and msg.event.name == "app:error" and
                int(msg.event.payload_field["seq"]) == seq):
            snap = msg.default_clock_snapshot
            if snap.clock_class.frequency != 1000000000:
                raise RuntimeError("%s: not UST_CLOCK=monotonic's clock" % path)
            return snap.value
    raise RuntimeError("app:error %d is not in the snapshot %s" % (seq, path))


def _firings(ustd, procs, done_pattern):
    """Latencies in ms of FIRINGS errors, round robin over procs."""
    lat = []
    for k in range(1, FIRINGS + 1):
        _command(procs[k % len(procs)], "error %d 503" % k)
        when, m = ustd.wait_line(done_pattern)
        lat.append((when - _event_time(m.group(1), k)) / 1e6)
        # Apart, as failures are: each firing finds ustd idle.
        time.sleep(0.05)
    return lat


def fs_type(path):
    """The type of the file system path is on, from /proc/self/mounts."""
    best, kind = "", "?"
    path = os.path.realpath(path)
    for line in open("/proc/self/mounts"):
        mnt, fstype = line.split()[1:3]
        if (path == mnt or path.startswith(mnt.rstrip("/") + "/")) and len(mnt) >= len(best):
            best, kind = mnt, fstype
    return kind


def measure_latency(builddir, tmp, log):
    """[(where, {"pid": [ms], "session": [ms]})]: event to snapshot
    written, with the snapshots in tmp and, when tmp is not a tmpfs, in
    /dev/shm: the file system's part apart from ustd's."""
    places = [tmp]
    if fs_type(tmp) != "tmpfs" and os.path.isdir("/dev/shm"):
        places.append("/dev/shm")
    out = []
    for root in places:
        where = "in %s (%s)" % ("/dev/shm" if root == "/dev/shm" else "the bench's TMPDIR",
                                fs_type(root))
        r = _latency_in(builddir, root)
        for kind, ms in r.items():
            log("trigger latency, %s, %s: %s ms" % (kind, where, " ".join("%.1f" % x for x in ms)))
        out.append((where, r))
    return out


def _latency_in(builddir, root):
    work = tempfile.mkdtemp(prefix="ust-bench-triggers.", dir=root)
    ustd, procs = _Ustd(builddir, work), []
    r = {}
    try:
        env = dict(ustd.env, UST_TRACE="1", UST_OVERWRITE="1", UST_AUTOPROBE="1",
                   UST_SUBBUF_SIZE="16384", UST_SUBBUF_NUM="4")
        procs.append(_service(builddir, env))
        _ustctl(builddir, ustd.env, "add-trigger", procs[0].pid, "--on", "app:error",
                "--snapshot", "-o", os.path.join(work, "pid"))
        r["pid"] = _firings(ustd, procs, r"trigger: snapshot of \S+ in (\S+)$")
        _quit(procs.pop())

        _ustctl(builddir, ustd.env, "create-session", "-o", ustd.out, "--overwrite",
                "--subbuf-size", "16k", "--subbuf-num", "4", "lat")
        _ustctl(builddir, ustd.env, "enable-marker", "-s", "lat", "app:*")
        _ustctl(builddir, ustd.env, "add-trigger", "-s", "lat", "--on", "app:error",
                "--snapshot")
        _ustctl(builddir, ustd.env, "start-session", "lat")
        procs += [_service(builddir, ustd.env) for _ in range(2)]
        # Each joins at its first request, then ustd installs the trigger.
        for p in procs:
            if not _wait(lambda: "--on app:error" in _ustctl(builddir, ustd.env,
                                                             "list-triggers", p.pid)):
                raise RuntimeError("the session's trigger did not reach service %d" % p.pid)
        r["session"] = _firings(ustd, procs, r"session lat, trigger 1 fired in .*: 2 processes "
                                r"snapshotted in (\S+)$")
        while procs:
            _quit(procs.pop())
        _ustctl(builddir, ustd.env, "destroy-session", "lat")
    finally:
        for p in procs:
            p.kill()
            p.wait()
        ustd.stop()
        shutil.rmtree(work, ignore_errors=True)
    return r


def _p90(values):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(0.9 * (len(s) - 1))))]


def rows(cost, latency, paired, spread):
    """Rows in bench.py's table layout: paired(u, l) is the median of the
    per-run ratios, spread(values) the median (min–max). A trigger's row
    gives it over no trigger as the medians of the per-run ratios and
    differences."""
    out = []
    names = {"none": "no trigger (the runs of the two rows below)",
             "other": "a trigger on another event (ustbench:string)",
             "reject": "a trigger on this event whose filter 'a < 0 && b != -1' rejects it"}
    targets = {"none": "", "other": "1.00× no trigger", "reject": ""}
    for v, _ in VARIANTS if cost else ():
        u = cost[("UST", v)]
        l = cost.get(("LTTng-UST", v))

        def cell(ns, name):
            if v == "none":
                return spread(ns)
            base = cost[(name, "none")]
            return "%s; %.2f× no trigger, %+.1f ns" % (
                spread(ns), paired(ns, base), statistics.median(a - b for a, b in zip(ns, base)))
        out.append(("typed event, two ints, 1 thread, %s, ns/event" % names[v],
                    cell(u, "UST"), cell(l, "LTTng-UST") if l else "–",
                    "%.2f" % paired(u, l) if l else "–", targets[v]))
    for where, lat in latency or ():
        for kind, label in (("pid", "a per-PID trigger (ustctl add-trigger PID)"),
                            ("session", "a session trigger over 2 processes "
                                        "(ustctl add-trigger -s)")):
            ms = lat[kind]
            out.append(("event to snapshot written %s, %s, ms p50 / p90 of %d firings"
                        % (where, label, len(ms)),
                        "%.1f / %.1f" % (statistics.median(ms), _p90(ms)), "–", "–", ""))
    return out
