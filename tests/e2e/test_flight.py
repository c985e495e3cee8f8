# SPDX-License-Identifier: GPL-2.0-only
"""Flight recorder (UST_OVERWRITE=1): the buffers keep the most recent
events and ustd writes them only at exit, on a snapshot request, or when
the program dies. Each time the trace is readable and holds the newest
events without a hole, up to the last one."""

import os
import signal
import struct
import subprocess
import time

from ustest import (Tap, Workspace, app, babeltrace_check, blocks_past_end, ctl_call,
                    ctl_request, read_trace, stream_problems)

SNAPSHOT = 18
t = Tap()
ws = Workspace()
ustd = ws.start_ustd()
CPU = min(os.sched_getaffinity(0))
SMALL = dict(UST_TRACE=1, UST_OVERWRITE=1, UST_SUBBUF_SIZE=4096, UST_SUBBUF_NUM=4)


def one_cpu():
    # One stream: the newest events are then all in one ring, in order.
    os.sched_setaffinity(0, {CPU})


def seqs_of(path, name, field="seq"):
    events, _ = read_trace(path)
    return [e.fields[field] for e in events if e.name == name]


def contiguous(seqs):
    return bool(seqs) and seqs == list(range(seqs[0], seqs[0] + len(seqs)))


def trace_of(prefix):
    found = [d for d in ws.trace_dirs() if os.path.basename(d).startswith(prefix)
             and "-snapshot-" not in d]
    return found[-1] if found else None


def wait_file_growth(path, timeout=10):
    end = time.time() + timeout
    while time.time() < end:
        if path and any(os.path.getsize(os.path.join(path, f)) > 0
                        for f in os.listdir(path)
                        if f != "metadata" and os.path.isfile(os.path.join(path, f))):
            return True
        time.sleep(0.05)
    return False


# 1. Normal exit: far more than the ring holds, the newest kept.
N = 200000
res = subprocess.run([app("burst"), str(N)], env=ws.env(UST_AUTOPROBE=1, **SMALL),
                     capture_output=True, text=True, timeout=60, preexec_fn=one_cpu)
t.eq(res.returncode, 0, "exit: the program writes %d events and exits" % N)
path = trace_of("burst-")
ok, err = babeltrace_check(path) if path else (False, "no trace")
t.ok(ok, "exit: babeltrace2 reads the flight recorder's trace", err)
seqs = seqs_of(path, "ust:burst") if ok else []
t.diag("exit: %d events kept, seq %s..%s" % (len(seqs), seqs[:1], seqs[-1:]))
t.ok(contiguous(seqs) and seqs[-1] == N - 1,
     "exit: the most recent events, without a hole, up to the last")
# 57-byte events: 70 in each full packet; the last packet was flushed.
t.ok(3 * 70 <= len(seqs) <= 4 * 70, "exit: one ring's worth, every complete packet (%d events)"
     % len(seqs))

# 2. Snapshots of a running program: twice, newer the second time.
proc = ws.start_app("ticker", ["-i", "50"], UST_AUTOPROBE="ust:tick", preexec_fn=one_cpu,
                    **SMALL)
sock = ws.app_socket(proc.pid)
snapdir = os.path.join(ws.root, "snaps")
time.sleep(0.5)
last = -1
for i in (1, 2):
    reply = ctl_call(sock, ctl_request(SNAPSHOT, "", snapdir), timeout=20)
    status, strings = reply if reply else (None, [])
    if not t.ok(status == 0 and strings, "snapshot %d: answered with a directory" % i, reply):
        continue
    snap = strings[0]
    t.ok(snap.startswith(snapdir + "/ticker-") and snap.endswith("-snapshot-%d" % i),
         "snapshot %d: %s, under the requested directory, numbered" % (i, snap))
    ok, err = babeltrace_check(snap)
    t.ok(ok, "snapshot %d: babeltrace2 reads it" % i, err)
    bad = stream_problems(snap, padded=True)
    t.ok(not bad and not blocks_past_end(snap),
         "snapshot %d: packets indexed, padded to whole pages, no blocks held past the end" % i,
         "\n".join(bad) + repr(blocks_past_end(snap)))
    seqs = seqs_of(snap, "ust:tick") if ok else []
    t.diag("snapshot %d: %d events, seq %s..%s" % (i, len(seqs), seqs[:1], seqs[-1:]))
    t.ok(contiguous(seqs) and len(seqs) > 50,
         "snapshot %d: recent events without a hole" % i)
    t.ok(seqs and seqs[-1] > last, "snapshot %d: newer than the one before" % i)
    last = seqs[-1] if seqs else last
    time.sleep(0.3)

# 3. A directory that cannot be created: a clear error, tracing goes on.
blocker = os.path.join(ws.root, "a-file")
open(blocker, "w").close()
reply = ctl_call(sock, ctl_request(SNAPSHOT, "", os.path.join(blocker, "snaps")), timeout=20)
status, strings = reply if reply else (None, [])
t.ok(status is not None and status < 0 and strings and "cannot create" in strings[0]
     and "Not a directory" in strings[0],
     "snapshot into an impossible directory: refused with the reason", reply)
t.diag("error: %s" % (strings[0] if strings else reply))
reply = ctl_call(sock, ctl_request(SNAPSHOT, "", ""), timeout=20)
status, strings = reply if reply else (None, [])
ok = status == 0 and strings and strings[0].startswith(ws.out + "/")
t.ok(ok, "then a snapshot into ustd's output directory works", reply)
seqs = seqs_of(strings[0], "ust:tick") if ok else []
t.ok(contiguous(seqs) and seqs[-1] > last, "tracing went on meanwhile")
out, _ = ws.stop_app(proc)
t.eq(proc.returncode, 0, "the program ends normally")
path = trace_of("ticker-")
ok, err = babeltrace_check(path) if path else (False, "no trace")
t.ok(ok, "and its trace at exit is readable", err)

# 4. SIGKILL: the last contents are rescued.
state = os.path.join(ws.root, "state")
proc = subprocess.Popen([app("crasher"), "1", state, "wait", "0", "20"],
                        env=ws.env(UST_AUTOPROBE=1, **SMALL), stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, text=True, preexec_fn=one_cpu)
ws.daemons.append(proc)
t.eq(proc.stdout.readline().strip(), "ready", "kill: crasher runs")
time.sleep(0.4)
proc.send_signal(signal.SIGKILL)
proc.wait()
with open(state, "rb") as f:
    committed = struct.unpack("<Q", f.read(8))[0]
path = trace_of("crasher-")
t.ok(wait_file_growth(path), "kill: ustd wrote the ring when the program died")
time.sleep(0.2)
ok, err = babeltrace_check(path) if path else (False, "no trace")
t.ok(ok, "kill: babeltrace2 reads the rescued trace", err)
seqs = seqs_of(path, "ust:crash_event") if ok else []
t.diag("kill: committed %d, trace has %d events, seq %s..%s" %
       (committed, len(seqs), seqs[:1], seqs[-1:]))
t.ok(contiguous(seqs) and seqs[-1] in (committed - 1, committed) and len(seqs) > 50,
     "kill: the most recent events, without a hole, up to the last committed")
t.ok(ustd.poll() is None, "ustd is still serving")
t.done()
