# SPDX-License-Identifier: GPL-2.0-only
"""A library loaded with dlopen() while tracing: its markers are enabled at
once by pattern, a marker name it shares with the program is one event
description with both sites firing, and dlclose is safe."""

import os

from ustest import TOP_BUILD, Tap, Workspace, app, babeltrace_check, read_trace

LIB = os.path.join(TOP_BUILD, "tests", "apps", ".libs", "libdupmark.so")
t = Tap()
ws = Workspace()
res = ws.usttrace([app("dlopen_main"), LIB])
t.eq(res.returncode, 0, "program ran", )
dirs = ws.trace_dirs()
path = dirs[0] if dirs else ws.out
ok, err = babeltrace_check(path)
t.ok(ok, "babeltrace2 reads the trace", err)
events, _ = read_trace(path)
t.eq([(e.name, e.fields) for e in events],
     [("ust:dup", {"from": "main"}), ("ust:dup", {"from": "library"}),
      ("ust:late", {"value": 7}), ("ust:dup", {"from": "main-again"})],
     "both sites of ust:dup fire, the late library's marker is recorded")
meta = open(os.path.join(path, "metadata")).read() if dirs else ""
t.eq(meta.count('name = "ust:dup";'), 1, "one event description for the duplicate name")
t.eq(meta.count('name = "ust:late";'), 1, "the late event was appended to the metadata")
t.done()
