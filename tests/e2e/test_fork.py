# SPDX-License-Identifier: GPL-2.0-only
"""fork() while tracing: the child starts with none of its parent's trace
state, so the parent's trace holds exactly the parent's events."""

from ustest import Tap, Workspace, app, babeltrace_check, read_trace

N = 1000
t = Tap()
ws = Workspace()
res = ws.usttrace([app("forker"), str(N)])
t.ok(res.returncode == 0, "program and usttrace succeed", res.stderr)
dirs = ws.trace_dirs()
t.eq(len(dirs), 1, "one trace: the parent's")
path = dirs[0] if dirs else ws.out
ok, err = babeltrace_check(path)
t.ok(ok, "the parent's trace reads cleanly", err)
events, discarded = read_trace(path)
t.eq([e.name for e in events if e.name != "ust:parent"], [], "no event of the child in it")
t.eq([e.fields["seq"] for e in events], list(range(2 * N)),
     "every parent event, before and after the fork, in order")
t.eq(discarded, 0, "nothing discarded")
t.done()
