# SPDX-License-Identifier: GPL-2.0-only
"""usttrace as a command: marker selection, exit statuses, bad input."""

import os
import subprocess

from ustest import Tap, Workspace, app, read_trace

t = Tap()
ws = Workspace()
res = ws.usttrace(["-m", "ust:search_event", app("hello"), "3"])
events, _ = read_trace(ws.trace_dirs()[0]) if ws.trace_dirs() else ([], 0)
t.eq(sorted({e.name for e in events}), ["ust:search_event"], "-m selects one marker")
t.eq(len(events), 3, "and records each of its events")

ws2 = Workspace()
res = ws2.usttrace(["-m", "ust/tp_probe", "-m", "myprovider:*", app("hello"), "2"])
events, _ = read_trace(ws2.trace_dirs()[0]) if ws2.trace_dirs() else ([], 0)
t.eq(sorted({e.name for e in events}), ["myprovider:request_done", "ust:tp_probe"],
     "several -m, channel/name spelling and wildcards")

ws3 = Workspace()
res = ws3.usttrace(["--", "/bin/sh", "-c", "exit 3"])
t.eq(res.returncode, 3, "the program's exit status is usttrace's")
res = ws3.usttrace(["--", "/bin/sh", "-c", "kill -9 $$"])
t.eq(res.returncode, 128 + 9, "a program killed by a signal gives 128+signal")
res = ws3.usttrace(["/nonexistent/program"])
t.eq(res.returncode, 127, "a missing program gives 127")
t.ok("/nonexistent/program" in res.stderr, "and says which program", res.stderr)
res = ws3.usttrace(["--subbuf-size", "1000", app("hello")])
t.ok(res.returncode == 125 and "subbuf" in res.stderr.lower(), "a sub-buffer size that is no power of two is refused", res.stderr)
ws5 = Workspace()
res = ws5.usttrace(["--subbuf-size", "8k", "--subbuf-num", "4", app("hello"), "1"])
t.ok(res.returncode == 0 and len(ws5.trace_dirs()) == 1, "k suffix accepted", res.stderr)
res = ws3.usttrace(["--subbuf-num", "0", app("hello")])
t.ok(res.returncode == 125 and res.stderr, "a zero sub-buffer count is refused", res.stderr)
res = ws3.usttrace(["-m", "", app("hello")])
t.ok(res.returncode == 125 and "-m" in res.stderr, "an empty pattern is refused", res.stderr)
res = ws3.usttrace(["-m", "a,b", app("hello")])
t.ok(res.returncode == 125 and "," in res.stderr, "a pattern with a comma is refused", res.stderr)
res = ws3.usttrace([])
t.ok(res.returncode == 125 and res.stderr, "no program is a usage error", res.stderr)
res = ws3.usttrace(["--no-such-option", app("hello")])
t.ok(res.returncode == 125 and "no-such-option" in res.stderr, "an unknown option is named, exit 125 (usttrace's own failure)", res.stderr)

ws4 = Workspace()
env = ws4.env(UST_TRACE=1, UST_DAEMON_SOCKET=os.path.join(ws4.rundir, "nobody"))
res = subprocess.run([app("hello"), "1"], env=env, capture_output=True, text=True, timeout=60)
t.ok(res.returncode == 0 and res.stderr == "", "with no ustd the program runs untraced, silently",
     res.stderr)
env["UST_DEBUG"] = "1"
res = subprocess.run([app("hello"), "1"], env=env, capture_output=True, text=True, timeout=60)
t.ok(res.returncode == 0 and "untraced" in res.stderr, "UST_DEBUG says why it is untraced",
     res.stderr)
t.done()
