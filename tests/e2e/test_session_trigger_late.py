# SPDX-License-Identifier: GPL-2.0-only
"""A session trigger added while a program already runs in the active
session but has not joined it yet: the session's rules match only events
of a library the program loads later (tests/apps/dlopen_late), so it
joins by itself when it loads it, after the trigger was added. ustd then
installs the session's triggers in it, once, and the library's event
fires the trigger: the firing's snapshot holds it. (Programs tracing for
the session when a trigger is added get it too: test_session_trigger.)"""

import os
import re
import signal

import ustest
from ustest import TOP_BUILD, Tap, VerboseUstd, Workspace, babeltrace_check, read_trace, wait_for

LIB = os.path.join(TOP_BUILD, "tests", "apps", ".libs", "libprobe.so")

t = Tap()
ws = Workspace()
VerboseUstd(ws, ws.out)


def ctl(*args):
    return ws.ustctl_fast([str(a) for a in args])


def triggers_of(pid, tdir):
    res = ctl("list-triggers", pid)
    return len(re.findall(r"-o %s[ ;]" % re.escape(tdir), res.stdout)) if res.returncode == 0 else -1


res = ctl("create-session", "-o", ws.out, "--overwrite", "--subbuf-size", "16k",
          "--subbuf-num", "4", "late")
t.ok(res.returncode == 0, "create-session --overwrite late", res.stderr)
sdir = ustest.session_dir(ws.out, "late")
ctl("enable-marker", "-s", "late", "libprobe:*")
ctl("start-session", "late")
proc = ws.start_app("dlopen_late", [LIB, "pause"])
mine = os.path.join(sdir, "dlopen_late-%d" % proc.pid)
t.ok(not os.path.exists(mine), "the program runs in the active session, not joined: nothing "
     "of it matches yet")

res = ctl("add-trigger", "-s", "late", "--on", "libprobe:work", "--filter", "seq == 42",
          "--snapshot")
t.ok(res.returncode == 0 and "session late: trigger 1 added" in res.stdout,
     "add-trigger -s late meanwhile", res.stdout + res.stderr)
tdir = os.path.join(sdir, "triggers", "trigger-1")
proc.send_signal(signal.SIGUSR1)
t.eq(proc.stdout.readline().strip(), "opened", "the program loads the library")
t.ok(wait_for(lambda: os.path.isdir(mine), timeout=15),
     "it joins the session by itself with the library's events")
t.ok(wait_for(lambda: triggers_of(proc.pid, tdir) == 1, timeout=15),
     "ustd installs the session's trigger in it, once", ctl("list-triggers", proc.pid).stdout)

proc.send_signal(signal.SIGUSR1)
t.eq(proc.stdout.readline().strip(), "loaded", "the library's events fired")
firing = os.path.join(tdir, "firing-1")
wait_for(lambda: os.path.isdir(firing) and os.listdir(firing), timeout=15)
ok, err = babeltrace_check(firing) if os.path.isdir(firing) else (False, "no %s" % firing)
events, _ = read_trace(firing) if ok else ([], None)
hits = [e for e in events if e.name == "libprobe:work" and e.fields["seq"] == 42]
t.ok(ok and len(hits) == 1, "libprobe:work seq 42 fires the trigger: the snapshot holds it",
     err or repr([(e.name, e.fields) for e in events]))
out, _ = ws.stop_app(proc)
t.eq(proc.returncode, 0, "the program exits 0")
ctl("destroy-session", "late")
ws.cleanup()
t.done()
