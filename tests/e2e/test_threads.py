# SPDX-License-Identifier: GPL-2.0-only
"""Many threads tracing at once on 2 CPUs: every event of every thread
recorded once, in order per thread, nothing discarded with default buffers;
also through thread buffers (libust/thread_buffer.h), fewer of them than
threads: the threads that find none free write the per-CPU buffers beside
them, and a thread's buffer goes to the next when it exits."""

import os

from ustest import Tap, Workspace, app, babeltrace_check, read_trace_ints

THREADS, PER = 8, 20000
# The event path's inline case needs the rseq area and the TSC; without
# either it takes libust's general one (libust/event.c, ring_buffer.h).
# Thread buffers: 4 for 8 threads, and with the monotonic clock, which
# takes their general case for every event; rings of 4 x 16 KiB, which
# each thread's events go round several times (so packets switch), waited
# for rather than discarded when full.
BIG = ["--subbuf-size", "1048576", "--subbuf-num", "8"]
THREAD_BUFFERS = ["--subbuf-size", "16384", "--subbuf-num", "4", "--blocking-timeout", "inf",
                  "--thread-buffers", "4"]
RUNS = [("", BIG, {}),
        (" (no rseq area)", BIG, {"GLIBC_TUNABLES": "glibc.pthread.rseq=0"}),
        (" (monotonic clock)", BIG, {"UST_CLOCK": "monotonic"}),
        (" (4 thread buffers)", THREAD_BUFFERS, {}),
        (" (4 thread buffers, monotonic clock)", THREAD_BUFFERS, {"UST_CLOCK": "monotonic"})]
NCPUS = os.sysconf("SC_NPROCESSORS_CONF")


def streams_written(trace):
    """{stream number: bytes} of the trace's stream files of channel ust."""
    out = {}
    for f in os.listdir(trace):
        if f.startswith("ust_") and f[4:].isdigit():
            out[int(f[4:])] = os.path.getsize(os.path.join(trace, f))
    return out


t = Tap()
for label, args, env in RUNS:
    ws = Workspace()
    # Buffers that hold everything, or waited for: zero loss must not
    # depend on scheduling.
    res = ws.usttrace(args + [app("threads"), str(THREADS), str(PER)], **env)
    t.eq(res.returncode, 0, "usttrace and program succeed" + label)
    dirs = ws.trace_dirs()
    t.eq(len(dirs), 1, "one trace" + label)
    ok, err = babeltrace_check(dirs[0] if dirs else ws.out)
    t.ok(ok, "babeltrace2 reads it cleanly" + label, err)
    events, discarded = read_trace_ints(dirs[0] if dirs else ws.out)
    t.eq(discarded, 0, "nothing discarded" + label)
    t.eq(len(events), THREADS * PER, "every event recorded" + label)
    seqs = {}
    for e in events:
        seqs.setdefault(e.fields["thread"], []).append(e.fields["seq"])
    t.ok(all(seqs.get(th) == list(range(PER)) for th in range(THREADS)),
         "each thread's events complete and in order" + label,
         {th: (len(v), v[:5]) for th, v in seqs.items()})
    written = streams_written(dirs[0]) if dirs else {}
    if args is THREAD_BUFFERS:
        extra = {n: b for n, b in written.items() if n >= NCPUS}
        t.ok(sorted(extra) == list(range(NCPUS, NCPUS + 4)),
             "4 thread-buffer streams after the %d per-CPU ones%s" % (NCPUS, label), written)
        t.ok(any(b > 0 for b in extra.values()),
             "the events went to thread buffers (given back at each thread's exit, "
             "taken again by the next)" + label, written)
    else:
        t.ok(written and max(written) < NCPUS, "per-CPU streams only" + label, written)
    ws.cleanup()
t.done()
