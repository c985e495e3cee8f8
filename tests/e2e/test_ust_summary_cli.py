# SPDX-License-Identifier: GPL-2.0-only
"""ust-summary on its command line: several directories, and directories
that hold no trace."""

import os
import re
import subprocess

from ustest import UST_SUMMARY, Tap, Workspace, app

t = Tap()
ws = Workspace()
for n in ("2", "3"):
    res = ws.usttrace(["-m", "ust:search_event", app("hello"), n])
    t.eq(res.returncode, 0, "usttrace hello %s" % n)
dirs = ws.trace_dirs()
t.eq(len(dirs), 2, "two traces")


def summary(args):
    return subprocess.run([UST_SUMMARY] + args, capture_output=True, text=True,
                          env=ws.env(), timeout=60)


def events(text):
    m = re.search(r"ust:search_event\s+(\d+)", text)
    return int(m.group(1)) if m else None


one = summary(dirs[:1])
t.ok(one.returncode == 0 and events(one.stdout) == 2, "one directory", one.stdout + one.stderr)
both = summary(dirs)
t.ok(both.returncode == 0 and events(both.stdout) == 5,
     "two directories are summed up as one", both.stdout + both.stderr)
xml = summary(["--mi", "xml"] + dirs)
t.ok(xml.returncode == 0 and xml.stdout.lstrip().startswith("<"), "--mi xml with two",
     xml.stdout[:500] + xml.stderr)

empty = os.path.join(ws.root, "empty")
os.mkdir(empty)
res = summary([empty])
t.eq(res.returncode, 1, "an empty directory exits 1")
t.eq(res.stderr.strip(), "ust-summary: no CTF trace in %s" % empty,
     "and says so in one line, without babeltrace2's log")
res = summary([dirs[0], empty])
t.ok(res.returncode == 1 and "no CTF trace in %s" % empty in res.stderr,
     "one empty among several names it", res.stderr)
res = summary([os.path.join(ws.root, "nonexistent")])
t.ok(res.returncode == 1 and "not a directory" in res.stderr, "a missing directory", res.stderr)
res = summary([])
t.eq(res.returncode, 2, "no directory is a usage error")
t.done()
