# SPDX-License-Identifier: GPL-2.0-only
"""A writer waiting for room with a blocking timeout of "inf" never waits
for a trace that ustd stopped: once ustd says the trace is stopped (here
its directory was removed, and the bounded disk's next file cannot be
created), nobody frees room any more, and ustd closes its side of the
connection so that the writers see it (ustd/app.c, app_stop_trace()).
Before, the program hung for ever. The program then finishes, exits 0,
and ustd goes on serving a program started after it."""

import os
import select
import shutil
import subprocess
import time

from ustest import Tap, VerboseUstd, Workspace, app, babeltrace_check, wait_for

t = Tap()
ws = Workspace()
ustd = VerboseUstd(ws, ws.out)
# Tiny buffers, 2 files of 64 KiB: the flood needs the next file soon.
env = ws.env(UST_TRACE=1, UST_AUTOPROBE="ust:flood", UST_SUBBUF_SIZE=4096, UST_SUBBUF_NUM=4,
             UST_CHANNELS="*::@inf%64k/2")
proc = subprocess.Popen([app("flood"), "1", "3000000"], env=env, stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE, text=True)
ws.daemons.append(proc)
t.eq(proc.stdout.readline().strip(), "ready", "flood ready, blocking timeout inf")
# ustd makes the directory as it reads the program's hello, which may be
# after the program printed ready (its buffers' pages are no longer made
# before main(), manual 12.10).
wait_for(lambda: os.listdir(ws.out), timeout=10)
traces = [os.path.join(ws.out, d) for d in os.listdir(ws.out)]
t.eq(len(traces), 1, "its trace directory exists")


def removed(d):
    # ustd may still be creating the stream files in it (seen under ASan):
    # removed again until it stays gone.
    shutil.rmtree(d, ignore_errors=True)
    return not os.path.exists(d)


t.ok(all(wait_for(lambda: removed(d), timeout=10) for d in traces),
     "the trace directory is removed")
proc.stdin.write("go\n")
proc.stdin.flush()
# Its stream files or the bounded disk's next file cannot be created.
m = ustd.wait_line(r"cannot \S+ .*No such file or directory.*tracing of flood\[%d\] stopped"
                   % proc.pid)
t.ok(m, "ustd says the trace is stopped, and why", "".join(ustd.seen[-5:]))
stopped = time.monotonic()
ready, _, _ = select.select([proc.stdout], [], [], 30)
line = proc.stdout.readline().strip() if ready else "still waiting after 30 s"
t.eq(line, "done", "the writers stop waiting: the flood finishes")
t.diag("done %.2f s after ustd said so" % (time.monotonic() - stopped))
proc.stdin.close()
t.eq(proc.wait(timeout=30), 0, "the program exits 0")

# ustd goes on: a program started now is traced whole.
hello = subprocess.run([app("hello"), "3"], env=ws.env(UST_TRACE=1, UST_AUTOPROBE=1),
                       capture_output=True, text=True, timeout=60)
t.eq(hello.returncode, 0, "a program started after it runs")
t.ok(wait_for(lambda: any(d.startswith("hello-") for d in os.listdir(ws.out)), timeout=15),
     "and is traced")
later = [os.path.join(ws.out, d) for d in os.listdir(ws.out) if d.startswith("hello-")]
ok, err = babeltrace_check(later[0]) if later else (False, "no trace")
t.ok(ok, "its trace reads", err)
ustd.stop()
ws.cleanup()
t.done()
