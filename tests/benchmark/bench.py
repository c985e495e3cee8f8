# SPDX-License-Identifier: GPL-2.0-only
"""UST against LTTng-UST, in one run, on the same events: `make bench`.

Runs the workers (bench_ust, bench_lttng: the same loop, bench_loop.h),
one run of each in turn so that both see the same moments of a shared
machine, under daemons it starts itself in private mktemp directories (ustd;
lttng-sessiond with its own LTTNG_HOME, as an unprivileged user when run as
root so that nothing touches /var/run/lttng), stops them by PID, and prints
a Markdown table: ns/event (median of the runs, min-max), disabled cost,
bytes per event on disk, events discarded at full speed with default
buffers, consumer CPU time per million events, start-up footprint, and the
ratio UST/LTTng-UST for each.
"""
import argparse
import ctypes
import os
import platform
import pwd
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import bench_func
import bench_func_real
import bench_scaling
import bench_thread_buffers
import bench_plt
import bench_machine
import bench_sessions
import bench_triggers
from bench_util import interleaved, parse_worker, read, settle, stream_stats

KINDS = ("ints", "string", "mark")


def log(msg):
    print("bench: " + msg, file=sys.stderr, flush=True)


def machine():
    """The CPU by vendor, model name and family/model numbers (a KVM guest
    may show a bare "AMD EPYC"), the kernel, the clock source and TSC."""
    info = read("/proc/cpuinfo")
    cpu, flags = {}, []
    for line in info.splitlines():
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key == "flags" and not flags:
            flags = value.split()
        elif key in ("vendor_id", "model name", "cpu family", "model") and key not in cpu:
            cpu[key] = value
    tsc = [f for f in ("tsc", "constant_tsc", "nonstop_tsc", "tsc_known_freq",
                       "rdtscp") if f in flags]
    cs = "/sys/devices/system/clocksource/clocksource0/"
    return ("%s %s (family %s, model %s), %d CPUs, Linux %s; clocksource %s "
            "(available: %s); TSC flags: %s"
            % (cpu.get("vendor_id", "?"), cpu.get("model name", "?"),
               cpu.get("cpu family", "?"), cpu.get("model", "?"),
               os.cpu_count(), platform.release(),
               read(cs + "current_clocksource").strip() or "?",
               read(cs + "available_clocksource").strip() or "?",
               " ".join(tsc) or "none"))


def consumer_counters(pids):
    """What the consumer processes did so far, summed over their threads:
    CPU (schedstat, nanoseconds, unlike the clock ticks of stat), the part
    of it in the kernel (stat's ticks), wake-ups (voluntary context
    switches), read- and write-class system calls and bytes sent to
    storage (/proc/PID/io). A process that is gone counts 0."""
    c = {"cpu": 0.0, "user": 0, "system": 0, "wakeups": 0, "syscalls": 0, "written": 0}
    for pid in pids:
        try:
            tasks = os.listdir("/proc/%d/task" % pid)
        except OSError:
            continue
        for tid in tasks:
            base = "/proc/%d/task/%s/" % (pid, tid)
            stat = read(base + "schedstat")
            if stat:
                c["cpu"] += int(stat.split()[0]) / 1e9
            for line in read(base + "status").splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    c["wakeups"] += int(line.split()[1])
        fields = read("/proc/%d/stat" % pid).rsplit(")", 1)[-1].split()
        if len(fields) > 13:
            c["user"] += int(fields[11])
            c["system"] += int(fields[12])
        io = dict(line.split(": ") for line in read("/proc/%d/io" % pid).splitlines())
        c["syscalls"] += int(io.get("syscr", 0)) + int(io.get("syscw", 0))
        # What the process sent to storage, its writes from the page cache
        # (counted as they dirty it) and its direct ones (io_uring's
        # workers are its threads) alike: write() bytes (wchar) would
        # miss the direct ones.
        c["written"] += int(io.get("write_bytes", 0))
    return c


def counters_per_million(before, after, events):
    """The consumer's work per million events between two readings."""
    d = {k: after[k] - before[k] for k in before}
    per = 1e6 / max(events, 1)
    ticks = d["user"] + d["system"]
    return {"cpu": d["cpu"] * 1e3 * per, "kernel": 100.0 * d["system"] / ticks if ticks else 0.0,
            "wakeups": d["wakeups"] * per, "syscalls": d["syscalls"] * per,
            "written": d["written"] / 1e6 * per}


def children_named(ppid, prefix):
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        stat = read("/proc/%s/stat" % d)
        if not stat:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == ppid and comm.startswith(prefix):
            out.append(int(d))
    return out


class Ust:
    name = "UST"

    def __init__(self, builddir, tmp):
        self.worker = os.path.join(builddir, "tests/benchmark/bench_ust")
        self.ustd = os.path.join(builddir, "ustd/ustd")
        self.dir = tempfile.mkdtemp(prefix="ust.", dir=tmp)
        self.run = os.path.join(self.dir, "run")
        self.out = os.path.join(self.dir, "out")
        os.mkdir(self.run, 0o700)
        os.mkdir(self.out)
        self.sock = os.path.join(self.run, "ustd")
        self.proc = None
        self.autoprobe = None
        self.channels = None
        self.libustcomm = os.path.join(builddir, ".libs/libustcomm.so")
        self.relay = None           # net:// URL: stream to lttng-relayd
        self.realtime = True        # ustd --realtime
        self.ustd_args = []         # more of ustd's options (--page-cache)
        self.extra_env = {}         # more of the program's (UST_THREAD_BUFFERS)
        # ustd --stats: one line per trace, the drain's latencies.
        self.stats_path = os.path.join(self.dir, "ustd-stats")
        self.stats_seen = 0

    def start(self):
        rfd, wfd = os.pipe()
        relay = ["--relay", self.relay, "--live-timer", "0"] if self.relay else []
        # --realtime: the loss and drain rows measure ustd as manual 10.7
        # runs it where it may (SCHED_FIFO, priority 1), which was its
        # default until ustd took a real-time policy only when asked.
        with open(self.stats_path, "a") as err:
            self.proc = subprocess.Popen(
                [self.ustd] + (["--realtime"] if self.realtime else []) +
                ["--stats", "-o", self.out, "-s", self.sock, "--ready-fd", str(wfd)] + relay +
                self.ustd_args, pass_fds=(wfd,), stderr=err, env=dict(os.environ, UST_RUNDIR=self.run))
        os.close(wfd)
        ready = os.read(rfd, 1)
        os.close(rfd)
        if not ready:
            raise RuntimeError("ustd did not start")

    def stop(self):
        if self.proc:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=60)
            self.proc = None

    def consumer_pids(self):
        return [self.proc.pid]

    def drain_stats(self):
        """The drain latencies ustd reported for the traces that ended
        since the last call (after trace_stats(), which waits for them):
        a list of {"full": (p50, p90, p99, max), "wait": ..., "write": ...,
        "fill": ...} in microseconds."""
        lines = read(self.stats_path).splitlines()
        new, self.stats_seen = lines[self.stats_seen:], len(lines)
        out = []
        for line in new:
            if ": drain of " not in line:
                if line.strip():
                    log("ustd said: " + line)
                continue
            r = {}
            for key, label in (("full", "from full to free: "), ("wait", "waiting for the drain: "),
                               ("write", "writing: "), ("fill", "filling a packet: ")):
                f = line.split(label, 1)[1].split(";")[0].split()
                r[key] = tuple(float(f[i]) for i in (1, 3, 5, 7))
            r["subbufs"] = int(line.rsplit("sub-buffers ", 1)[1].split(";")[0])
            out.append(r)
        return out

    def stats_lines(self):
        """Every trace's line of ustd --stats so far."""
        return [l for l in read(self.stats_path).splitlines() if ": drain of " in l]

    def env(self, traced):
        env = dict(os.environ, UST_RUNDIR=self.run, UST_DAEMON_SOCKET=self.sock)
        for var in ("UST_TRACE", "UST_AUTOPROBE", "UST_SUBBUF_SIZE", "UST_SUBBUF_NUM",
                    "UST_CHANNELS"):
            env.pop(var, None)
        if traced:
            env["UST_TRACE"] = "1"
            if self.autoprobe:
                env["UST_AUTOPROBE"] = self.autoprobe
            if self.channels:
                env["UST_CHANNELS"] = self.channels
            env.update(self.extra_env)
        return env

    def session(self, kind, filt=None, ctx=None):
        """A filter and a context are given to the program at start-up as
        usttrace gives them: the filter compiled here, in UST_AUTOPROBE, the
        context for every channel in UST_CHANNELS (libust's startup.c)."""
        if filt:
            self.autoprobe = "+/%s/%s/ustbench:ints" % (filt.encode().hex(),
                                                         compile_filter(self.libustcomm, filt))
        if ctx:
            self.channels = "*:::" + ctx
        return None

    def end_session(self, token):
        self.autoprobe = None
        self.channels = None

    def command(self, kind, threads, count, traced=True, rate=None):
        """(argv, environment) of a run of the worker."""
        return ([self.worker, kind, str(threads), str(count)] + ([str(rate)] if rate else []),
                self.env(traced))

    def fire(self, kind, threads, count, traced=True, rate=None):
        argv, env = self.command(kind, threads, count, traced, rate)
        out = subprocess.run(argv, env=env, check=True, stdout=subprocess.PIPE, text=True).stdout
        return parse_worker(out)

    def trace_stats(self):
        settle(self.out, 0.1)
        stats = stream_stats(self.out)
        for d in os.listdir(self.out):
            shutil.rmtree(os.path.join(self.out, d))
        return stats

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class Lttng:
    name = "LTTng-UST"

    def __init__(self, builddir, tmp):
        self.worker = os.path.join(builddir, "tests/benchmark/bench_lttng")
        self.dir = tempfile.mkdtemp(prefix="lttng.", dir=tmp)
        self.home = os.path.join(self.dir, "home")
        self.out = os.path.join(self.dir, "out")
        os.mkdir(self.home, 0o700)
        os.mkdir(self.out)
        self.prefix = []
        if os.geteuid() == 0:
            # root's sessiond would use the system-wide /var/run/lttng.
            nobody = pwd.getpwnam("nobody")
            os.chmod(self.dir, 0o755)
            for d in (self.home, self.out):
                os.chown(d, nobody.pw_uid, nobody.pw_gid)
            self.prefix = ["setpriv", "--reuid=%d" % nobody.pw_uid,
                           "--regid=%d" % nobody.pw_gid, "--clear-groups", "--"]
        self.proc = None
        self.seq = 0
        self.relay = None           # net:// URL: stream to lttng-relayd

    def environ(self):
        env = dict(os.environ, LTTNG_HOME=self.home, HOME=self.home)
        env.pop("LTTNG_UST_REGISTER_TIMEOUT", None)
        return env

    def lttng(self, *args):
        subprocess.run(self.prefix + ["lttng"] + list(args), env=self.environ(),
                       check=True, stdout=subprocess.DEVNULL)

    def start(self):
        self.proc = subprocess.Popen(self.prefix + ["lttng-sessiond", "--no-kernel"],
                                     env=self.environ(), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        for _ in range(100):
            if subprocess.run(self.prefix + ["lttng", "list"], env=self.environ(),
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0:
                return
            time.sleep(0.1)
        raise RuntimeError("lttng-sessiond did not start")

    def stop(self):
        if self.proc:
            # setpriv execs sessiond: this PID is sessiond's.
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=60)
            self.proc = None

    def consumer_pids(self):
        return children_named(self.proc.pid, "lttng-consumer")

    def session(self, kind, filt=None, ctx=None):
        self.seq += 1
        name = "bench%d" % self.seq
        if self.relay:
            self.lttng("create", name, "--set-url=" + self.relay)
        else:
            self.lttng("create", name, "--output=" + os.path.join(self.out, name))
        self.lttng("enable-channel", "-u", "-s", name, "--discard", "chan")
        if ctx:
            types = [a for c in ctx.split("+") for a in ("-t", LTTNG_CONTEXTS.get(c, c))]
            self.lttng("add-context", "-u", "-s", name, "-c", "chan", *types)
        if filt:
            self.lttng("enable-event", "-u", "-s", name, "-c", "chan", "ustbench:ints",
                       "--filter", filt)
        else:
            self.lttng("enable-event", "-u", "-s", name, "-c", "chan",
                       "ustbench:*,lttng_ust_tracef:*")
        self.lttng("start", name)
        return name

    def end_session(self, name):
        self.lttng("stop", name)
        self.lttng("destroy", name)

    def command(self, kind, threads, count, traced=True, rate=None):
        """(argv, environment) of a run of the worker."""
        env = self.environ()
        if not traced:
            env["LTTNG_UST_REGISTER_TIMEOUT"] = "0"
        return (self.prefix + [self.worker, kind, str(threads), str(count)] +
                ([str(rate)] if rate else []), env)

    def fire(self, kind, threads, count, traced=True, rate=None):
        argv, env = self.command(kind, threads, count, traced, rate)
        out = subprocess.run(argv, env=env, check=True, stdout=subprocess.PIPE, text=True).stdout
        return parse_worker(out)

    def trace_stats(self):
        stats = stream_stats(self.out)
        for d in os.listdir(self.out):
            shutil.rmtree(os.path.join(self.out, d))
        return stats

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class FilterError(ctypes.Structure):
    _fields_ = [("offset", ctypes.c_uint32), ("text", ctypes.c_char * 160)]


def compile_filter(libpath, expr):
    """The bytecode of a filter, in hexadecimal, from libustcomm's compiler."""
    lib = ctypes.CDLL(libpath)
    prog, length, err = ctypes.c_void_p(), ctypes.c_size_t(), FilterError()
    if lib.ust_filter_compile(expr.encode(), None, 0, ctypes.byref(prog), ctypes.byref(length),
                              ctypes.byref(err)) < 0:
        raise RuntimeError("filter %r: %s" % (expr, err.text.decode()))
    return ctypes.string_at(prog, length.value).hex()


# What --only can choose.
SECTIONS = ("events", "filters", "contexts", "disabled", "loss", "sustained", "relay",
            "startup", "func", "func-real", "plt", "sessions", "triggers", "machine",
            "thread-buffers", "scaling")
# The filter rows: one that lets every event through, one that drops every one.
FILTERS = (("pass", "a >= 0 && b != -1"), ("reject", "a < 0 && b != -1"))
# The context rows: what one context adds to an enabled typed event. The
# perf counters are measured where the machine has them.
CONTEXTS = ("vtid", "vpid", "procname", "pthread_id", "ip")
ALL_CONTEXTS = "+".join(CONTEXTS)
PERF_CONTEXTS = ("perf:thread:cycles", "perf:thread:instructions",
                 "perf:thread:cache-misses", "perf:thread:page-faults")
LTTNG_CONTEXTS = {"perf:thread:page-faults": "perf:thread:page-fault"}


def perf_available(libpath, ctx):
    """Whether this machine can count ctx (libustcomm's own check)."""
    lib = ctypes.CDLL(libpath)
    why = ctypes.create_string_buffer(256)
    return lib.ustcomm_perf_check(lib.ustcomm_ctx_parse(ctx.encode()), why, 256) == 0


def measure(tracers, args, contexts):
    """Everything for each tracer, as one dict of results per tracer. Both
    daemons run throughout, and each figure's runs alternate between the
    tracers."""
    rs = [{"contexts": contexts} for _ in tracers]
    for tracer in tracers:
        tracer.start()
    try:
        # 1 and 2 threads alternate too, for the speed-up of each run.
        items = [(t, n) for n in (1, 2) for t in tracers]
        for kind in KINDS if "events" in args.only else ():
            tokens = [t.session(kind) for t in tracers]
            pids = [t.consumer_pids() for t in tracers]
            before = [consumer_counters(p) for p in pids]
            runs = interleaved(items, args.runs,
                               lambda item: item[0].fire(kind, item[1], args.events))
            for (t, n), rn in zip(items, runs):
                rs[tracers.index(t)][(kind, n)] = [ns for ns, _, _ in rn]
                log("%s %s x%d: %s ns/event" % (t.name, kind, n,
                                                " ".join("%.1f" % ns for ns, _, _ in rn)))
            for t, token, r, p, b in zip(tracers, tokens, rs, pids, before):
                t.end_session(token)
                after = consumer_counters(p)
                total, discarded = t.trace_stats()
                events = sum(e for (tt, _), rn in zip(items, runs) if tt is t
                             for _, e, _ in rn)
                if kind == "ints":
                    r["bytes"] = total / max(events - discarded, 1)
                    r["consumer"] = counters_per_million(b, after, events)
                    r["cpu"] = r["consumer"]["cpu"]
        for label, expr in FILTERS if "filters" in args.only else ():
            tokens = [t.session("ints", expr) for t in tracers]
            runs = interleaved(tracers, args.runs, lambda t: t.fire("ints", 1, args.events))
            for t, token, r, rn in zip(tracers, tokens, rs, runs):
                t.end_session(token)
                t.trace_stats()
                r[("filter", label)] = [ns for ns, _, _ in rn]
                log("%s filter %s: %s ns/event" % (t.name, label,
                                                    " ".join("%.1f" % ns for ns, _, _ in rn)))
        # A context costs a few ns, below this machine's noise between
        # runs: each run fires the event without a context and then with
        # each, and the figure is the median of the per-run differences.
        def context_run(tracer):
            token = tracer.session("ints")
            base = tracer.fire("ints", 1, args.events)[0]
            tracer.end_session(token)
            diffs = {}
            for ctx in contexts:
                token = tracer.session("ints", ctx=ctx)
                diffs[ctx] = tracer.fire("ints", 1, args.events)[0] - base
                tracer.end_session(token)
            tracer.trace_stats()
            return diffs
        runs = (interleaved(tracers, args.runs, context_run) if "contexts" in args.only
                else [[] for _ in tracers])
        for t, r, rn in zip(tracers, rs, runs):
            for ctx in contexts if rn else ():
                r[("context", ctx)] = [d[ctx] for d in rn]
                log("%s context %s: %s ns/event more" % (t.name, ctx,
                                                          " ".join("%.1f" % d[ctx] for d in rn)))
        for n in (1, 2) if "loss" in args.only else ():
            for t, r in zip(tracers, rs):
                r[("loss", n)], drain = loss_run(t, n, args.loss_events)
                if drain:
                    r[("drain", n)] = drain
        if "loss" in args.only:
            rs[0].update(loss_ordinary(tracers[0], args))
        for t, r in zip(tracers, rs) if "sustained" in args.only else ():
            r["sustained"] = sustained_rate(t, args)
    finally:
        for tracer in tracers:
            tracer.stop()
    # The loop's own cost, measured the same way, is taken out.
    if "disabled" in args.only:
        runs = interleaved(tracers, args.runs,
                           lambda t: t.fire("ints", 1, args.disabled_events, traced=False)[0] -
                           t.fire("none", 1, args.disabled_events, traced=False)[0])
        for r, rn in zip(rs, runs):
            r["disabled"] = rn
        # The same worker built with -DUST_SDT=1 (sys/sdt.h probes at every
        # site), alternating with the plain one: a typed event and a marker.
        ust = tracers[0]
        sdt_worker = ust.worker + "_sdt"
        if os.path.exists(sdt_worker):
            plain_worker = ust.worker

            def disabled(item):
                worker, kind = item
                ust.worker = worker
                try:
                    return (ust.fire(kind, 1, args.disabled_events, traced=False)[0] -
                            ust.fire("none", 1, args.disabled_events, traced=False)[0])
                finally:
                    ust.worker = plain_worker
            items = [(w, k) for k in ("ints", "mark") for w in (plain_worker, sdt_worker)]
            for item, rn in zip(items, interleaved(items, args.runs, disabled)):
                rs[0][("disabled", "sdt" if item[0] == sdt_worker else "plain", item[1])] = rn
                log("disabled %s, %s: %s ns" % (item[1], os.path.basename(item[0]),
                                               " ".join("%.2f" % x for x in rn)))
    return rs


def loss_run(tracer, threads, events):
    """Events discarded of events at full speed, with threads writer
    threads and default buffers; and, for UST, the drain's latencies."""
    if hasattr(tracer, "drain_stats"):
        tracer.drain_stats()        # the rows before
    token = tracer.session("ints")
    tracer.fire("ints", threads, events // threads)
    tracer.end_session(token)
    loss = tracer.trace_stats()[1]
    drain = tracer.drain_stats()[-1:] if hasattr(tracer, "drain_stats") else []
    log("%s, %d thread%s: %d of %d events discarded%s"
        % (tracer.name, threads, "s" if threads > 1 else "", loss, events,
           "; full to free, us: p50 %.0f p90 %.0f p99 %.0f max %.0f" % drain[0]["full"]
           if drain else ""))
    return loss, drain[0] if drain else None


def ust_env(args):
    """What UST's programs get beside their tracing variables (--ust-subbuf-num)."""
    return {"UST_SUBBUF_NUM": str(args.ust_subbuf_num)} if args.ust_subbuf_num else {}


def ust_with(ust, env):
    ust.extra_env = env
    return ust


def loss_ordinary(ust, args):
    """The loss rows again, args.runs times each, with ustd at the
    priority it takes by default (nice -10, short slices; no --realtime),
    as lttng-consumerd runs, writing straight from the rings (the default)
    and through the page cache (--page-cache); with 2 threads also in rings
    of 16 sub-buffers, the default of machines of more than two CPUs
    (shm_layout.h), since the ring's depth is what bounds these losses
    (manual 10.7): {("loss-ordinary", threads, path, asked): [discarded per
    run]}, asked being the UST_SUBBUF_NUM given (0: none), and
    {("loss-ordinary-wait", ...): [the drain's longest wait per run, us]}
    and {("loss-ordinary-subbufs", ...): the sub-buffers the rings had}.
    ustd runs --realtime and as before after."""
    out, ustd_args, env = {}, ust.ustd_args, ust.extra_env
    ust.stop()
    ust.realtime = False
    try:
        plain = [a for a in ustd_args if a not in ("--direct-io", "--page-cache")]
        for path, more in (("direct", []), ("page cache", ["--page-cache"])):
            ust.ustd_args = plain + more
            ust.start()
            for n, asked in ((1, 0), (2, 0), (2, 16)):
                ust.extra_env = dict(env, UST_SUBBUF_NUM=str(asked)) if asked else env
                runs = [loss_run(ust, n, args.loss_events) for _ in range(args.runs)]
                out[("loss-ordinary", n, path, asked)] = [r[0] for r in runs]
                out[("loss-ordinary-wait", n, path, asked)] = [r[1]["wait"][3] for r in runs
                                                               if r[1]]
                out[("loss-ordinary-subbufs", n, path, asked)] = max(
                    [r[1]["subbufs"] for r in runs if r[1]] or [asked])
            ust.stop()
    finally:
        ust.stop()
        ust.realtime = True
        ust.ustd_args = ustd_args
        ust.extra_env = env
        ust.start()
    return out


def sustained_rate(tracer, args):
    """The highest rate, in events per second, that one thread sustains
    for args.sustain seconds with nothing discarded: full speed when
    nothing is lost there, else a bisection of paced rates below it. The
    figure is the rate achieved by the best run without discards."""
    def probe(rate, paced):
        count = int(rate * args.sustain)
        for _ in range(3):
            token = tracer.session("ints")
            ns, events, _ = tracer.fire("ints", 1, count, rate=rate if paced else None)
            tracer.end_session(token)
            lost = tracer.trace_stats()[1]
            # A writer faster than the estimate: again, long enough.
            if lost or events * ns / 1e9 >= args.sustain:
                break
            count = int(count * args.sustain / (events * ns / 1e9) * 1.1)
        if hasattr(tracer, "drain_stats"):
            tracer.drain_stats()
        achieved = 1e9 / ns
        log("%s sustained: %.2f M events/s %s for %.1f s: %d discarded"
            % (tracer.name, achieved / 1e6, "paced" if paced else "full speed",
               events * ns / 1e9, lost))
        return lost == 0, achieved

    token = tracer.session("ints")
    full = 1e9 / tracer.fire("ints", 1, 1000000)[0]
    tracer.end_session(token)
    tracer.trace_stats()
    ok, achieved = probe(full, False)
    if ok:
        return achieved
    lo, hi, best = 0.0, full, 0.0
    for _ in range(args.sustain_steps):
        mid = (lo + hi) / 2
        ok, achieved = probe(mid, True)
        if ok:
            lo, best = mid, max(best, achieved)
        else:
            hi = mid
    return best


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for sock in socks:
        sock.bind(("127.0.0.1", 0))
    ports = [sock.getsockname()[1] for sock in socks]
    for sock in socks:
        sock.close()
    return ports


class Relayd:
    """A local lttng-relayd on private ports, for the streaming rows."""

    def __init__(self, tmp):
        self.dir = tempfile.mkdtemp(prefix="relayd.", dir=tmp)
        os.chmod(self.dir, 0o755)
        ctrl, data, live = free_ports(3)
        self.out = os.path.join(self.dir, "out")
        self.url = "net://127.0.0.1:%d:%d" % (ctrl, data)
        self.proc = subprocess.Popen(
            ["lttng-relayd", "-C", "tcp://127.0.0.1:%d" % ctrl, "-D", "tcp://127.0.0.1:%d" % data,
             "-L", "tcp://127.0.0.1:%d" % live, "-o", self.out],
            env=dict(os.environ, LTTNG_HOME=self.dir), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        time.sleep(0.5)

    def stats(self):
        """What relayd wrote since the last call, once it stopped growing."""
        settle(self.out, 0.2)
        stats = stream_stats(self.out)
        shutil.rmtree(self.out, ignore_errors=True)
        return stats

    def cleanup(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=60)
        shutil.rmtree(self.dir, ignore_errors=True)


def measure_relay(tracer, args, relayd):
    """Streaming to a local relayd: the consumer's CPU and what is lost."""
    r = {}
    tracer.relay = relayd.url
    tracer.start()
    try:
        token = tracer.session("ints")
        pids = tracer.consumer_pids()
        before = consumer_counters(pids)
        runs = [tracer.fire("ints", 1, args.events) for _ in range(args.runs)]
        tracer.end_session(token)
        after = consumer_counters(pids)
        relayd.stats()
        r["cpu"] = counters_per_million(before, after, sum(e for _, e, _ in runs))["cpu"]
        for n in (1, 2):
            token = tracer.session("ints")
            tracer.fire("ints", n, args.loss_events // n)
            tracer.end_session(token)
            r[("loss", n)] = relayd.stats()[1]
            log("%s relayed, %d thread(s): %.2f consumer ms per million events, %d of %d "
                "discarded" % (tracer.name, n, r["cpu"], r[("loss", n)], args.loss_events))
    finally:
        tracer.stop()
        tracer.relay = None
    return r


def startup(builddir, runs):
    """Median start-up of an untraced program with -lust, minus the same
    program without it, in ms; and the threads it runs with."""
    with_ust = os.path.join(builddir, "tests/benchmark/bench_idle")
    plain = os.path.join(builddir, "tests/benchmark/bench_idle_plain")
    env = dict(os.environ)
    for var in ("UST_TRACE", "UST_AUTOPROBE"):
        env.pop(var, None)
    times = {with_ust: [], plain: []}
    for _ in range(runs):
        for prog in times:
            t0 = time.perf_counter()
            subprocess.run([prog], env=env, check=True)
            times[prog].append(time.perf_counter() - t0)
    threads = int(subprocess.run([with_ust, "threads"], env=env, check=True,
                                 stdout=subprocess.PIPE, text=True).stdout)
    return ((statistics.median(times[with_ust]) - statistics.median(times[plain])) * 1e3,
            threads)


def spread(values):
    return "%.1f (%.1f–%.1f)" % (statistics.median(values), min(values), max(values))


def spread2(values):
    return "%.2f (%.2f–%.2f)" % (statistics.median(values), min(values), max(values))


def ratio(u, l):
    return "%.2f" % (u / l) if l else "–"


def paired(u, l):
    """The median of the per-run ratios u[i] / l[i] of two figures whose
    runs alternated (interleaved())."""
    return statistics.median(a / b for a, b in zip(u, l))


def fmt_pct(p):
    return "%.0f / %.0f / %.0f / %.0f" % p


def table(ust, lt, start_ms, threads, args, sessions_r=None, triggers_r=None,
          children_r=None, events_r=None):
    rows = []
    names = {"ints": "typed event, two ints", "string": "typed event, 16-byte string",
             "mark": "trace_mark, two ints (LTTng-UST: tracef)"}
    targets = {("ints", 1): "≤ 25 ns, ≤ 0.25× LTTng-UST", ("mark", 1): "≤ 40 ns, ≤ 0.2× LTTng-UST"}
    for kind in KINDS if ("ints", 1) in ust else ():
        for threads_n in (1, 2):
            u = ust[(kind, threads_n)]
            l = lt[(kind, threads_n)] if lt else None
            rows.append(("%s, %d thread%s, ns/event" % (names[kind], threads_n,
                                                        "s" if threads_n > 1 else ""),
                         spread(u), spread(l) if l else "–",
                         "%.2f" % paired(u, l) if l else "–",
                         targets.get((kind, threads_n), "")))
        l_sc = "%.2f×" % paired(lt[(kind, 1)], lt[(kind, 2)]) if lt else "–"
        rows.append(("%s, 2 threads / 1 thread, events/s" % names[kind],
                     "%.2f×" % paired(ust[(kind, 1)], ust[(kind, 2)]), l_sc, "–",
                     "≥ 1.8×" if kind == "ints" else ""))
    for label, expr in FILTERS if ("filter", "pass") in ust else ():
        enabled = statistics.median(ust[("ints", 1)]) if ("ints", 1) in ust else None
        u = ust[("filter", label)]
        l = lt[("filter", label)] if lt else None
        target = (("≤ %.1f (enabled + 5 ns)" % (enabled + 5) if enabled else "≤ enabled + 5 ns")
                  if label == "pass" else "≤ 10 ns, ≤ 0.3× LTTng-UST")
        rows.append(("typed event, filter '%s' %s, 1 thread, ns/event"
                     % (expr, "passes" if label == "pass" else "rejects"),
                     spread(u), spread(l) if l else "–",
                     "%.2f" % paired(u, l) if l else "–", target))
    for ctx in CONTEXTS + (ALL_CONTEXTS,) + PERF_CONTEXTS:
        if ("context", CONTEXTS[0]) not in ust:
            break
        target = ("≤ 15 ns" if ctx.startswith("perf:") else
                  "≤ 15 ns (5 × 3)" if ctx == ALL_CONTEXTS else "≤ 3 ns")
        label = ("context %s, added to an enabled typed event, ns"
                 % ("vtid, vpid, procname, pthread_id and ip together" if ctx == ALL_CONTEXTS
                    else ctx))
        if ctx not in ust["contexts"]:
            rows.append((label, "not on this machine", "–", "–", target))
            continue
        u = ust[("context", ctx)]
        l = lt[("context", ctx)] if lt and ("context", ctx) in lt else None
        um, lm = statistics.median(u), statistics.median(l) if l else None
        rows.append((label, spread(u), spread(l) if l else "–",
                     ratio(um, lm) if lm and lm > 0 and um > 0 else "–", target))
    if "disabled" in ust:
        rows.append(("disabled site, ns (minus the empty loop)", spread2(ust["disabled"]),
                     spread2(lt["disabled"]) if lt else "–",
                     ratio(statistics.median(ust["disabled"]), statistics.median(lt["disabled"]))
                     if lt else "–", "≤ 0.5 ns, ≤ LTTng-UST"))
        for kind, what in (("ints", "typed event"), ("mark", "marker")):
            if ("disabled", "sdt", kind) not in ust:
                continue
            p, s = ust[("disabled", "plain", kind)], ust[("disabled", "sdt", kind)]
            rows.append(("disabled %s without / with sys/sdt.h probes (UST_SDT=1), ns; "
                         "last column: with minus without, median of the runs" % what,
                         "%s / %s" % (spread2(p), spread2(s)), "–",
                         "%+.2f ns" % statistics.median(b - a for a, b in zip(p, s)),
                         "0 (unchanged)"))
    if "bytes" in ust:
        rows.append(("bytes per event on disk (two 32-bit ints)", "%.2f" % ust["bytes"],
                     "%.2f" % lt["bytes"] if lt else "–",
                     ratio(ust["bytes"], lt["bytes"]) if lt else "–", "≤ 12"))
    for n in (1, 2) if ("loss", 1) in ust else ():
        rows.append(("events discarded of %dM at full speed, default buffers, %d thread%s "
                     "(ustd --realtime)" % (args.loss_events // 1000000, n, "s" if n > 1 else ""),
                     str(ust[("loss", n)]), str(lt[("loss", n)]) if lt else "–", "–", "0"))
    for key in sorted((k for k in ust if k[0] == "loss-ordinary"),
                      key=lambda k: (k[3], k[2], k[1])):
        _, n, path, asked = key
        runs, waits = ust[key], ust[("loss-ordinary-wait",) + key[1:]]
        subbufs = ust[("loss-ordinary-subbufs",) + key[1:]]
        rows.append(("events discarded of %dM at full speed, %s, %d thread%s, ustd at its "
                     "ordinary priority%s, each of %d runs (runs that discarded); the drain's "
                     "longest wait, µs, median of the runs"
                     % (args.loss_events // 1000000,
                        "rings of %d sub-buffers (UST_SUBBUF_NUM=%d)" % (asked, asked) if asked
                        else "default buffers (%d sub-buffers here)" % subbufs,
                        n, "s" if n > 1 else "",
                        ", --page-cache" if path == "page cache" else "", len(runs)),
                     "%s (%d); %s" % (" ".join(str(x) for x in runs), sum(1 for x in runs if x),
                                      "%.0f" % statistics.median(waits) if waits else "–"),
                     "–", "–", "0"))
    for n in (1, 2) if ("drain", 1) in ust else ():
        d = ust[("drain", n)]
        rows.append(("sub-buffer full to free in those runs, %d thread%s, µs p50 / p90 / p99 / max"
                     % (n, "s" if n > 1 else ""), fmt_pct(d["full"]), "–", "–",
                     "< %.0f µs (the rest of the ring, p50)"
                     % (d["fill"][0] * (d["subbufs"] - 1))))
    if "sustained" in ust:
        su, sl = ust["sustained"], lt.get("sustained") if lt else None
        rows.append(("highest rate sustained %g s with 0 discarded, 1 thread, M events/s"
                     % args.sustain, "%.2f" % (su / 1e6), "%.2f" % (sl / 1e6) if sl else "–",
                     ratio(su, sl) if sl else "–", "≥ 2× LTTng-UST"))
    if "cpu" in ust:
        rows.append(("consumer CPU ms per million events", "%.2f" % ust["cpu"],
                     "%.2f" % lt["cpu"] if lt else "–",
                     ratio(ust["cpu"], lt["cpu"]) if lt else "–", "≤ 0.7× LTTng-UST"))
    if "relay" in ust:
        ur, lr = ust["relay"], lt.get("relay") if lt else None
        rows.append(("streaming to a local lttng-relayd: consumer CPU ms per million events",
                     "%.2f" % ur["cpu"], "%.2f" % lr["cpu"] if lr else "–",
                     ratio(ur["cpu"], lr["cpu"]) if lr else "–", ""))
        for n in (1, 2):
            rows.append(("streaming to a local lttng-relayd: events discarded of %dM at full "
                         "speed, %d thread%s" % (args.loss_events // 1000000, n,
                                                 "s" if n > 1 else ""),
                         str(ur[("loss", n)]), str(lr[("loss", n)]) if lr else "–", "–", "0"))
    if start_ms is not None:
        rows.append(("start-up of an untraced -lust program, ms (threads)",
                     "%.2f (%d)" % (start_ms, threads), "–", "–", "< 1 ms, 1 thread"))
    if sessions_r:
        rows += bench_sessions.rows(sessions_r)
    if children_r:
        rows += bench_sessions.children_rows(children_r)
    if events_r:
        rows += bench_sessions.events_rows(events_r)
    if triggers_r:
        rows += bench_triggers.rows(*triggers_r, paired=paired, spread=spread)
    out = ["| measure | UST | LTTng-UST | UST/LTTng-UST | target |",
           "|---|---|---|---|---|"]
    out += ["| %s |" % " | ".join(r) for r in rows]
    return "\n".join(out)


def drain_table(ust):
    """The drain's latencies in the loss runs (ustd --stats), manual 10.7."""
    out = ["| ustd drain, µs: p50 / p90 / p99 / max | 1 thread | 2 threads |", "|---|---|---|"]
    for key, label in (("full", "sub-buffer full to free"),
                       ("wait", "of it, until the drain starts (wake-up, scheduling)"),
                       ("write", "of it, writing the packet and clearing the sub-buffer"),
                       ("fill", "the writers filling one packet")):
        out.append("| %s | %s | %s |" % (label, fmt_pct(ust[("drain", 1)][key]),
                                         fmt_pct(ust[("drain", 2)][key])))
    return "\n".join(out)


def consumer_table(ust, lt):
    """Where the consumer's CPU goes, per million typed events, 1 thread
    (the run of the consumer CPU row): manual 10.7 reads it."""
    rows = (("CPU, ms", "cpu", "%.2f"), ("of it in the kernel, %", "kernel", "%.0f"),
            ("wake-ups (voluntary context switches)", "wakeups", "%.0f"),
            ("read- and write-class system calls", "syscalls", "%.0f"),
            ("MB sent to storage (write_bytes)", "written", "%.1f"))
    u, l = ust["consumer"], lt["consumer"] if lt else None
    out = ["| consumer, per million events | ustd | lttng-consumerd | ratio |",
           "|---|---|---|---|"]
    for label, key, fmt in rows:
        out.append("| %s | %s | %s | %s |" % (
            label, fmt % u[key], fmt % l[key] if l else "–",
            ratio(u[key], l[key]) if l and key != "kernel" else "–"))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--builddir", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--events", type=int, default=2000000, help="per thread per run")
    ap.add_argument("--loss-events", type=int, default=10000000)
    ap.add_argument("--disabled-events", type=int, default=200000000)
    ap.add_argument("--no-lttng", action="store_true")
    ap.add_argument("--sustain", type=float, default=5.0,
                    help="seconds each run of the sustained-rate row lasts")
    ap.add_argument("--sustain-steps", type=int, default=5,
                    help="bisection steps of the sustained rate when full speed loses events")
    ap.add_argument("--ust-subbuf-num", type=int, default=0,
                    help="sub-buffers of UST's rings (UST_SUBBUF_NUM), to compare with "
                    "the default, which depends on the CPUs (shm_layout.h)")
    ap.add_argument("--ustd-page-cache", action="store_true",
                    help="UST's ustd writes through the page cache (--page-cache) in every "
                    "section; the loss rows at ordinary priority compare both paths anyway")
    ap.add_argument("--only", default=",".join(SECTIONS),
                    help="comma-separated sections to run, of: " + ", ".join(SECTIONS))
    args = ap.parse_args()
    args.only = set(args.only.split(","))
    if not args.only <= set(SECTIONS):
        ap.error("--only: unknown section %s" % ", ".join(sorted(args.only - set(SECTIONS))))

    tmp = tempfile.mkdtemp(prefix="ust-bench.")
    os.chmod(tmp, 0o755)    # the LTTng side may run as another user
    have_lttng = (not args.no_lttng and
                  os.path.exists(os.path.join(args.builddir, "tests/benchmark/bench_lttng")) and
                  shutil.which("lttng") and shutil.which("lttng-sessiond"))
    ust = Ust(args.builddir, tmp)
    ust.extra_env = ust_env(args)
    if args.ustd_page_cache:
        ust.ustd_args = ["--page-cache"]
    lt = Lttng(args.builddir, tmp) if have_lttng else None
    try:
        contexts = CONTEXTS + (ALL_CONTEXTS,) + tuple(c for c in PERF_CONTEXTS
                                                      if perf_available(ust.libustcomm, c))
        results = measure([ust, lt] if lt else [ust], args, contexts)
        ust_r, lt_r = results[0], (results[1] if lt else None)
        if "relay" in args.only and shutil.which("lttng-relayd"):
            relayd = Relayd(tmp)
            try:
                ust_r["relay"] = measure_relay(ust, args, relayd)
                if lt:
                    lt_r["relay"] = measure_relay(lt, args, relayd)
            finally:
                relayd.cleanup()
        start_ms, threads = (startup(args.builddir, 50) if "startup" in args.only
                             else (None, None))
        sessions_r = (bench_sessions.measure(args.builddir, 50, tmp)
                      if "sessions" in args.only else None)
        children_r = (bench_sessions.measure_children(args.builddir, 9, tmp)
                      if "sessions" in args.only else None)
        events_r = (bench_sessions.measure_events(args.builddir, args.runs, tmp)
                    if "sessions" in args.only else None)
        triggers_r = ((bench_triggers.measure_cost(ust, lt, args.builddir, args.runs,
                                                   args.events, log),
                       bench_triggers.measure_latency(args.builddir, tmp, log))
                      if "triggers" in args.only else None)
        func_r = (bench_func.measure(args.builddir, args.runs, tmp, Lttng)
                  if "func" in args.only else None)
        func_real_r = (bench_func_real.measure(args.builddir, args.runs, tmp)
                       if "func-real" in args.only else None)
        plt_r = (bench_plt.measure(args.builddir, args.runs, tmp)
                 if "plt" in args.only else None)
        tb_r = (bench_thread_buffers.measure(ust, lt, args.runs, args.events, log)
                if "thread-buffers" in args.only else None)
        scaling_r = (bench_scaling.measure(ust, args.runs, log)
                     if "scaling" in args.only else None)
        machine_r = (bench_machine.measure_paths(ust, ust_with(Ust(args.builddir, tmp),
                                                               ust_env(args)),
                                                 lt, args.runs, args.loss_events, log)
                     if "machine" in args.only else None)
    finally:
        ust.cleanup()
        if lt:
            lt.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)
    print("Machine: " + machine())
    print("Load average at the end (1, 5, 15 min): %.2f %.2f %.2f" % os.getloadavg())
    print("Runs: %d per figure, %d events per thread per run, alternating between the "
          "tracers and between 1 and 2 threads; ns/event is the median (min–max); with 2 "
          "threads it is wall time / all events. Ratios and speed-ups of timed rows are "
          "the medians of the per-run ratios." % (args.runs, args.events))
    if args.ustd_page_cache:
        print("UST's ustd: --page-cache (writes through the page cache) in every section.")
    if not lt:
        print("LTTng-UST: not measured (bench_lttng, lttng or lttng-sessiond missing).")
    main_table = table(ust_r, lt_r, start_ms, threads, args, sessions_r, triggers_r,
                       children_r, events_r)
    # Sections with tables of their own only (--only=machine): no empty one.
    if main_table.count("\n") > 1:
        print()
        print(main_table)
    if "consumer" in ust_r:
        print()
        print(consumer_table(ust_r, lt_r))
    if ("drain", 2) in ust_r:
        print()
        print(drain_table(ust_r))
    if func_r:
        print()
        print(bench_func.table(*func_r))
    if func_real_r:
        print()
        print(bench_func_real.table(*func_real_r))
    if plt_r:
        print()
        print(bench_plt.table(*plt_r))
    if tb_r:
        print()
        print(bench_thread_buffers.table(*tb_r, args.runs, args.events))
    if scaling_r:
        print()
        print(bench_scaling.table(*scaling_r))
    if machine_r:
        print()
        print(bench_machine.table(machine_r[0], machine_r[2] if lt else None))
        print()
        print(bench_machine.paths_table(machine_r[0], machine_r[1]))
        print()
        print("ustd --page-cache against LTTng-UST, the same runs:")
        print(bench_machine.table(machine_r[1], machine_r[2] if lt else None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
