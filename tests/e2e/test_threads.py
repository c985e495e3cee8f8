# SPDX-License-Identifier: GPL-2.0-only
"""Many threads tracing at once on 2 CPUs: every event of every thread
recorded once, in order per thread, nothing discarded with default buffers."""

from ustest import Tap, Workspace, app, babeltrace_check, read_trace_ints

THREADS, PER = 8, 20000
# The event path's inline case needs the rseq area and the TSC; without
# either it takes libust's general one (libust/event.c, ring_buffer.h).
RUNS = [("", {}),
        (" (no rseq area)", {"GLIBC_TUNABLES": "glibc.pthread.rseq=0"}),
        (" (monotonic clock)", {"UST_CLOCK": "monotonic"})]
t = Tap()
for label, env in RUNS:
    ws = Workspace()
    # Buffers that hold everything: zero loss must not depend on scheduling.
    res = ws.usttrace(["--subbuf-size", "1048576", "--subbuf-num", "8", app("threads"),
                       str(THREADS), str(PER)], **env)
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
    ws.cleanup()
t.done()
