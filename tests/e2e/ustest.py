# SPDX-License-Identifier: GPL-2.0-only
"""Shared helpers of the end-to-end tests: TAP output, private directories,
running usttrace/ustd on the test programs, and reading traces back with
babeltrace2 (the command for validity, its Python bindings for values)."""

import atexit
import os
import shutil
import signal
import subprocess
import sys
import tempfile

import bt2

TOP_BUILD = os.environ.get("top_builddir", os.getcwd())
TOP_SRC = os.environ.get("top_srcdir", TOP_BUILD)
BABELTRACE2 = os.environ.get("BABELTRACE2") or "babeltrace2"
USTTRACE = os.path.join(TOP_BUILD, "usttrace", "usttrace")
USTD = os.path.join(TOP_BUILD, "ustd", "ustd")


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
                    "UST_SUBBUF_SIZE", "UST_SUBBUF_NUM", "UST_OVERWRITE"):
            env.pop(var, None)
        env["UST_RUNDIR"] = self.rundir
        env["UST_USTD"] = USTD
        env["TZ"] = "UTC"
        env.update({k: str(v) for k, v in extra.items()})
        return env

    def usttrace(self, args, timeout=120, **extra):
        return subprocess.run([USTTRACE, "-o", self.out] + list(args),
                              env=self.env(**extra), capture_output=True,
                              text=True, timeout=timeout)

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


def babeltrace_check(path):
    """The reference reader's verdict: (ok, stderr)."""
    res = subprocess.run([BABELTRACE2, path, "-o", "dummy"], capture_output=True,
                         text=True, timeout=120, env=dict(os.environ, TZ="UTC"))
    bad = [l for l in res.stderr.splitlines() if " E " in l]
    return res.returncode == 0 and not bad, res.stderr


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
        self.fields = _value(ev.payload_field)
        self.stream = ev.stream.name
        self.packet_context = _value(ev.packet.context_field) if ev.packet.context_field is not None else {}

    def __repr__(self):
        return "%s %r" % (self.name, self.fields)


def read_trace(path):
    """Every event of the trace(s) under path, merged by time, and the total
    count of events the tracer reported as discarded."""
    events, discarded = [], 0
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is bt2._EventMessageConst:
            events.append(Event(msg))
        elif type(msg) is bt2._DiscardedEventsMessageConst:
            discarded += msg.count or 0
    return events, discarded
