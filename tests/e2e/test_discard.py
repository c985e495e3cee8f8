# SPDX-License-Identifier: GPL-2.0-only
"""A full buffer in discard mode drops new events and counts them: what
babeltrace2 reports as discarded is exactly what is missing."""

from ustest import Tap, Workspace, app, babeltrace_text, read_trace

N = 300000
t = Tap()
ws = Workspace()
res = ws.usttrace(["--subbuf-size", "4096", "--subbuf-num", "2", app("burst"), str(N)])
t.eq(res.returncode, 0, "usttrace and program succeed")
dirs = ws.trace_dirs()
t.eq(len(dirs), 1, "one trace")
path = dirs[0] if dirs else ws.out
events, discarded = read_trace(path)
t.diag("recorded %d, discarded %d of %d" % (len(events), discarded, N))
t.ok(discarded > 0, "small buffers overflowed")
t.eq(len(events) + discarded, N, "recorded + reported discarded == emitted")
seqs = [e.fields["seq"] for e in events]
t.ok(all(a < b for a, b in zip(seqs, seqs[1:])), "kept events in order, no duplicates")
rc, _, err = babeltrace_text(path)
t.ok(rc == 0 and "discarded" in err, "babeltrace2 warns about the discarded events", err[:500])
t.done()
