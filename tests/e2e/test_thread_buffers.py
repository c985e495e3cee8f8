# SPDX-License-Identifier: GPL-2.0-only
"""Thread buffers of function tracing (libust/thread_buffer.h, usttrace
--thread-buffers): func_threads (tests/apps/func_threads.c), whose threads
count their own calls, traced by usttrace and ustd and read by babeltrace2.
Every call the program counted is in the trace exactly once, each thread's
entries and exits nest, and the events are where the thread buffers put
them: a thread that took one writes there alone (fewer threads than
buffers), the threads that found none write to the per-CPU buffers, a
buffer given back at a thread's exit serves the next thread. Also: signal
handlers that interrupt their thread's writes, a destructor that calls
functions after the thread gave its buffer back, a crash (ustd rescues the
thread buffers), a flush by ustctl force-switch and by a session's
rotation while the writer is blocked with its packet open, a fork child,
--thread-buffers 0 and bad values."""

import collections
import os
import re
import signal
import subprocess

from functrace import func_calls, namer
from ustest import BABELTRACE2, USTCTL, USTTRACE, UST_SUMMARY, Tap, Workspace, app, wait_for

t = Tap()
ws = Workspace()
# libust makes a buffer per CPU the system may have (get_nprocs_conf()).
NCPUS = os.sysconf("SC_NPROCESSORS_CONF")
PROG = app("func_threads")


def usttrace(label, args, tb=None, opts=(), timeout=60, **env):
    """usttrace -m 'ust_func:*' [--thread-buffers tb] opts func_threads
    args, into a directory of its own: (result, that directory)."""
    out = os.path.join(ws.root, label)
    cmd = [USTTRACE, "-o", out, "-m", "ust_func:*"] + list(opts)
    if tb is not None:
        cmd += ["--thread-buffers", str(tb)]
    res = subprocess.run(cmd + [PROG] + [str(a) for a in args], env=ws.env(**env),
                         capture_output=True, text=True, timeout=timeout)
    return res, out


def traces_under(out):
    return sorted(dp for dp, _, files in os.walk(out) if "metadata" in files)


def printed_calls(text):
    """{tid: {function: calls}} as the program counted them."""
    found = {}
    for m in re.finditer(r"^calls (\d+) (.*)$", text, re.M):
        f = m.group(2).split()
        found[int(m.group(1))] = {f[i]: int(f[i + 1]) for i in range(0, len(f), 2)
                                  if int(f[i + 1])}
    return found


# [seconds.ns] host:procname:(vpid) provider:event: { cpu_id = N }, { payload }
_LINE = re.compile(r"^\[(\d+)\.(\d{9})\] \S+ (\w+:\w+): \{ cpu_id = (\d+) \}, \{ ?(.*?) ?\}$", re.M)
_FIELD = re.compile(r'(\w+) = (0x[0-9A-Fa-f]+|-?\d+|"[^"]*")')


class TextEvent:
    """An event as babeltrace2's text output gives it, with what
    functrace.func_calls() reads: its stream is ust_func_N for the packet
    context's cpu_id N (the index of the buffer, thread buffers included)."""

    def __init__(self, m):
        self.ts = int(m.group(1)) * 1000000000 + int(m.group(2))
        self.name = m.group(3)
        self.index = int(m.group(4))
        self.stream = "%s_%d" % (self.name.split(":")[0], self.index)
        self.packet_context = {"cpu_id": self.index}
        self.vpid = None
        self.fields = {k: v[1:-1] if v.startswith('"') else int(v, 0)
                       for k, v in _FIELD.findall(m.group(5))}


def read_text(path):
    """Every event of the trace at path (or of the chunks of one trace, a
    list of paths), merged by time by the babeltrace2 CLI, and the events
    it says were discarded; its errors raise."""
    paths = [path] if isinstance(path, str) else list(path)
    res = subprocess.run([BABELTRACE2, "--clock-seconds", "--no-delta"] + paths,
                         capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, TZ="UTC"))
    if res.returncode != 0 or any(" E " in l for l in res.stderr.splitlines()):
        raise RuntimeError("babeltrace2 %s: exit %d: %s" % (path, res.returncode,
                                                            res.stderr[-2000:]))
    events = [TextEvent(m) for m in _LINE.finditer(res.stdout)]
    if len(events) != res.stdout.count("\n"):
        raise RuntimeError("babeltrace2 %s: %d of %d lines not read as events"
                           % (path, res.stdout.count("\n") - len(events),
                              res.stdout.count("\n")))
    discarded = sum(int(n) for n in re.findall(r"Tracer discarded (\d+) events?\b", res.stderr))
    discarded += len(re.findall(r"Tracer may have discarded events", res.stderr))
    return events, discarded


class Trace:
    """The function events of a trace, read by babeltrace2 and merged by
    time: calls {tid: {function: entries}}, the streams each thread's
    events are in, the nesting of each thread's entries and exits, and
    what babeltrace2 said was discarded. Functions are named from the
    trace's statedump, or bin_infos' (a later chunk of a session has none).
    That babeltrace2 reads it without error is a check of label's."""

    def __init__(self, path, label, bin_infos=None):
        try:
            events, self.discarded = read_text(path)
            error = None
        except RuntimeError as e:
            events, self.discarded, error = [], None, str(e)
        t.ok(error is None, "%s: babeltrace2 reads the trace without error" % label, error)
        self.bin_infos = bin_infos or [e.fields for e in events
                                       if e.name == "ust_statedump:bin_info"]
        name = namer(self.bin_infos)
        self.fev = func_calls(events)
        self.calls, self.streams, self.stream_tids, self.runs = {}, {}, {}, {}
        self.depth, self.low = {}, {}
        for ev in self.fev:
            tid = ev.tid
            self.streams.setdefault(tid, collections.Counter())[ev.index] += 1
            self.stream_tids.setdefault(ev.index, set()).add(tid)
            runs = self.runs.setdefault(ev.index, [])
            if not runs or runs[-1] != tid:
                runs.append(tid)
            if ev.kind == "entry":
                ev.fn = name(ev.addr) if ev.addr is not None else "?"
                self.calls.setdefault(tid, collections.Counter())[ev.fn] += 1
                self.depth[tid] = self.depth.get(tid, 0) + 1
            else:
                self.depth[tid] = self.depth.get(tid, 0) - 1
            self.low[tid] = min(self.low.get(tid, 0), self.depth[tid])

    def shared(self):
        """The thread-buffer streams in which threads took turns more than
        once each: {stream index: the threads in the order of their
        events}. A buffer serves one thread from its first event to its
        exit, so each thread's events there are in one piece."""
        return {i: runs for i, runs in self.runs.items()
                if i >= NCPUS and len(runs) != len(set(runs))}

    def counted(self):
        return {tid: dict(c) for tid, c in self.calls.items()}

    def nesting(self):
        """{tid: (lowest depth, final depth)}."""
        return {tid: (self.low[tid], self.depth[tid]) for tid in self.depth}


def env_ncpus(path):
    with open(os.path.join(path, "metadata"), errors="replace") as f:
        m = re.search(r"\bncpus = (\d+);", f.read())
    return int(m.group(1)) if m else None


def stream_files(path):
    return sorted((f for f in os.listdir(path) if f.startswith("ust_func_")),
                  key=lambda f: int(f.rsplit("_", 1)[1]))


def want_files(n):
    return ["ust_func_%d" % i for i in range(NCPUS + n)]


def balanced(tr, label):
    t.eq({tid: n for tid, n in tr.nesting().items() if n != (0, 0)}, {},
         "%s: every thread's entries and exits nest (depth never below 0, 0 at the end)" % label)


def exact(tr, printed, label):
    t.eq(tr.counted(), printed,
         "%s: every call the program counted is in the trace once, per thread and function"
         % label)


def summary_calls(path):
    """ust-summary's calls per function."""
    res = subprocess.run([UST_SUMMARY, path], capture_output=True, text=True, env=ws.env())
    rows, section = {}, False
    for line in res.stdout.splitlines():
        if "function, by total time" in line:
            section = True
        elif not line.strip():
            section = False
        elif section:
            f = line.split()
            rows[f[-1]] = int(f[0])
    return res.returncode, rows


def one_trace(res, out, label):
    """The one trace of a run that must have succeeded, or None."""
    dirs = traces_under(out)
    if not t.ok(res.returncode == 0 and len(dirs) == 1,
                "%s: usttrace traces func_threads (status 0, one trace)" % label,
                "status %d, traces %r\n%s" % (res.returncode, dirs, res.stderr)):
        return None
    return dirs[0]


def traced_calls(label, args, threads, tb=None, opts=(), **env):
    """Traces func_threads args and checks what every run must give: one
    trace, which babeltrace2 reads, the calls of that many threads there
    exactly, nested, nothing discarded. (result, trace directory, Trace,
    printed calls), the last three None when there is no trace."""
    res, out = usttrace(label, args, tb, opts, **env)
    path = one_trace(res, out, label)
    if not path:
        return res, None, None, None
    tr = Trace(path, label)
    printed = printed_calls(res.stdout)
    t.eq(len(printed), threads, "%s: %d threads counted their calls" % (label, threads))
    exact(tr, printed, label)
    balanced(tr, label)
    t.eq(tr.discarded, 0, "%s: nothing discarded" % label)
    return res, path, tr, printed


# --- 1. Fewer threads than buffers: each writes a buffer of its own.
label = "3 threads, 8 buffers"
res, path, tr, printed = traced_calls(label, ["run", 3, 1000, "together"], 3)
if path:
    t.eq(stream_files(path), want_files(8),
         "%s: the streams are ust_func_0..%d, %d per CPU and 8 thread buffers"
         % (label, NCPUS + 7, NCPUS))
    t.eq(env_ncpus(path), NCPUS, "%s: the trace's env says ncpus = get_nprocs_conf()" % label)
    t.eq({tid: sorted(c) for tid, c in tr.streams.items() if len(c) != 1 or min(c) < NCPUS}, {},
         "%s: each thread's function events are all in one thread-buffer stream (>= %d)"
         % (label, NCPUS))
    t.eq({i: sorted(tids) for i, tids in tr.stream_tids.items() if len(tids) != 1}, {},
         "%s: and no two threads share one" % label)
    want = collections.Counter()
    for c in printed.values():
        want.update(c)
    rc, rows = summary_calls(path)
    t.eq((rc, rows), (0, dict(want)),
         "%s: ust-summary counts the calls of each function the threads made" % label)

# Rings of 16 KiB that each thread fills many times over: packets opened
# and closed by the thread alone, and waits for ustd (function tracing is
# lossless).
label = "2 threads, 4 sub-buffers of 4 KiB"
res, path, tr, printed = traced_calls(label, ["run", 2, 3000, "together"], 2,
                                      opts=["--subbuf-size", "4k", "--subbuf-num", "4"])
if path:
    sizes = {i: os.path.getsize(os.path.join(path, "ust_func_%d" % i))
             for c in tr.streams.values() for i in c}
    t.ok(len(sizes) == 2 and min(sizes) >= NCPUS and min(sizes.values()) > 4 * 16384,
         "%s: each thread went round a thread buffer's ring of its own more than 4 times"
         % label, "bytes per stream: %r" % sizes)

# --- 2. More threads than buffers, all alive at once.
label = "5 threads, --thread-buffers 2"
res, path, tr, printed = traced_calls(label, ["run", 5, 1000, "together"], 5, tb=2)
if path:
    t.eq(stream_files(path), want_files(2), "%s: %d per-CPU streams and 2 thread buffers"
         % (label, NCPUS))
    in_tb = {i: sorted(tids) for i, tids in tr.stream_tids.items() if i >= NCPUS}
    t.ok(len(in_tb) == 2 and all(len(v) == 1 for v in in_tb.values()),
         "%s: the 2 thread-buffer streams hold function events, of one thread each" % label,
         "thread-buffer streams: %r" % in_tb)
    owners = {tid for v in in_tb.values() for tid in v}
    t.eq({tid: sorted(c) for tid, c in tr.streams.items()
          if tid not in owners and max(c) >= NCPUS}, {},
         "%s: the 3 threads that found none write to per-CPU streams only" % label)

# --- 3. A buffer given back at a thread's exit serves the next thread.
label = "4 threads one after the other, --thread-buffers 1"
res, path, tr, printed = traced_calls(label, ["run", 4, 500, "apart"], 4, tb=1)
if path:
    t.eq({tid: sorted(c) for tid, c in tr.streams.items() if set(c) != {NCPUS}}, {},
         "%s: all their events are in the one thread-buffer stream, ust_func_%d"
         % (label, NCPUS))
    t.eq(tr.shared(), {}, "%s: one thread's after the other's, never mixed" % label)

# A thread-specific key's destructor, run after libust's that gave the
# buffer back, calls functions while the next thread takes the buffer and
# writes it: its events must go elsewhere (two writers of plain stores
# corrupt it).
for i in range(3):
    label = "calls after the buffer went back at exit #%d" % (i + 1)
    res, path, tr, printed = traced_calls(label, ["exitkey", 3000, 3000], 2, tb=1, UST_DEBUG=1)
    if not path:
        continue
    t.ok("corrupted" not in res.stderr, "%s: ustd finds no stream corrupted" % label,
         "\n".join(l for l in res.stderr.splitlines() if "corrupt" in l))
    t.eq(tr.shared(), {}, "%s: no thread writes the buffer while another holds it (each "
         "thread's events in a thread-buffer stream are in one piece)" % label)

# --- 4. Signal handlers calling functions in the middle of their thread's.
label = "SIGUSR1 handlers"
HANDLERS = 200
res, path, tr, printed = traced_calls(label, ["signal", HANDLERS], 1)
if path:
    t.eq([c.get("handler") for c in printed.values()], [HANDLERS],
         "%s: %d handlers ran, in the thread calling functions" % (label, HANDLERS))
    # A handler that interrupted its thread between two writes writes to
    # the thread's buffer, one that interrupted a write to the per-CPU
    # buffers.
    where = collections.Counter("thread buffer" if ev.index >= NCPUS else "per-CPU"
                                for ev in tr.fev if ev.kind == "entry" and ev.fn == "handler")
    t.diag("%s: handlers' entries: %r; the thread's calls: %r"
           % (label, dict(where), list(printed.values())))

# --- 5. --thread-buffers 0 and bad values.
label = "--thread-buffers 0"
res, path, tr, printed = traced_calls(label, ["run", 2, 200, "together"], 2, tb=0)
if path:
    t.eq(stream_files(path), want_files(0), "%s: per-CPU streams only" % label)
# Off means off, whatever the environment says.
label = "--thread-buffers 0 with UST_THREAD_BUFFERS=ust_func:3 in the environment"
res, out = usttrace("zeroenv", ["run", 1, 10, "apart"], tb=0, UST_THREAD_BUFFERS="ust_func:3")
path = one_trace(res, out, label)
if path:
    t.eq(stream_files(path), want_files(0), "%s: per-CPU streams only" % label)
label = "--thread-buffers 256, the most"
res, path, tr, printed = traced_calls(label, ["run", 3, 100, "together"], 3, tb=256)
if path:
    t.eq(stream_files(path), want_files(256), "%s: %d streams" % (label, NCPUS + 256))
for bad in ("-1", "x", "257", ""):
    res, out = usttrace("bad", ["run", 1, 10, "apart"], tb=bad)
    t.ok(res.returncode == 125 and "--thread-buffers" in res.stderr and
         not os.path.exists(out),
         "--thread-buffers '%s' is refused: status 125, a message naming --thread-buffers, "
         "nothing traced" % bad, "status %d: %s" % (res.returncode, res.stderr))
# Without function tracing usttrace leaves UST_THREAD_BUFFERS alone: libust
# reads it, and says what is wrong with it.
out = os.path.join(ws.root, "bogus")
res = subprocess.run([USTTRACE, "-o", out, "-m", "ust_statedump:*", PROG, "run", "1", "10",
                      "apart"], env=ws.env(UST_THREAD_BUFFERS="bogus"),
                     capture_output=True, text=True, timeout=60)
t.ok(res.returncode == 0 and "UST_THREAD_BUFFERS=bogus is not [CHANNEL:]N" in res.stderr,
     "UST_THREAD_BUFFERS=bogus: the program runs, libust says it is not [CHANNEL:]N",
     "status %d: %s" % (res.returncode, res.stderr))

# --- 6. A crash: ustd rescues what the thread buffers hold.
label = "SIGKILL in the middle of calls"
CRASH = 1000
state = os.path.join(ws.root, "completed")
res, out = usttrace("crash", ["crash", CRASH, state])
dirs = traces_under(out)
t.ok(res.returncode == 128 + signal.SIGKILL and len(dirs) == 1,
     "%s: usttrace says the program was killed (status 137), one trace" % label,
     "status %d, traces %r\n%s" % (res.returncode, dirs, res.stderr))
tids = {k: int(v) for k, v in re.findall(r"^(other|killer) (\d+)$", res.stdout, re.M)}
if dirs and len(tids) == 2:
    tr = Trace(dirs[0], label + ", the rescued trace")
    completed = int.from_bytes(open(state, "rb").read(8), "little")
    t.eq(tr.counted().get(tids["killer"]),
         {"killer": 1, "outer": CRASH, "inner": 2 * CRASH - 1, "leaf": 2 * CRASH - 1},
         "%s: the killing thread's calls are all there, to the leaf() that killed" % label)
    t.eq(tr.nesting().get(tids["killer"]), (0, 4),
         "%s: and nest, killer, outer, inner and leaf still open" % label)
    got = tr.counted().get(tids["other"], {}).get("outer", 0)
    t.ok(got - completed in (0, 1),
         "%s: the other thread's completed calls are there (%d, and at most the one in "
         "flight: %d)" % (label, completed, got))
    low = tr.nesting().get(tids["other"], (-1, 0))[0]
    t.eq(low, 0, "%s: and nest" % label)
    t.eq({tid: sorted(c) for tid, c in tr.streams.items() if min(c) < NCPUS}, {},
         "%s: both threads' events were rescued from thread-buffer streams" % label)
    t.ok(tr.discarded <= 1, "%s: nothing lost but at most the event in flight (%d)"
         % (label, tr.discarded))


# --- 7. A flush while the writer is blocked with its packet open.
def blocked_app(popen_args, env):
    """Starts func_threads block 300 200 (through popen_args) and waits
    for it to block: (process, pid of func_threads) or (process, None)."""
    proc = subprocess.Popen(popen_args + [PROG, "block", "300", "200"], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    ws.daemons.append(proc)
    m = re.match(r"blocked (\d+)$", proc.stdout.readline().strip())
    return proc, int(m.group(1)) if m else None


BLOCK_CALLS = {"worker": 1, "outer": 300, "inner": 600, "leaf": 600}


def tb_stream_bytes(path):
    return sum(os.path.getsize(os.path.join(path, f)) for f in stream_files(path)
               if int(f.rsplit("_", 1)[1]) >= NCPUS)


label = "ustctl force-switch while the writer blocks"
out = os.path.join(ws.root, "block")
proc, pid = blocked_app([USTTRACE, "-o", out, "-m", "ust_func:*"], ws.env())
if t.ok(pid is not None, "%s: func_threads made its calls and blocks" % label):
    dirs = traces_under(out)
    t.ok(len(dirs) == 1 and tb_stream_bytes(dirs[0]) == 0,
         "%s: its thread buffer's packet is open: nothing of it on disk yet" % label)
    res = subprocess.run([USTCTL, "force-switch", str(pid)], env=ws.env(),
                         capture_output=True, text=True, timeout=60)
    t.eq(res.returncode, 0, "%s: ustctl force-switch %d" % (label, pid))
    on_disk = dirs and wait_for(lambda: tb_stream_bytes(dirs[0]) > 0, timeout=10)
    t.ok(on_disk, "%s: the thread buffer's packet reaches the disk" % label)
    if on_disk:
        tr = Trace(dirs[0], label + ", while it blocks")
        t.eq(list(tr.counted().values()), [BLOCK_CALLS],
             "%s: babeltrace2 reads the calls made before it blocked, while it blocks" % label)
    stdout, stderr = proc.communicate("x\n", timeout=60)
    t.eq(proc.returncode, 0, "%s: unblocked, it ends" % label)
    if dirs:
        tr = Trace(dirs[0], label + ", at the end")
        exact(tr, printed_calls(stdout), label + ", at the end")
        balanced(tr, label + ", at the end")
else:
    proc.kill()
    proc.wait()

# The same flush by ustd: a session's rotation closes the open packets.
label = "rotate-session while the writer blocks"
sout = os.path.join(ws.root, "session")
os.mkdir(sout)
ustd = ws.start_ustd(sout)


def ustctl(*args):
    return ws.ustctl_fast(list(args))


res = [ustctl("create-session", "-o", sout, "tb"),
       ustctl("enable-marker", "-s", "tb", "ust_func:*"), ustctl("start-session", "tb")]
t.ok(all(r.returncode == 0 for r in res), "%s: a session of ust_func:* events" % label,
     "".join(r.stderr for r in res))
proc, pid = blocked_app([], ws.env(UST_THREAD_BUFFERS="ust_func:4"))
if t.ok(pid is not None, "%s: func_threads (UST_THREAD_BUFFERS=ust_func:4) blocks" % label):
    dirs = traces_under(sout)
    t.ok(len(dirs) == 1 and tb_stream_bytes(dirs[0]) == 0,
         "%s: its thread buffer's packet is open: nothing of it on disk yet" % label, dirs)
    tr = None
    res = ustctl("rotate-session", "tb")
    chunk = res.stdout.strip()
    t.ok(res.returncode == 0 and os.path.isdir(chunk), "%s: ustctl rotate-session" % label,
         res.stdout + res.stderr)
    if os.path.isdir(chunk):
        cdirs = traces_under(chunk)
        tr = Trace(cdirs[0], label + ", the first chunk") if len(cdirs) == 1 else None
        t.eq(tr and list(tr.counted().values()), [BLOCK_CALLS],
             "%s: the chunk holds the calls made before it blocked" % label)
        t.eq(tr and sorted(set(tr.stream_tids) - set(range(NCPUS, NCPUS + 4))), [],
             "%s: from a thread-buffer stream" % label)
    stdout, _ = proc.communicate("x\n", timeout=60)
    t.eq(proc.returncode, 0, "%s: unblocked, it ends" % label)
    res = [ustctl("stop-session", "tb"), ustctl("destroy-session", "tb")]
    t.ok(all(r.returncode == 0 for r in res), "%s: the session ends" % label,
         "".join(r.stderr for r in res))
    total = collections.Counter()
    for d in traces_under(sout):
        for c in Trace(d, "%s, %s" % (label, os.path.relpath(d, sout)),
                       tr and tr.bin_infos).calls.values():
            total.update(c)
    want = list(printed_calls(stdout).values())
    t.eq(dict(total), want[0] if len(want) == 1 else want,
         "%s: the chunks hold every call, each once" % label)
else:
    proc.kill()
    proc.wait()

# A session ends and another begins while the thread blocks: its next
# calls go to the new session's channel, under the new ids. The thread's
# kept ids of its pairs of forms (event_chain.c) must not outlive the
# bindings they came from: the old channel's buffer is retired, and an
# event written there would be lost.
label = "a session ends and another starts while the writer blocks"
outs = [os.path.join(ws.root, "first"), os.path.join(ws.root, "second")]
for d in outs:
    os.mkdir(d)
res = [ustctl("create-session", "-o", outs[0], "one"),
       ustctl("enable-marker", "-s", "one", "ust_func:*"), ustctl("start-session", "one")]
t.ok(all(r.returncode == 0 for r in res), "%s: session one, of ust_func:* events" % label,
     "".join(r.stderr for r in res))
proc, pid = blocked_app([], ws.env(UST_THREAD_BUFFERS="ust_func:4"))
if t.ok(pid is not None, "%s: func_threads made its calls in session one and blocks" % label):
    res = [ustctl("stop-session", "one"), ustctl("destroy-session", "one"),
           ustctl("create-session", "-o", outs[1], "two"),
           ustctl("enable-marker", "-s", "two", "ust_func:*"), ustctl("start-session", "two")]
    t.ok(all(r.returncode == 0 for r in res), "%s: session one ends, session two starts" % label,
         "".join(r.stderr for r in res))
    stdout, _ = proc.communicate("x\n", timeout=60)
    t.eq(proc.returncode, 0, "%s: unblocked, it ends" % label)
    res = [ustctl("stop-session", "two"), ustctl("destroy-session", "two")]
    t.ok(all(r.returncode == 0 for r in res), "%s: session two ends" % label,
         "".join(r.stderr for r in res))
    got = []
    for d in outs:
        dirs = traces_under(d)
        tr = Trace(dirs[0], "%s, %s" % (label, os.path.basename(d))) if len(dirs) == 1 else None
        got.append(tr and list(tr.counted().values()))
    t.eq(got[0], [BLOCK_CALLS], "%s: session one holds the calls made before it blocked" % label)
    # worker() entered in session one and returns in session two.
    t.eq(got[1], [{"worker": 1, "outer": 200, "inner": 400, "leaf": 400}],
         "%s: session two holds every call made after, each once" % label)
else:
    proc.kill()
    proc.wait()

# --- 7b. Flushes while the writers write: ustctl force-switch (libust's
# hold) and rotate-session (ustd's), one after the other, as fast as they
# come, while two threads call away. A flush that lands inside a write
# waits for it; the writer that finds its buffer held writes that event
# to the per-CPU buffer. Every call once, nested, in the chunks together.
label = "flushes while two threads write"
res = [ustctl("create-session", "-o", sout, "storm"),
       ustctl("enable-marker", "-s", "storm", "ust_func:*"), ustctl("start-session", "storm")]
t.ok(all(r.returncode == 0 for r in res), "%s: a session of ust_func:* events" % label,
     "".join(r.stderr for r in res))
# However loaded the machine, at least two flushes must land while the
# program writes: a run too short for that is run again, twice as long.
for attempt in range(4):
    proc = subprocess.Popen([PROG, "run", "2", str(150000 << attempt), "together"],
                            env=ws.env(UST_THREAD_BUFFERS="ust_func:4"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    ws.daemons.append(proc)
    flushes = rotations = 0
    while proc.poll() is None:
        if ustctl("force-switch", "-t", "storm", proc.pid).returncode == 0:
            flushes += 1
        if proc.poll() is None and ustctl("rotate-session", "storm").returncode == 0:
            rotations += 1
    stdout, _ = proc.communicate(timeout=60)
    if flushes + rotations >= 2:
        break
t.eq(proc.returncode, 0, "%s: the program ends (%d flushes, %d rotations while it ran, "
     "run %d)" % (label, flushes, rotations, attempt + 1))
t.ok(flushes + rotations >= 2, "%s: flushed while it wrote" % label,
     "%d flushes, %d rotations in each of %d runs" % (flushes, rotations, attempt + 1))
res = [ustctl("stop-session", "storm"), ustctl("destroy-session", "storm")]
t.ok(all(r.returncode == 0 for r in res), "%s: the session ends" % label,
     "".join(r.stderr for r in res))
# Each chunk alone, in the order they were archived (the first has the
# statedump); then all of them, which babeltrace2 merges into one trace:
# events discarded between two chunks are counted only so.
chunks, names = sorted((d for d in traces_under(sout)
                        if "storm" in d and d.endswith("-%d" % proc.pid)),
                       key=os.path.getmtime), None
for d in chunks:
    names = names or Trace(d, "%s, %s" % (label, os.path.relpath(d, sout)), names).bin_infos
whole = Trace(chunks, "%s, the %d chunks together" % (label, len(chunks)), names)
printed = printed_calls(stdout)
# The writers run flat out, and a rotation drains every stream up to it
# before the next stream's turn: on 2 CPUs a ring of 4 MiB that a thread
# fills in about 3 ms may overflow meanwhile, through the page cache or
# straight from the rings alike (9 runs of 80 here). Discarded is then
# counted, to the event: a packet missing (babeltrace2's "may have
# discarded") counts one, and the sum falls short.
made = 2 * sum(sum(c.values()) for c in printed.values())
if not whole.discarded:
    t.eq(whole.counted(), printed, "%s: the chunks hold each thread's calls, each once" % label)
else:
    t.eq(len(whole.fev) + whole.discarded, made, "%s: every event in the chunks or counted as "
         "discarded (%d discarded)" % (label, whole.discarded))
    t.eq({tid: {f: n for f, n in c.items() if n > printed.get(tid, {}).get(f, 0)}
          for tid, c in whole.counted().items()}, {tid: {} for tid in whole.counted()},
         "%s: no call in the chunks twice" % label)

# --- 8. fork(): the child writes buffers of its own, in a trace of its own.
label = "fork"
res, out = usttrace("fork", ["fork", 300, 200, 100])
dirs = traces_under(out)
t.ok(res.returncode == 0 and len(dirs) == 2, "%s: two traces, the parent's and the child's"
     % label, "status %d, traces %r\n%s" % (res.returncode, dirs, res.stderr))
printed = printed_calls(res.stdout)
got = {}
for d in dirs:
    tr = Trace(d, "%s, %s" % (label, os.path.basename(d)))
    got.update(tr.counted())
    balanced(tr, "%s, %s" % (label, os.path.basename(d)))
t.eq(got, printed, "%s: each trace holds the calls its process made, each once" % label)

t.done()
