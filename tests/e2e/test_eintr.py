#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""What the manual and ust(3) say of the control signal: while a
controller talks to the program, sleep, nanosleep, poll, epoll_wait,
select and pause return early (EINTR) in the thread the signal lands on,
SA_RESTART notwithstanding; with UST_CONTROL=thread they do not."""

import queue
import subprocess
from concurrent.futures import ThreadPoolExecutor
import threading
import time

from ustest import Tap, Workspace, app

t = Tap()
CALLS = ("nanosleep", "sleep", "poll", "select", "epoll_wait", "pause")
WAIT_MS = 5000


def start(ws, call, **env):
    proc = subprocess.Popen([app("sleeper"), call, str(WAIT_MS)], env=ws.env(**env),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ws.daemons.append(proc)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(l.strip()) for l in proc.stdout],
                     daemon=True).start()
    return proc, lines


def result(lines):
    """(errno name, milliseconds) of the call the program reports."""
    try:
        words = lines.get(timeout=10).split()
    except queue.Empty:
        return None
    return words[4], int(words[6])


ws = Workspace()
progs = {}
for mode in ("signal", "thread"):
    for call in CALLS:
        progs[mode, call] = start(ws, call, UST_CONTROL=mode)
for key, (proc, lines) in progs.items():
    if lines.get(timeout=10) != "ready":
        t.ok(False, "%s %s starts" % key)
# Every program is in its wait now; a controller asks each one something,
# all at once, well within the wait.
time.sleep(0.3)
with ThreadPoolExecutor(max_workers=len(progs)) as pool:
    answers = list(pool.map(lambda p: ws.ustctl_fast(["info", p[0].pid], timeout=30), progs.values()))
t.ok(all(a.returncode == 0 for a in answers), "every program answers ustctl info",
     [a.stderr for a in answers])
for (mode, call), (proc, lines) in progs.items():
    got = result(lines)
    proc.stdin.close()
    proc.wait(timeout=10)
    if mode == "signal":
        t.ok(got is not None and got[0] == "EINTR" and got[1] < WAIT_MS - 2000,
             "control signal: %s returns early with EINTR while ustctl talks to the program"
             % call, got)
    else:
        t.ok(got is not None and got[1] >= WAIT_MS - 100 and (got[0] != "EINTR" or call == "pause"),
             "UST_CONTROL=thread: %s waits its full %d ms" % (call, WAIT_MS), got)
t.done()
