# SPDX-License-Identifier: GPL-2.0-only
"""Where a traced program's buffer memory comes from: the buffers of the
CPUs the program may run on are in memory a moment after tracing starts
(made by the listener thread, or at once where there is none), so the
event path takes no page fault on its first pass over the ring; the
buffers of the other CPUs take nothing until a thread runs there
(libust/channel.c). Read from the program's own /proc/PID/smaps."""

import os
import re

from ustest import Tap, Workspace, read_trace, wait_for

PAGE = os.sysconf("SC_PAGE_SIZE")
SUBBUF_SIZE, SUBBUF_NUM = 65536, 4


def ticked(pid):
    """Whether a thread of the ticker other than its main one sleeps in
    clock_nanosleep (syscall 230), which it does only after its first tick:
    stopped before, it would exit without one on a loaded machine."""
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/syscall" % (pid, tid)) as f:
                nr = f.read().split()[0]
        except (OSError, IndexError):
            continue
        if int(tid) != pid and nr == "230":
            return True
    return False


def buffer_rss(pid):
    """Rss and size in bytes of each of the program's ust buffer mappings,
    by CPU, for channel "ust" (memfd ust-CHANNEL-CPU)."""
    found, cur = {}, None
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s+(.*)$", line)
            if m:
                name = re.match(r"/memfd:ust-ust-(\d+)", m.group(3))
                cur = int(name.group(1)) if name else None
                if cur is not None:
                    found[cur] = [0, int(m.group(2), 16) - int(m.group(1), 16)]
            elif cur is not None and line.startswith("Rss:"):
                found[cur][0] = int(line.split()[1]) * 1024
    return found


t = Tap()
ws = Workspace()
try:
    cpus = sorted(os.sched_getaffinity(0))
    ws.start_ustd()
    # Pinned to one CPU before exec: that CPU's buffer is made at start,
    # every other one left alone. A tick every 100 ms writes a few events.
    first = cpus[0]
    proc = ws.start_app("ticker", ["-i", "100000"], UST_TRACE=1,
                        UST_SUBBUF_SIZE=SUBBUF_SIZE, UST_SUBBUF_NUM=SUBBUF_NUM,
                        preexec_fn=lambda: os.sched_setaffinity(0, {first}))
    ring = SUBBUF_SIZE * SUBBUF_NUM
    # Its pages are made by the listener thread, in the background, once
    # main() runs (manual 12.10): all of them within a moment, none by the
    # writers' page faults over a whole pass of the ring.
    wait_for(lambda: (lambda b: first in b and b[first][0] == b[first][1])(
        buffer_rss(proc.pid)), timeout=5)
    bufs = buffer_rss(proc.pid)
    t.ok(first in bufs and bufs[first][1] >= ring,
         "the program maps a buffer for CPU %d" % first, bufs)
    t.ok(first in bufs and bufs[first][0] == bufs[first][1],
         "the buffer of the CPU it may run on is all in memory within 5 s of the start, "
         "before the ticks fill a sub-buffer (%d of %d bytes)" % tuple(bufs.get(first, (0, 0))))
    others = {c: v for c, v in bufs.items() if c != first}
    if others:
        t.ok(all(rss <= PAGE for rss, _ in others.values()),
             "the buffers of the %d other CPUs hold one page each at most" % len(others),
             others)
    else:
        t.ok(True, "other CPUs' buffers # SKIP one CPU here")
    wait_for(lambda: ticked(proc.pid), timeout=30)
    out, err = ws.stop_app(proc)
    events, discarded = read_trace(ws.out)
    t.ok(any(e.name == "ust:tick" for e in events) and discarded == 0,
         "the trace holds its ticks", err)

    # The default depth (libustcomm/shm_layout.h): 32 sub-buffers of
    # 256 KiB for a channel of one or two buffers in all, 16 for more
    # (more possible CPUs, or thread buffers beside them); read from the
    # mappings' sizes, a page of control data before the sub-buffers. A
    # channel set with its size only keeps that depth, and save-session
    # says the depth it has (it said 32 beside thread buffers).
    ncpus = os.sysconf("SC_NPROCESSORS_CONF")
    for label, env, nbufs in (("per-CPU buffers alone", {}, ncpus),
                              ("with 2 thread buffers", {"UST_THREAD_BUFFERS": "2"}, ncpus + 2)):
        proc = ws.start_app("ticker", ["-i", "100000"], UST_TRACE=1, UST_CHANNELS="ust:256k:",
                            **env)
        wait_for(lambda: ncpus - 1 in buffer_rss(proc.pid), timeout=5)
        sizes = sorted(set(size for _, size in buffer_rss(proc.pid).values()))
        saved = os.path.join(ws.root, "saved-%d.xml" % nbufs)
        res = ws.ustctl(["save-session", proc.pid, saved])
        xml = open(saved).read() if res.returncode == 0 else res.stderr
        ws.stop_app(proc)
        num = 32 if nbufs <= 2 else 16
        t.eq(sizes, [PAGE + 256 * 1024 * num],
             "default rings, %s (%d buffers in the channel): %d x 256 KiB each"
             % (label, nbufs, num))
        t.ok('<channel name="ust" subbuf-size="256k" subbuf-num="%d"/>' % num in xml,
             "save-session, %s: the channel's depth as it is, %d" % (label, num), xml)
finally:
    ws.cleanup()
t.done()
