#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Bounded disk, short runs: --tracefile-size/--tracefile-count on usttrace
and in UST_CHANNELS. Each stream is cut into <channel>_<cpu>_<k> files
(LTTng's names) of whole packets, only the newest N are kept, babeltrace2
reads what remains, and the events left are exactly the newest ones of the
program's numbering. The program runs pinned to one CPU so that one
stream holds one numbering, with a blocking timeout so that nothing is
discarded and the count is exact. Bad input is refused with a message."""

import os
import re
import shutil
import subprocess

import tracefile_check as tc
import ustest
from relayd import RELAYD, Relayd
from ustest import Tap, Workspace, app, read_trace_ints

t = Tap()
STRESS = app("stress")
CPU = min(os.sched_getaffinity(0))
TASKSET = shutil.which("taskset")


def emitted(stdout):
    m = re.search(r"^emitted 0 (\d+)$", stdout, re.M)
    return int(m.group(1)) if m else None


def check_trace(label, trace, size, count, packet, last):
    if not t.eq(tc.disk_problems(trace, size, count, packet), [],
                "%s: at most %s files of %d bytes per stream" % (label, count or "all", size)):
        # Unbounded, the trace may be too large to read back in time.
        t.ok(False, "%s: not read back" % label)
        return []
    t.eq(ustest.stream_problems(trace, padded=True), [],
         "%s: every file has its own index/<file>.idx matching its packets" % label)
    ok, err = tc.babeltrace_ok(trace)
    t.ok(ok, "%s: babeltrace2 reads what remains" % label, err)
    events, discarded = read_trace_ints(trace)
    events = [e for e in events if e.name == "ust:stress"]
    t.eq(discarded, 0, "%s: nothing discarded (blocking timeout)" % label)
    t.eq(tc.suffix_problems(events, "seq", last - 1), [],
         "%s: the events left are the newest, in order, none missing or doubled" % label)
    return events


# Bad input: refused before anything runs, with what is expected.
ws = Workspace()
for args, what in ((["--tracefile-count", "4"], "needs --tracefile-size"),
                   (["--tracefile-size", "100"], "from 4096"),
                   (["--tracefile-size", "1M", "--tracefile-count", "many"], "number of files"),
                   (["--tracefile-size", "1T"], "expected bytes")):
    res = ws.usttrace(args + [STRESS, "-d", "0.1"])
    t.ok(res.returncode != 0 and what in res.stderr and not ws.trace_dirs(),
         "usttrace %s refused: %s" % (" ".join(args), what), res.stderr)

# usttrace: 64 KiB files of 16 KiB packets, the newest 3 kept.
if not TASKSET:
    t.ok(True, "# SKIP taskset (util-linux) is not installed")
else:
    ws = Workspace()
    res = ws.usttrace(["--subbuf-size", "16k", "--subbuf-num", "4", "--blocking-timeout", "inf",
                       "--tracefile-size", "64k", "--tracefile-count", "3",
                       TASKSET, "-c", str(CPU), STRESS, "-d", "2"])
    n = emitted(res.stdout)
    t.ok(res.returncode == 0 and n, "usttrace --tracefile-size 64k --tracefile-count 3 ran",
         res.stderr)
    trace = ws.trace_dirs()[0]
    files = tc.stream_files(trace)
    cpu_stream = "ust_%d" % CPU
    t.eq(sorted(files.get(cpu_stream, {})), [0, 1, 2],
         "the busy stream wrapped around its 3 files, named %s_0.._2" % cpu_stream)
    events = check_trace("usttrace 64k x 3", trace, 64 << 10, 3, 16 << 10, n)
    t.ok(events and events[0].fields["seq"] > 0, "the oldest files were removed",
         events[0].fields if events else None)

    # UST_CHANNELS, a packet larger than the file size: one packet a file,
    # and with no count every file is kept, so that every event is there.
    ws = Workspace()
    ustd = ws.start_ustd()
    proc = subprocess.run([TASKSET, "-c", str(CPU), STRESS, "-d", "0.5"],
                          env=ws.env(UST_TRACE=1, UST_CHANNELS="*:16k:4@inf%4096"),
                          capture_output=True, text=True, timeout=120)
    n = emitted(proc.stdout)
    t.ok(proc.returncode == 0 and n and "error" not in proc.stderr,
         "UST_CHANNELS *:16k:4@inf%4096 accepted", proc.stderr)
    ustest.wait_for(lambda: ws.trace_dirs(), timeout=10)
    trace = ws.trace_dirs()[0]
    ustest.wait_for(lambda: any(e.fields.get("seq") == n - 1
                                for e in read_trace_ints(trace)[0][-5:]), timeout=20)
    files = tc.stream_files(trace).get(cpu_stream, {})
    per_file = [len(ustest.packets(os.path.join(trace, "%s_%d" % (cpu_stream, k)))[0])
                for k in sorted(files)]
    t.ok(len(per_file) > 3 and set(per_file) == {1},
         "a packet larger than the file size gets a file of its own", per_file)
    events = check_trace("UST_CHANNELS 4096, all kept", trace, 4096, 0, 16 << 10, n)
    t.ok(events and events[0].fields["seq"] == 0, "every event of the run is there, from the first",
         events[0].fields if events else None)

    # A bad bounded-disk part of UST_CHANNELS is said, and the trace is
    # written as if it were not there: nothing lost.
    proc = subprocess.run([STRESS, "-d", "0.1"],
                          env=ws.env(UST_TRACE=1, UST_CHANNELS="*::%100/3"),
                          capture_output=True, text=True, timeout=60)
    t.ok("UST_CHANNELS" in proc.stderr and "tracefile size '100'" in proc.stderr,
         "UST_CHANNELS with a tracefile size of 100 bytes is refused, said on stderr",
         proc.stderr)
    unbounded = lambda: [d for d in ws.trace_dirs() if os.path.exists(os.path.join(d, "ust_0"))]
    t.ok(ustest.wait_for(unbounded, timeout=10),
         "that program's trace is written unbounded, as one file per stream",
         ws.trace_dirs())
    ustd.terminate()
    ustd.wait(timeout=30)

# Streamed to lttng-relayd: relayd is told the limits with each stream
# and cuts its files the same way.
if TASKSET and RELAYD:
    ws = Workspace()
    relayd = Relayd(ws, "relay")
    res = ws.usttrace(["--relay", relayd.url, "--subbuf-size", "16k", "--subbuf-num", "4",
                       "--blocking-timeout", "inf", "--tracefile-size", "64k",
                       "--tracefile-count", "3", TASKSET, "-c", str(CPU), STRESS, "-d", "1"])
    n = emitted(res.stdout)
    t.ok(res.returncode == 0 and n, "usttrace --relay --tracefile-size 64k --tracefile-count 3",
         res.stderr)
    remote = relayd.traces("stress-")
    t.eq(len(remote), 1, "relayd holds the trace")
    trace = remote[0] if remote else ws.out
    t.eq(sorted(tc.stream_files(trace).get("ust_%d" % CPU, {})), [0, 1, 2],
         "relayd wrapped the busy stream around 3 files, named as ustd names them")
    t.eq(tc.disk_problems(trace, 64 << 10, 3, 16 << 10), [],
         "relayd's copy: at most 3 files of 64 KiB per stream")
    ok, err = tc.babeltrace_ok(trace)
    t.ok(ok, "babeltrace2 reads relayd's files", err)
    events = [e for e in read_trace_ints(trace)[0] if e.name == "ust:stress"]
    t.eq(tc.suffix_problems(events, "seq", (n or 0) - 1), [],
         "relayd's files hold the newest events, none missing or doubled")
    relayd.proc.terminate()
    relayd.proc.wait(timeout=30)
else:
    t.ok(True, "# SKIP lttng-relayd or taskset is not installed")

# ustctl set-tracefile / get-tracefile on a running program, before its
# trace is allocated; refused after, and for bad input.
ws = Workspace()
ustd = ws.start_ustd()
proc = ws.start_app("ticker", ["-i", "50"])
pid = str(proc.pid)
res = ws.ustctl(["set-tracefile", pid, "ust/8k/2"])
t.ok(res.returncode == 0 and "tracefile size 8192 bytes, count 2" in res.stdout,
     "ustctl set-tracefile PID ust/8k/2", res.stdout + res.stderr)
res = ws.ustctl(["get-tracefile", pid, "ust"])
t.eq(res.stdout.strip(), "8192/2", "get-tracefile gives SIZE/COUNT back")
res = ws.ustctl(["get-tracefile", pid, "other"])
t.eq(res.stdout.strip(), "0/0", "a channel without limits: one file, all kept")
XSD = os.path.join(ustest.TOP_SRC, "doc", "xml", "ustctl-mi.xsd")
for args in (["get-tracefile", pid, "ust"], ["set-tracefile", pid, "ust/8k/2"],
             ["set-tracefile", "999999999", "ust/8k"]):
    res = ws.ustctl(["--mi", "xml"] + args)
    valid = subprocess.run(["xmllint", "--noout", "--schema", XSD, "-"], input=res.stdout,
                           capture_output=True, text=True, timeout=60)
    t.ok(valid.returncode == 0 and (args[1] != pid or ('tracefile-size="8192"' in res.stdout and
                                                       'tracefile-count="2"' in res.stdout)),
         "--mi xml %s: valid against ustctl-mi.xsd, with the values" % args[0],
         res.stdout + valid.stderr)
for arg, what in (("ust/100", "from 4096"), ("ust/8k/2x", "COUNT"), ("ust/0/3", "needs a SIZE"),
                  ("ust", "CHANNEL/SIZE")):
    res = ws.ustctl(["set-tracefile", pid, arg])
    t.ok(res.returncode == 2 and what in res.stderr,
         "set-tracefile %s refused as bad input: %s" % (arg, what), res.stderr)
res = ustest.ctl_call(ws.app_socket(proc.pid), ustest.ctl_request("set-tracefile", "", "ust", "1M/x"))
t.ok(res[0] < 0 and "invalid tracefile count" in res[1][0],
     "the program itself refuses a bad count sent by another controller", res)
for args in (["set-subbuf-size", pid, "ust/4096"], ["enable-marker", pid, "ust:tick"],
             ["create-trace", pid], ["start-trace", pid]):
    res = ws.ustctl(args)
    t.ok(res.returncode == 0, "ustctl " + " ".join(args[:1]), res.stderr)
res = ws.ustctl(["set-tracefile", pid, "ust/1M"])
t.ok(res.returncode != 0 and "allocated" in res.stderr,
     "set-tracefile once the buffers exist is refused, saying why", res.stderr)
ustest.wait_for(lambda: any(len(f) >= 2 for s, f in tc.stream_files(ws.trace_dirs()[0]).items()
                            if s) if ws.trace_dirs() else False, timeout=20)
for args in (["stop-trace", pid], ["destroy-trace", pid]):
    ws.ustctl(args)
ws.stop_app(proc)
trace = ws.trace_dirs()[0]
t.eq(tc.disk_problems(trace, 8192, 2, 4096), [],
     "the trace of ustctl's settings: at most 2 files of 8 KiB per stream")
t.ok(any(sorted(f) == [0, 1] for s, f in tc.stream_files(trace).items() if s),
     "a stream filled both of its files", tc.stream_files(trace))
ok, err = tc.babeltrace_ok(trace)
t.ok(ok, "babeltrace2 reads it", err)
ustd.terminate()
ustd.wait(timeout=30)

t.done()
