# SPDX-License-Identifier: GPL-2.0-only
"""A program that ends while no ustd runs leaves its trace to the next one.

ustd is SIGKILLed under a traced program, which records on and exits:
its buffers are kept in <rundir>/orphans, and a ustd started afterwards
writes them as a trace directory of their own, with every event the
program committed and the dead ustd had not written, none twice, then
deletes the orphan. Where nothing can be kept (a full run directory),
the program says on stderr how many events are lost."""

import os
import re
import signal
import time

import bt2

from ustest import Tap, Workspace, babeltrace_check, small_tmpfs, unmount, wait_for

t = Tap()


def ticks(path):
    """[tick numbers] of thread 0 (with repeats) and the discarded count."""
    found, discarded = [], 0
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is bt2._EventMessageConst and msg.event.name == "ust:tick":
            found.append(int(msg.event.payload_field["seq"]))
        elif type(msg) is bt2._DiscardedEventsMessageConst:
            discarded += msg.count or 0
    return found, discarded


def emitted(out):
    m = re.search(r"emitted 0 (\d+)", out)
    return int(m.group(1)) if m else -1


def orphan_files(ws):
    d = os.path.join(ws.rundir, "orphans")
    return sorted(os.listdir(d)) if os.path.isdir(d) else []


def orphaned_ticker(ws, **env):
    """A ticker traced by a ustd that writes a few packets and is then
    SIGKILLed; it ticks on for a second and exits. (its stdout, stderr,
    the dead ustd's directories)"""
    ustd = ws.start_ustd()
    # 4 KiB packets fill in about 0.5 s; a 64 KiB ring holds 8 s.
    ticker = ws.start_app("ticker", ["-i", "2000"], UST_TRACE=1, UST_AUTOPROBE="ust:tick",
                          UST_SUBBUF_SIZE=4096, UST_SUBBUF_NUM=16, **env)
    wait_for(lambda: len(ws.trace_dirs()) == 1)
    time.sleep(1.5)
    ustd.send_signal(signal.SIGKILL)
    ustd.wait()
    time.sleep(1)
    out, err = ws.stop_app(ticker)
    t.eq(ticker.returncode, 0, "the program exits normally after its ustd died")
    return out, err, ws.trace_dirs()


def thread_stream_bytes(path):
    """Bytes in the trace's streams of the channel ust beyond the per-CPU
    ones (ust_<N> with N at least the CPUs configured): thread buffers."""
    cpus = os.sysconf("SC_NPROCESSORS_CONF")
    return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path)
               if re.fullmatch(r"ust_(\d+)", f) and int(f[4:]) >= cpus)


def kept_then_written(label, **env):
    """Kept, then written by the next ustd."""
    ws = Workspace()
    out, err, first = orphaned_ticker(ws, **env)
    n = emitted(out)
    files = orphan_files(ws)
    t.ok(len([f for f in files if not f.startswith(".")]) == 1,
         "%s: the program left one orphan" % label, files)
    if files:
        st = os.stat(os.path.join(ws.rundir, "orphans", files[0]))
        t.eq((st.st_mode & 0o777, os.stat(os.path.join(ws.rundir, "orphans")).st_mode & 0o777),
             (0o600, 0o700), "%s: the orphan is 0600 in a 0700 directory" % label)
    ustd2 = ws.start_ustd()
    second = [d for d in ws.trace_dirs() if d not in first]
    t.ok(len(second) == 1, "%s: the next ustd writes the orphan as a trace directory" % label,
         ws.trace_dirs())
    t.eq(orphan_files(ws), [], "%s: and deletes the orphan" % label)
    ustd2.send_signal(signal.SIGTERM)
    ustd2.wait(timeout=30)
    if not (first and second):
        t.ok(False, "%s: no trace to check" % label, ws.trace_dirs())
        return
    ok, e = babeltrace_check(second[0])
    t.ok(ok, "%s: the orphan's trace reads cleanly" % label, e)
    old, old_discarded = ticks(first[0])
    new, discarded = ticks(second[0])
    t.ok(len(old) > 0 and len(new) > 0, "%s: the dead ustd wrote %d ticks, the orphan holds %d of %d"
         % (label, len(old), len(new), n))
    t.eq(len(new), len(set(new)), "%s: none twice in it" % label)
    t.eq(set(old) & set(new), set(), "%s: none also in the dead ustd's directory" % label)
    t.eq((sorted(old + new), old_discarded + discarded), (list(range(n)), 0),
         "%s: every tick the program emitted is in one of the two directories" % label)
    if env.get("UST_THREAD_BUFFERS"):
        t.ok(thread_stream_bytes(second[0]) > 0,
             "%s: the orphan's ticks are in a thread buffer's stream" % label)


kept_then_written("per-CPU buffers")
kept_then_written("thread buffers", UST_THREAD_BUFFERS="ust:2")

# Nothing can be kept: the loss is counted and said.
ws = Workspace()
mnt, why = small_tmpfs("256k")
if not mnt:
    t.ok(False, "a tmpfs for a full run directory (the tests run as root)", why)
else:
    ws.rundir = mnt
    out, err, first = orphaned_ticker(ws)
    n = emitted(out)
    m = re.search(r"ustd is gone: (\d+) events of trace (\S+) are lost", err)
    t.ok(m, "the program says on stderr how many events it lost", err)
    t.eq(len(re.findall("ustd is gone", err)), 1, "once")
    old, old_discarded = ticks(first[0]) if first else ([], 0)
    t.eq(int(m.group(1)) if m else -1, n - len(old) + old_discarded,
         "the count is every tick the dead ustd did not write (%d emitted, %d written)"
         % (n, len(old)))
    t.eq(orphan_files(ws), [], "no partial orphan is left")
    for proc in ws.daemons:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    why = unmount(mnt)
    if why:
        t.diag(why)
t.done()
