# SPDX-License-Identifier: GPL-2.0-only
"""Shared helpers of the end-to-end tests: TAP output, private directories,
running usttrace/ustd on the test programs, and reading traces back with
babeltrace2 (the command for validity and for the values of large traces,
its Python bindings for the values of the others)."""

import atexit
import faulthandler
import fcntl
import os
import queue
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

import bt2

TOP_BUILD = os.environ.get("top_builddir", os.getcwd())
TOP_SRC = os.environ.get("top_srcdir", TOP_BUILD)
BABELTRACE2 = os.environ.get("BABELTRACE2") or "babeltrace2"
USTTRACE = os.path.join(TOP_BUILD, "usttrace", "usttrace")
USTD = os.path.join(TOP_BUILD, "ustd", "ustd")
USTCTL = os.path.join(TOP_BUILD, "ustctl", "ustctl")
# The babeltrace2 plugin of the build tree (sink.ust.perfetto, sink.ust.summary).
BT2_PLUGIN_PATH = os.path.join(TOP_BUILD, "bt2plugin", ".libs")
UST_SUMMARY = os.path.join(TOP_BUILD, "bt2plugin", "ust-summary")

# tests/bounded.sh stops a test after UST_TEST_TIMEOUT seconds; every
# thread's stack, written to UST_TEST_STACKS just before, which bounded.sh
# then prints into the test's log, says where it hung.
_BOUND = int(os.environ.get("UST_TEST_TIMEOUT", "0"))
if _BOUND > 30 and os.environ.get("UST_TEST_STACKS"):
    _STACKS = open(os.environ["UST_TEST_STACKS"], "w")
    faulthandler.dump_traceback_later(_BOUND - 15, exit=False, file=_STACKS)


def app(name):
    return os.path.join(TOP_BUILD, "tests", "apps", name)


class Tap:
    """TAP with the plan printed last, so that a test cannot miscount."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, desc, diag=None):
        self.n += 1
        if not cond:
            self.failed += 1
        print("%sok %d - %s" % ("" if cond else "not ", self.n, desc), flush=True)
        if not cond and diag is not None:
            for line in str(diag).splitlines()[-40:]:
                print("# " + line, flush=True)
        return cond

    def eq(self, got, want, desc):
        return self.ok(got == want, desc, "got:  %r\nwant: %r" % (got, want))

    def diag(self, msg):
        for line in str(msg).splitlines():
            print("# " + line, flush=True)

    def done(self):
        print("1..%d" % self.n, flush=True)
        sys.exit(1 if self.failed or not self.n else 0)


class Workspace:
    """A private run directory and output directory, removed at exit,
    and every daemon started here stopped by its PID."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="ust-test-")
        self.rundir = os.path.join(self.root, "run")
        self.out = os.path.join(self.root, "out")
        os.mkdir(self.rundir, 0o700)
        os.mkdir(self.out)
        self.daemons = []
        atexit.register(self.cleanup)

    def env(self, **extra):
        env = dict(os.environ)
        for var in ("UST_TRACE", "UST_AUTOPROBE", "UST_DAEMON_SOCKET",
                    "UST_SUBBUF_SIZE", "UST_SUBBUF_NUM", "UST_OVERWRITE",
                    "UST_CONTROL", "UST_SIGNAL", "UST_CHANNELS", "UST_FUNC_RECORD"):
            env.pop(var, None)
        env["UST_RUNDIR"] = self.rundir
        env["UST_USTD"] = USTD
        env["UST_BT2_PLUGIN_PATH"] = BT2_PLUGIN_PATH
        env["TZ"] = "UTC"
        env.update({k: str(v) for k, v in extra.items()})
        return env

    def usttrace(self, args, timeout=120, **extra):
        return subprocess.run([USTTRACE, "-o", self.out] + list(args),
                              env=self.env(**extra), capture_output=True,
                              text=True, timeout=timeout)

    def start_ustd(self, out=None):
        """A ustd on the run directory's default socket, ready when this returns."""
        r, w = os.pipe()
        proc = subprocess.Popen([USTD, "-o", out or self.out, "--ready-fd", str(w)],
                                env=self.env(), pass_fds=(w,),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        os.close(w)
        os.read(r, 1)
        os.close(r)
        self.daemons.append(proc)
        return proc

    def start_app(self, name, args=(), preexec_fn=None, **extra):
        """Starts a test program that prints "ready", and waits for that and
        for its control socket (unless UST_CONTROL=none)."""
        proc = subprocess.Popen([app(name)] + [str(a) for a in args], env=self.env(**extra),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=preexec_fn)
        self.daemons.append(proc)
        line = proc.stdout.readline()
        if line.strip() != "ready":
            raise RuntimeError("%s did not start: %r %s" % (name, line, proc.stderr.read()))
        if extra.get("UST_CONTROL") != "none":
            sock = self.app_socket(proc.pid)
            for _ in range(500):
                if os.path.exists(sock):
                    break
                time.sleep(0.01)
        return proc

    def app_socket(self, pid):
        return os.path.join(self.rundir, "apps", str(pid))

    def stop_app(self, proc, timeout=30):
        """SIGTERM, then its output (stdout, stderr) once it ended."""
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=timeout)
        return out, err

    def ustctl(self, args, timeout=60, **extra):
        return subprocess.run([USTCTL] + [str(a) for a in args], env=self.env(**extra),
                              capture_output=True, text=True, timeout=timeout)

    def ustctl_fast(self, args, timeout=60):
        """ustctl's binary behind libtool's wrapper script, for tests that
        run it hundreds of times or against a clock: the script costs most
        of a second of shell on a loaded machine, the binary milliseconds."""
        binary = os.path.join(os.path.dirname(USTCTL), ".libs", "ustctl")
        if not os.path.exists(binary):
            return self.ustctl(args, timeout)
        return subprocess.run([binary] + [str(a) for a in args],
                              env=self.env(LD_LIBRARY_PATH=os.path.join(TOP_BUILD, ".libs")),
                              capture_output=True, text=True, timeout=timeout)

    def trace_dirs(self):
        found = []
        for dirpath, _, files in os.walk(self.out):
            if "metadata" in files:
                found.append(dirpath)
        return sorted(found)

    def cleanup(self):
        for proc in self.daemons:
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
        shutil.rmtree(self.root, ignore_errors=True)


class VerboseUstd:
    """ustd -v started for ws, writing under out, with more arguments and
    environment: its messages are read as they come. wait_line() finds
    one; seen keeps every line read so far."""

    def __init__(self, ws, out, args=(), **env):
        r, w = os.pipe()
        self.proc = subprocess.Popen([USTD, "-v", "-o", out, "--ready-fd", str(w)] + list(args),
                                     env=ws.env(**env), pass_fds=(w,),
                                     stderr=subprocess.PIPE, text=True)
        os.close(w)
        os.read(r, 1)
        os.close(r)
        ws.daemons.append(self.proc)
        self.out = out
        self.lines = queue.Queue()
        self.seen = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stderr:
            self.lines.put(line)
        self.lines.put(None)

    def wait_line(self, pattern, timeout=15):
        """The first match of pattern in the messages, or None."""
        rx = re.compile(pattern)
        for line in self.seen:
            m = rx.search(line)
            if m:
                return m
        end = time.time() + timeout
        while time.time() < end:
            try:
                line = self.lines.get(timeout=max(0.01, end - time.time()))
            except queue.Empty:
                break
            if line is None:
                self.lines.put(None)
                break
            self.seen.append(line)
            m = rx.search(line)
            if m:
                return m
        return None

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=30)

    def stop_and_read(self):
        """stop(), then every message left into seen."""
        self.stop()
        while True:
            line = self.lines.get(timeout=30)
            if line is None:
                self.lines.put(None)
                return
            self.seen.append(line)


def babeltrace_check(path):
    """The reference reader's verdict: (ok, stderr)."""
    res = subprocess.run([BABELTRACE2, path, "-o", "dummy"], capture_output=True,
                         text=True, timeout=120, env=dict(os.environ, TZ="UTC"))
    bad = [l for l in res.stderr.splitlines() if " E " in l]
    return res.returncode == 0 and not bad, res.stderr


def bt2_sink(inputs, sink, params, **kw):
    """babeltrace2 INPUTS... -c SINK -p PARAMS with our plugin: the result."""
    return subprocess.run([BABELTRACE2, "--plugin-path=" + BT2_PLUGIN_PATH] + list(inputs) +
                          ["-c", sink] + (["-p", params] if params else []),
                          capture_output=True, text=True,
                          timeout=600, env=dict(os.environ, TZ="UTC"), **kw)


def babeltrace_text(path):
    res = subprocess.run([BABELTRACE2, path], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ, TZ="UTC"))
    return res.returncode, res.stdout, res.stderr


def _value(field):
    if isinstance(field, bt2._StringFieldConst):
        return str(field)
    if isinstance(field, bt2._IntegerFieldConst):
        return int(field)
    if isinstance(field, bt2._RealFieldConst):
        return float(field)
    if isinstance(field, bt2._ArrayFieldConst):
        return [_value(f) for f in field]
    if isinstance(field, bt2._StructureFieldConst):
        return {k: _value(v) for k, v in field.items()}
    raise TypeError("unexpected field %r" % type(field))


class Event:
    def __init__(self, msg):
        ev = msg.event
        self.name = ev.name
        self.ts = msg.default_clock_snapshot.ns_from_origin
        self.clock = msg.default_clock_snapshot.clock_class.name
        # The writing process, from its trace's environment (None if absent).
        vpid = ev.stream.trace.environment.get("vpid")
        self.vpid = int(vpid) if vpid is not None else None
        self.fields = _value(ev.payload_field)
        self.stream = ev.stream.name
        self.packet_context = _value(ev.packet.context_field) if ev.packet.context_field is not None else {}
        # The stream's event context (add-context), {} when it has none.
        self.context = (_value(ev.common_context_field)
                        if ev.common_context_field is not None else {})

    def __repr__(self):
        return "%s %r" % (self.name, self.fields)












def full_speed_alone():
    """Waits until no other test that runs or must keep up with a program
    writing at full speed for long is running, in this build or in another
    one whose suite runs at the same time (quickstart.sh runs two, with the
    same UST_TEST_LOCK), then keeps them out until this test exits. Other
    tests run on beside it."""
    path = os.environ.get("UST_TEST_LOCK") or os.path.join(TOP_BUILD, "tests", "full-speed.lock")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    # Released when the process exits and the descriptor closes.
    full_speed_alone.fd = fd


def small_tmpfs(size="4m"):
    """A tmpfs of size mounted on a new mktemp directory, for a full disk
    (the tests run as root): (path, None), or (None, why) when it cannot
    be mounted."""
    mnt = tempfile.mkdtemp(prefix="ust-full-")
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%s,mode=0700" % size, "ust-test",
                          mnt], capture_output=True, text=True)
    if res.returncode != 0:
        os.rmdir(mnt)
        return None, res.stderr.strip()
    return mnt, None


def unmount(mnt):
    """Unmounts and removes small_tmpfs()'s mnt, waiting up to 5 s for
    the processes that still hold it to let go; None, or why not."""
    for _ in range(50):
        res = subprocess.run(["umount", mnt], capture_output=True, text=True)
        if res.returncode == 0:
            os.rmdir(mnt)
            return None
        time.sleep(0.1)
    return "cannot unmount %s: %s" % (mnt, res.stderr)


def wait_for(cond, timeout=10):
    """Calls cond() until it is true or timeout seconds have passed; returns its last value."""
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def read_trace(path):
    """Every event of the trace(s) under path, merged by time, and the total
    count of events the tracer reported as discarded."""
    events, discarded = [], 0
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is bt2._EventMessageConst:
            events.append(Event(msg))
        elif type(msg) is bt2._DiscardedEventsMessageConst:
            # None: babeltrace2 knows events were lost but not how many
            # (a stream whose first packet already counts some).
            discarded += msg.count if msg.count is not None else 1
    return events, discarded


class TextEvent:
    """An event as babeltrace2's text output gives it: its name, its time
    (ns from origin) and the integer fields of its payload."""
    __slots__ = ("name", "ts", "fields")

    def __init__(self, name, ts, fields):
        self.name, self.ts, self.fields = name, ts, fields

    def __repr__(self):
        return "%s %r" % (self.name, self.fields)


# [seconds.ns] [hostname] provider:event: [{ context }, ...] [{ payload }]
_TEXT_EVENT = re.compile(r"^\[(\d+)\.(\d{9})\] (?:.* )?([^\s{}]+):(?: .*?(?:\{ ([^{}]*) \})?)?$",
                         re.M)
_TEXT_INT = re.compile(r"(\w+) = (-?\d+)")


def read_trace_ints(path):
    """read_trace for large traces whose events carry integer fields (a
    million events in the suite): babeltrace2's text output, parsed, a
    sixth of the CPU time of the Python bindings. The events have a name,
    a time and the integer fields of their last group of fields (the
    payload, for events that have one); the discarded count is
    what babeltrace2 warns of (1 for "may have discarded", as read_trace).
    A reader error is an exception: the trace must read cleanly."""
    res = subprocess.run([BABELTRACE2, "--clock-seconds", "--no-delta", path],
                         capture_output=True, text=True, timeout=600,
                         env=dict(os.environ, TZ="UTC"))
    if res.returncode != 0:
        raise RuntimeError("babeltrace2 %s: exit %d: %s" % (path, res.returncode,
                                                            res.stderr[-2000:]))
    events = [TextEvent(m.group(3), int(m.group(1)) * 1000000000 + int(m.group(2)),
                        {k: int(v) for k, v in _TEXT_INT.findall(m.group(4) or "")})
              for m in _TEXT_EVENT.finditer(res.stdout)]
    lines = res.stdout.count("\n")
    if len(events) != lines:
        raise RuntimeError("babeltrace2 %s: %d of %d lines not read as events"
                           % (path, lines - len(events), lines))
    discarded = sum(int(n) for n in re.findall(r"Tracer discarded (\d+) events?\b", res.stderr))
    discarded += len(re.findall(r"Tracer may have discarded events", res.stderr))
    return events, discarded


# The control protocol (libustcomm/ctl_protocol.h), spoken directly by tests
# that must send what no well-behaved controller sends.
CTL_MAGIC = 0x55535443
# Version 2: list-markers gives levels and fields, get-session levels, filters
# and contexts, enable-rule, add-context. Version 4: get-session gives each
# channel's blocking timeout; set- and get-blocking-timeout. Version 5:
# add-trigger, list-triggers, remove-trigger; the session commands;
# set- and get-tracefile.
CTL_VERSION = 5
CTL_HEADER = struct.Struct("<IHHiIII")
CTL_CMDS = {"info": 1, "list-markers": 2, "enable-marker": 3, "disable-marker": 4,
            "create-trace": 5, "alloc-trace": 6, "start-trace": 7, "stop-trace": 8,
            "destroy-trace": 9, "force-switch": 10, "set-subbuf-size": 11,
            "set-subbuf-num": 12, "get-subbuf-size": 13, "get-subbuf-num": 14,
            "set-sock-path": 15, "get-sock-path": 16, "get-session": 17,
            "snapshot": 18, "reconnect": 19, "enable-rule": 20, "add-context": 21,
            "set-output": 22, "load-session": 23, "set-blocking-timeout": 24,
            "get-blocking-timeout": 25, "set-tracefile": 26, "get-tracefile": 27,
            "add-trigger": 30, "list-triggers": 31, "remove-trigger": 32}


PAGE = 4096


def packets(path):
    """(offset, size in bytes, context) of every packet of a stream file,
    walked by the packet sizes the file itself gives."""
    data = open(path, "rb").read()
    found, off = [], 0
    while off + 84 <= len(data):
        magic, = struct.unpack_from("<I", data, off)
        if magic != 0xC1FC1FC1:
            break
        tb, te, content, size, seq, disc = struct.unpack_from("<6Q", data, off + 32)
        stream_id, = struct.unpack_from("<I", data, off + 20)
        inst, = struct.unpack_from("<Q", data, off + 24)
        found.append((off, size // 8, (size, content, tb, te, disc, stream_id, inst, seq)))
        if size == 0:
            break
        off += size // 8
    return found, len(data)


def index_entries(path):
    data = open(path, "rb").read()
    magic, major, minor, entry_len = struct.unpack_from(">4I", data, 0)
    entries = [struct.unpack_from(">9Q", data, off) for off in range(16, len(data), entry_len)]
    return (magic, major, minor, entry_len), entries


def cut_to_index(root):
    """Cuts every stream file under root at the end of the last packet its
    index holds (all of it without one), as the manual says to do with the
    copy of a relayd killed while writing (4.1, 9.5). Returns the bytes cut."""
    cut = 0
    for dirpath, _, files in os.walk(root):
        if "metadata" not in files:
            continue
        for name in files:
            if name == "metadata":
                continue
            idx = os.path.join(dirpath, "index", name + ".idx")
            end = 0
            if os.path.exists(idx) and os.path.getsize(idx) >= 16:
                _, entries = index_entries(idx)
                end = max((e[0] + e[1] // 8 for e in entries), default=0)
            data = os.path.join(dirpath, name)
            cut += os.path.getsize(data) - end
            os.truncate(data, end)
    return cut


def stream_problems(trace, padded):
    """What is wrong with the stream files of trace: every one needs an
    index whose entries are exactly its packets (offsets, sizes, times,
    discarded counts, ids, sequence numbers), packets covering the whole
    file and, written by ustd itself (padded), each packet ending on a page
    boundary with nothing but zeroes after its content."""
    streams = [f for f in os.listdir(trace)
               if os.path.isfile(os.path.join(trace, f)) and f != "metadata"
               and os.path.getsize(os.path.join(trace, f)) > 0]
    bad = [] if streams else ["no stream files"]
    for f in streams:
        idx = os.path.join(trace, "index", f + ".idx")
        if not os.path.exists(idx):
            bad.append("%s: no index" % f)
            continue
        header, entries = index_entries(idx)
        if header != (0xC1F1DCC1, 1, 1, 72):
            bad.append("%s: header %r" % (f, header))
        pkts, size = packets(os.path.join(trace, f))
        want = [(off,) + ctx for off, _, ctx in pkts]
        if [tuple(e) for e in entries] != want:
            bad.append("%s: index %r, packets %r" % (f, entries[:3], want[:3]))
        if sum(p[1] for p in pkts) != size:
            bad.append("%s: packets cover %d of %d bytes" % (f, sum(p[1] for p in pkts), size))
        if not padded:
            continue
        data = open(os.path.join(trace, f), "rb").read()
        for off, nbytes, ctx in pkts:
            content = ctx[1] // 8
            if nbytes % PAGE or content > nbytes or nbytes - content >= PAGE:
                bad.append("%s: packet at %d: %d bytes of content in %d" % (f, off, content, nbytes))
            elif data[off + content:off + nbytes].strip(b"\0"):
                bad.append("%s: packet at %d: padding is not zeroes" % (f, off))
    return bad


def blocks_past_end(trace):
    """The stream files of trace that hold disk blocks past their end (ustd
    reserves them ahead on ext4 and must give back what was not written),
    with their size and bytes allocated."""
    held = {}
    for f in os.listdir(trace):
        path = os.path.join(trace, f)
        if os.path.isfile(path) and f != "metadata":
            st = os.stat(path)
            if st.st_blocks * 512 > st.st_size + PAGE:
                held[f] = (st.st_size, st.st_blocks * 512)
    return held


def ctl_request(cmd, *args):
    payload = b"".join(a.encode() + b"\0" for a in args)
    code = CTL_CMDS[cmd] if isinstance(cmd, str) else cmd
    return CTL_HEADER.pack(CTL_MAGIC, CTL_VERSION, code, 0, len(args), len(payload), 0) + payload


def ctl_read_reply(sock):
    """(status, [strings]) or None when the connection ended first."""
    def read(n):
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                return None
            data += chunk
        return data
    hdr = read(CTL_HEADER.size)
    if hdr is None:
        return None
    _, _, _, status, nr, plen, _ = CTL_HEADER.unpack(hdr)
    body = read(plen) if plen else b""
    if body is None:
        return None
    return status, [x.decode() for x in body.split(b"\0")[:-1]]


def ctl_call(path, data, timeout=10, hang_up=False):
    """Sends raw bytes on a fresh connection, returns the reply or None.
    hang_up: says it has nothing more to send (a half message stays half)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(path)
        s.sendall(data)
        if hang_up:
            s.shutdown(socket.SHUT_WR)
        return ctl_read_reply(s)
    finally:
        s.close()


def stream_discarded(path):
    """{stream file: events_discarded of its last packet} of a trace (the
    count is cumulative per stream)."""
    found = {}
    for name in os.listdir(path):
        f = os.path.join(path, name)
        if name == "metadata" or not os.path.isfile(f):
            continue
        pkts = packets(f)[0]
        if pkts:
            found[name] = pkts[-1][2][4]
    return found


def context_discarded(path):
    """events_discarded of the last packet of each stream file, summed over
    the trace's streams."""
    return sum(stream_discarded(path).values())


# An archived chunk's name: BEGIN-END-N (manual 4.2).
_CHUNK_RE = re.compile(r"\d{8}T\d{6}[+-]\d{4}-\d{8}T\d{6}[+-]\d{4}-(\d+)$")


def archived_chunks(sdir):
    """The chunks archived under sdir/archives, in the order of their number."""
    adir = os.path.join(sdir, "archives")
    found = [(int(m.group(1)), os.path.join(adir, n)) for n in os.listdir(adir)
             for m in [_CHUNK_RE.fullmatch(n)] if m] if os.path.isdir(adir) else []
    return [p for _, p in sorted(found)]


def stream_bytes(path):
    """The bytes of the stream files under path (metadata and indexes left out)."""
    return sum(os.path.getsize(os.path.join(dp, f)) for dp, _, files in os.walk(path)
               for f in files if f != "metadata" and not f.endswith(".idx"))


def session_dir(out, name):
    """The directory of session name, out/NAME-YYYYMMDD-HHMMSS, or None."""
    dirs = [d for d in os.listdir(out) if re.fullmatch(re.escape(name) + r"-\d{8}-\d{6}", d)]
    return os.path.join(out, dirs[0]) if len(dirs) == 1 else None


def flood_one_cpu(t, ws, events, done_label, **env):
    """tests/apps/flood: one thread's events, the process pinned to one CPU
    (one stream: a thread the scheduler moves splits its events over two),
    run until done. The process waits for its stdin to close to exit."""
    cpu = min(os.sched_getaffinity(0))
    proc = subprocess.Popen([app("flood"), "1", str(events)], env=ws.env(**env),
                            preexec_fn=lambda: os.sched_setaffinity(0, {cpu}),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    ws.daemons.append(proc)
    t.eq(proc.stdout.readline().strip(), "ready", "flood program ready")
    proc.stdin.write("go\n")
    proc.stdin.flush()
    t.eq(proc.stdout.readline().strip(), "done", done_label)
    return proc


def flood_trace(t, ws, label, threads, per_thread, stop_ustd, **env):
    """tests/apps/flood: threads x per_thread numbered events at full
    speed into a ustd --stats of its own, stopped (SIGSTOP) for the whole
    flood when stop_ustd. Checks that every event is in the trace once and
    in order or counted as discarded, the counts agreeing exactly as
    babeltrace2 reports them, as the packet contexts carry them and as
    ustd --stats says; returns the discarded count (None: no trace)."""
    emitted = threads * per_thread
    out = os.path.join(ws.root, label)
    os.mkdir(out)
    ustd = VerboseUstd(ws, out, ["--stats"])
    proc = subprocess.Popen([app("flood"), str(threads), str(per_thread)],
                            env=ws.env(UST_TRACE=1, UST_AUTOPROBE="ust:flood", **env),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    ws.daemons.append(proc)
    t.eq(proc.stdout.readline().strip(), "ready", "%s: flood program ready" % label)
    if stop_ustd:
        ustd.proc.send_signal(signal.SIGSTOP)
    proc.stdin.write("go\n")
    proc.stdin.flush()
    t.eq(proc.stdout.readline().strip(), "done", "%s: flood done" % label)
    if stop_ustd:
        ustd.proc.send_signal(signal.SIGCONT)
    proc.stdin.close()
    t.eq(proc.wait(timeout=120), 0, "%s: program exits 0" % label)
    stats = ustd.wait_line(r"drain of flood\[\d+\]: (\d+) packets, (\d+) events discarded")
    ustd.stop()
    dirs = [d for d, _, files in os.walk(out) if "metadata" in files]
    t.eq(len(dirs), 1, "%s: one trace" % label)
    if len(dirs) != 1:
        return None
    # babeltrace2's text, not its Python bindings: about ten times faster.
    rc, text, err = babeltrace_text(dirs[0])
    t.eq(rc, 0, "%s: babeltrace2 reads the trace" % label)
    events = [(int(m.group(1)), int(m.group(2)))
              for m in re.finditer(r"ust:flood: .*\{ thread = (\d+), seq = (\d+) \}", text)]
    discarded = sum(int(n) for n in re.findall(r"[Tt]racer discarded (\d+) events", err))
    t.diag("%s: written %d, discarded %d of %d" % (label, len(events), discarded, emitted))
    t.eq(len(events) + discarded, emitted, "%s: written + discarded == emitted" % label)
    t.eq(context_discarded(dirs[0]), discarded,
         "%s: the packet contexts count what babeltrace2 reports" % label)
    t.ok(stats is not None and int(stats.group(2)) == discarded,
         "%s: ustd --stats counts the same" % label, stats.group(0) if stats else ustd.seen)
    seqs = {}
    for thread, seq in events:
        seqs.setdefault(thread, []).append(seq)
    t.ok(all(all(a < b for a, b in zip(s, s[1:])) for s in seqs.values()) and
         set(seqs) <= set(range(threads)) and
         all(0 <= s[0] and s[-1] < per_thread for s in seqs.values()),
         "%s: each thread's events once and in order" % label)
    return discarded
