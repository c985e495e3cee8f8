# SPDX-License-Identifier: GPL-2.0-only
"""Many threads tracing at once on 2 CPUs: every event of every thread
recorded once, in order per thread, nothing discarded with default buffers."""

from ustest import Tap, Workspace, app, babeltrace_check, read_trace

THREADS, PER = 8, 20000
t = Tap()
ws = Workspace()
# Buffers that hold everything: zero loss must not depend on scheduling.
res = ws.usttrace(["--subbuf-size", "1048576", "--subbuf-num", "8", app("threads"), str(THREADS), str(PER)])
t.eq(res.returncode, 0, "usttrace and program succeed")
dirs = ws.trace_dirs()
t.eq(len(dirs), 1, "one trace")
ok, err = babeltrace_check(dirs[0] if dirs else ws.out)
t.ok(ok, "babeltrace2 reads it cleanly", err)
events, discarded = read_trace(dirs[0] if dirs else ws.out)
t.eq(discarded, 0, "nothing discarded")
t.eq(len(events), THREADS * PER, "every event recorded")
seqs = {}
for e in events:
    seqs.setdefault(e.fields["thread"], []).append(e.fields["seq"])
t.ok(all(seqs.get(th) == list(range(PER)) for th in range(THREADS)),
     "each thread's events complete and in order",
     {th: (len(v), v[:5]) for th, v in seqs.items()})
t.done()
