# SPDX-License-Identifier: GPL-2.0-only
"""The kernel's OOM killer never does our check: buffers larger than the
memory available are refused, in words naming the sizes and the limit,
before anything is allocated, and the program runs on (issue M).

1. In a memory cgroup of 64 MiB that the test creates (v2, or v1 where the
   memory controller is there), buffers of 128 MiB per channel through
   usttrace (refused before the program runs), UST_TRACE and ustctl: the
   program is not killed, the cgroup counts no OOM kill and its peak stays
   far below the buffers.
   usttrace counts thread buffers beside the CPUs' (--thread-buffers).
2. Outside any cgroup limit, buffers larger than MemAvailable (read from
   /proc/meminfo here) are refused too. An address-space limit guards the
   machine there: an old libust that allocated them would fail its mmap()
   instead of waking the machine's OOM killer against someone else.
3. Buffers that fit trace normally, in that same 64 MiB cgroup.
4. A program killed by SIGKILL (what the OOM killer sends) is said to be,
   with its trace rescued, not just "trace written".
"""

import os
import re
import resource
import signal
import subprocess
import time

from ustest import Tap, Workspace, app, read_trace, USTTRACE

LIMIT = 64 << 20
NCPUS = os.sysconf("SC_NPROCESSORS_CONF")

t = Tap()


def mounts():
    """(cgroup2 mount point, cgroup v1 memory mount point) from mountinfo."""
    v2 = v1 = None
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, right = line.split(" - ", 1)
            fields, after = left.split(), right.split()
            if after[0] == "cgroup2" and not v2:
                v2 = fields[4]
            elif after[0] == "cgroup" and "memory" in after[2].split(",") and not v1:
                v1 = fields[4]
    return v2, v1


def own_cgroup(v1):
    with open("/proc/self/cgroup") as f:
        for line in f:
            hier, ctrls, path = line.rstrip("\n").split(":", 2)
            if (v1 and "memory" in ctrls.split(",")) or (not v1 and hier == "0"):
                return path
    return "/"


class Cgroup:
    """A memory cgroup of its own with a limit, for one scenario."""

    def __init__(self, limit, tag):
        v2, v1 = mounts()
        self.v2 = bool(v2 and os.path.exists(os.path.join(v2, "cgroup.controllers")) and
                       "memory" in open(os.path.join(v2, "cgroup.controllers")).read().split())
        if self.v2:
            # v2 allows no process in a cgroup whose children have
            # controllers: the child goes under the root, where memory
            # can be enabled for children.
            parent = v2
            ctl = os.path.join(parent, "cgroup.subtree_control")
            if "memory" not in open(ctl).read().split():
                with open(ctl, "w") as f:
                    f.write("+memory")
        elif v1:
            parent = os.path.join(v1, own_cgroup(True).lstrip("/"))
            if not os.path.isdir(parent):
                parent = v1
        else:
            raise OSError("no memory cgroup controller mounted")
        self.path = os.path.join(parent, "ust-test-%d-%s" % (os.getpid(), tag))
        os.mkdir(self.path)
        self.write("memory.max" if self.v2 else "memory.limit_in_bytes", str(limit))

    def write(self, name, value):
        with open(os.path.join(self.path, name), "w") as f:
            f.write(value)

    def read(self, name):
        with open(os.path.join(self.path, name)) as f:
            return f.read()

    def enter(self):
        """preexec_fn: the child joins the cgroup before it executes."""
        self.write("cgroup.procs", str(os.getpid()))

    def oom_kills(self):
        text = self.read("memory.events" if self.v2 else "memory.oom_control")
        m = re.search(r"^oom_kill (\d+)", text, re.M)
        return int(m.group(1)) if m else 0

    def peak(self):
        """Its highest usage, or None where the kernel does not keep it."""
        name = "memory.peak" if self.v2 else "memory.max_usage_in_bytes"
        try:
            return int(self.read(name))
        except OSError:
            return None

    def remove(self):
        for _ in range(100):
            try:
                os.rmdir(self.path)
                return
            except OSError:
                time.sleep(0.05)


def in_cgroup(tag, nr_checks, body, allocates=False):
    """body(cg) in a fresh 64 MiB cgroup, making nr_checks checks; then no
    OOM kill there and, unless the buffers fit, nothing allocated. All
    skipped, with the reason, where no memory cgroup can be made."""
    label = "cgroup, " + tag
    try:
        cg = Cgroup(LIMIT, tag.split()[0].lower())
    except OSError as e:
        for _ in range(nr_checks + (1 if allocates else 2)):
            t.ok(True, "%s # SKIP no writable memory cgroup: %s" % (label, e))
        return
    try:
        body(cg, label)
        t.eq(cg.oom_kills(), 0, label + ": no OOM kill in the cgroup")
        if not allocates:
            low_peak(cg, label + ": nothing was allocated")
    finally:
        cg.remove()


def sized_refusal(text, size, num):
    """The refusal names the sizes: 'SIZE x NUM sub-buffers x N CPUs'."""
    return re.search(r"%s x %d sub-buffers x %d CPUs?" % (re.escape(size), num, NCPUS), text)


def low_peak(cg, desc):
    peak = cg.peak()
    if peak is None:
        t.ok(True, desc + " # SKIP the kernel keeps no peak for this cgroup")
    else:
        t.ok(peak < 24 << 20, desc + " (%.1f MiB)" % (peak / 1048576.0), peak)


def skip(n, desc, why):
    for _ in range(n):
        t.ok(True, "%s # SKIP %s" % (desc, why))


# 1. A memory cgroup of 64 MiB, buffers of 1 MiB x 64 = 64 MiB per CPU and channel.
def by_usttrace(cg, label):
    ws = Workspace()
    res = subprocess.run([USTTRACE, "-o", ws.out, "--subbuf-size", "1M", "--subbuf-num", "64",
                          app("hello"), "1"], env=ws.env(), capture_output=True, text=True,
                         timeout=120, preexec_fn=cg.enter)
    t.eq(res.returncode, 125, label + ": buffers over the limit are usttrace's own failure (exit 125)")
    t.ok(sized_refusal(res.stderr, "1 MiB", 64) and "cgroup limit 64 MiB" in res.stderr,
         label + ": the refusal names the sizes and the cgroup's limit", res.stderr)
    t.ok("iterations done" not in res.stdout and not ws.trace_dirs(),
         label + ": refused before the program runs: it never ran, no trace",
         res.stdout + res.stderr)


def by_environment(cg, label):
    ws = Workspace()
    ws.start_ustd()
    res = subprocess.run([app("hello"), "1"], capture_output=True, text=True, timeout=120,
                         env=ws.env(UST_TRACE=1, UST_SUBBUF_SIZE="1M", UST_SUBBUF_NUM=64),
                         preexec_fn=cg.enter)
    t.eq(res.returncode, 0, label + ": the program is not killed, it exits 0")
    t.ok("iterations done" in res.stdout, label + ": and it did its work", res.stdout)
    t.ok(sized_refusal(res.stderr, "1 MiB", 64) and "cgroup limit 64 MiB" in res.stderr,
         label + ": libust says why, naming the sizes and the cgroup's limit", res.stderr)


def by_ustctl(cg, label):
    ws = Workspace()
    ws.start_ustd()
    proc = ws.start_app("ticker", ["-i", "10000"], preexec_fn=cg.enter)
    steps = [ws.ustctl(args) for args in (["set-subbuf-size", proc.pid, "*/1M"],
                                          ["set-subbuf-num", proc.pid, "*/64"],
                                          ["enable-marker", proc.pid, "*"],
                                          ["create-trace", proc.pid])]
    t.ok(all(r.returncode == 0 for r in steps), label + ": settings accepted",
         "\n".join(r.stdout + r.stderr for r in steps))
    res = ws.ustctl(["start-trace", proc.pid])
    out = res.stdout + res.stderr
    t.ok(res.returncode != 0 and sized_refusal(out, "1 MiB", 64) and
         "cgroup limit 64 MiB" in out,
         label + ": start-trace fails with the sizes and the cgroup's limit", out)
    info = ws.ustctl(["info", proc.pid])
    t.ok(proc.poll() is None and "created" in info.stdout,
         label + ": the program runs on, its trace still only created",
         info.stdout + info.stderr)
    ws.stop_app(proc)
    t.eq(proc.returncode, 0, label + ": the program ends normally")


in_cgroup("usttrace", 3, by_usttrace)


# Thread buffers are buffers too: 1 MiB x 4 per CPU fits in 64 MiB, not
# with 16 thread buffers beside them. usttrace counted the CPUs only, and
# the program ran untraced once libust refused the channel.
def by_usttrace_threads(cg, label):
    ws = Workspace()
    res = subprocess.run([USTTRACE, "-o", ws.out, "--subbuf-size", "1M", "--subbuf-num", "4",
                          "--thread-buffers", "16", app("hello"), "1"], env=ws.env(),
                         capture_output=True, text=True, timeout=120, preexec_fn=cg.enter)
    t.ok(res.returncode == 125 and "iterations done" not in res.stdout and
         re.search(r"1 MiB x 4 sub-buffers x \(%d CPUs? \+ 16 thread buffers\) x 1 channel"
                   % NCPUS, res.stderr) and
         "fewer --thread-buffers" in res.stderr,
         label + ": refused before the program runs, the CPUs' and the thread buffers "
         "and what to do said", res.stdout + res.stderr)


if NCPUS <= 6:
    in_cgroup("threads, usttrace --thread-buffers 16", 1, by_usttrace_threads)
else:
    skip(3, "cgroup, usttrace --thread-buffers 16",
         "%d CPUs: 1 MiB x 4 each does not fit in the cgroup without thread buffers" % NCPUS)
in_cgroup("UST_TRACE", 3, by_environment)
in_cgroup("ustctl", 4, by_ustctl)


# 2. Larger than MemAvailable, in the test's own cgroup.
def mem_available():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return None


def guard():
    # An address-space limit far below the buffers: a libust that tried
    # to map them fails there, harming nobody. The check itself allocates
    # nothing, so it passes under it.
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


avail = mem_available()
num = 2
while avail and num <= 256 and (64 << 20) * num * NCPUS <= avail:
    num *= 2
if avail and num <= 256:
    ws = Workspace()
    res = subprocess.run([USTTRACE, "-o", ws.out, "--subbuf-size", "64M", "--subbuf-num",
                          str(num), app("hello"), "1"], env=ws.env(), capture_output=True,
                         text=True, timeout=120, preexec_fn=guard)
    t.ok(res.returncode == 125 and sized_refusal(res.stderr, "64 MiB", num) and
         "MemAvailable" in res.stderr and "iterations done" not in res.stdout,
         "MemAvailable, usttrace: 64 MiB x %d x %d CPUs refused before the program runs"
         % (num, NCPUS), res.stdout + res.stderr)
    ws.start_ustd()
    res = subprocess.run([app("hello"), "1"], capture_output=True, text=True, timeout=120,
                         env=ws.env(UST_TRACE=1, UST_SUBBUF_SIZE="64M", UST_SUBBUF_NUM=num),
                         preexec_fn=guard)
    t.ok(res.returncode == 0 and "iterations done" in res.stdout and
         sized_refusal(res.stderr, "64 MiB", num) and "MemAvailable" in res.stderr,
         "MemAvailable, UST_TRACE: refused with the sizes, the program runs and exits 0",
         res.stdout + res.stderr)
else:
    skip(2, "MemAvailable", "the largest buffers (64 MiB x 256 x %d CPUs) fit in %s bytes"
         % (NCPUS, avail))


# 3. Buffers that fit trace normally, in the 64 MiB cgroup.
def fits(cg, label):
    ws = Workspace()
    res = subprocess.run([USTTRACE, "-o", ws.out, "--subbuf-size", "64k", "--subbuf-num", "4",
                          app("hello"), "3"], env=ws.env(), capture_output=True, text=True,
                         timeout=120, preexec_fn=cg.enter)
    dirs = ws.trace_dirs()
    events, _ = read_trace(dirs[0]) if len(dirs) == 1 else ([], 0)
    t.ok(res.returncode == 0 and "exceed" not in res.stderr,
         label + ": usttrace runs the program", res.stderr)
    t.eq([e.fields["count"] for e in events if e.name == "ust:search_event"], [0, 1, 2],
         label + ": its events are read back")


in_cgroup("fits", 2, fits, allocates=True)


# 4. Killed by SIGKILL while traced: said, with the trace rescued.
ws = Workspace()
res = ws.usttrace(["/bin/sh", "-c", "(sleep 1; kill -9 $$) & exec %s -i 1000" % app("ticker")])
t.eq(res.returncode, 128 + signal.SIGKILL, "SIGKILL: usttrace exits 137")
t.ok(re.search(r"was killed by signal 9\b", res.stderr) and
     re.search(r"trace rescued to .*ticker-\d+-", res.stderr),
     "SIGKILL: usttrace says the program was killed by signal 9 and its trace rescued",
     res.stderr)
dirs = ws.trace_dirs()
events, _ = read_trace(dirs[0]) if len(dirs) == 1 else ([], 0)
t.ok(any(e.name == "ust:tick" for e in events), "SIGKILL: the rescued trace reads back",
     "%d events in %s" % (len(events), dirs))
t.done()
