# SPDX-License-Identifier: GPL-2.0-only
"""destroy-session of a rotating session archives the chunk in progress,
as LTTng's destroy does: with --rotate-every 1s and --on-rotate, one
program that ended before the destroy and one still running at it, the
session directory holds archives/ only afterwards, its chunks numbered
from 0 with none missing, each read on its own by babeltrace2, the last
one with both programs' last events; the union of the chunks is exactly
the events the ended program emitted, and the running one's from its
first up to the destroy, none twice, none missing; --on-rotate ran on
every chunk, the last included. A session that never rotates keeps its
layout on destroy, and one rotated by hand after it stopped gets no empty
last chunk."""

import os
import re
import time

import ustest
from ustest import Tap, VerboseUstd, Workspace, babeltrace_check, read_trace, wait_for

CHUNK_RE = re.compile(r"(\d{8}T\d{6}[+-]\d{4})-(\d{8}T\d{6}[+-]\d{4})-(\d+)$")

t = Tap()
ws = Workspace()
VerboseUstd(ws, ws.out)


def ok_cmd(what, *args):
    res = ws.ustctl_fast([str(a) for a in args])
    t.ok(res.returncode == 0, what, res.stdout + res.stderr)
    return res


def chunks(sdir):
    adir = os.path.join(sdir, "archives")
    found = [(int(CHUNK_RE.fullmatch(n).group(3)), os.path.join(adir, n))
             for n in (os.listdir(adir) if os.path.isdir(adir) else []) if CHUNK_RE.fullmatch(n)]
    return [p for _, p in sorted(found)]


def stop_ticker(proc):
    out, _ = ws.stop_app(proc)
    return {int(m.group(1)): int(m.group(2))
            for m in re.finditer(r"^emitted (\d+) (\d+)$", out, re.M)}


# 1. Every second, one program ended before the destroy, one running at it.
log = os.path.join(ws.root, "on-rotate.log")
hook = os.path.join(ws.root, "hook.sh")
with open(hook, "w") as f:
    f.write('#!/bin/sh\necho "$1" >> %s\n' % log)
os.chmod(hook, 0o755)
ok_cmd("create-session --rotate-every 1s --on-rotate HOOK", "create-session", "-o", ws.out,
       "--subbuf-size", "16k", "--subbuf-num", "8", "--rotate-every", "1s", "--on-rotate", hook,
       "dest")
ok_cmd("enable-marker -s dest ust:tick", "enable-marker", "-s", "dest", "ust:tick")
ok_cmd("start-session dest", "start-session", "dest")
sdir = ustest.session_dir(ws.out, "dest")
ended = ws.start_app("ticker", ["-t", "2", "-i", "200"])
running = ws.start_app("ticker", ["-i", "300"])
t.ok(wait_for(lambda: len(chunks(sdir)) >= 2, timeout=15), "2 chunks archived on the schedule")
time.sleep(0.4)
emitted = {(ended.pid, th): n for th, n in stop_ticker(ended).items()}
time.sleep(0.2)
ok_cmd("destroy-session dest while a program traces for it", "destroy-session", "dest")
running_emitted = stop_ticker(running)
t.eq(sorted(os.listdir(sdir)), ["archives"], "after the destroy: archives/ only, the last "
     "chunk in it")
paths = chunks(sdir)
names = [CHUNK_RE.search(p) for p in paths]
t.ok(len(paths) >= 3 and [int(m.group(3)) for m in names] == list(range(len(paths))) and
     all(m.group(2) <= n.group(1) for m, n in zip(names, names[1:])),
     "%d chunks numbered from 0, none missing, times that follow" % len(paths),
     [os.path.basename(p) for p in paths])
bad = [(p, err) for p in paths for ok, err in [babeltrace_check(p)] if not ok]
t.ok(not bad, "each chunk reads on its own with babeltrace2", bad[:2])
seen, last = [], set()
for i, p in enumerate(paths):
    events, discarded = read_trace(p)
    t.eq(discarded, 0, "chunk %d: nothing discarded" % i)
    ticks = [(e.vpid, e.fields["thread"], e.fields["seq"]) for e in events if e.name == "ust:tick"]
    seen += ticks
    if i == len(paths) - 1:
        last = set(pid for pid, _, _ in ticks)
t.eq(len(seen), len(set(seen)), "no event in two chunks")
got_ended = sorted(k for k in seen if k[0] == ended.pid)
want_ended = sorted((pid, th, s) for (pid, th), n in emitted.items() for s in range(n))
t.ok(got_ended == want_ended, "the ended program: the union of the chunks is exactly its %d "
     "events" % len(want_ended), "got %d, want %d" % (len(got_ended), len(want_ended)))
got_running = sorted(s for pid, _, s in seen if pid == running.pid)
t.ok(got_running and got_running == list(range(len(got_running))) and
     len(got_running) <= running_emitted.get(0, 0),
     "the program running at the destroy: its events from the first up to the destroy, "
     "none missing (%d of the %d it emitted by its end)"
     % (len(got_running), running_emitted.get(0, 0)))
t.ok(running.pid in last, "the last chunk holds the running program's last events",
     sorted(last))
wait_for(lambda: os.path.exists(log) and len(open(log).read().split()) >= len(paths), 10)
logged = open(log).read().split() if os.path.exists(log) else []
t.eq(sorted(logged), sorted(paths), "--on-rotate ran on every chunk, the last included")

def ticked_session(name, *schedule):
    """A session that half a second of one ticker traced; its directory
    and the ticker's pid."""
    ok_cmd("create-session %s %s" % (" ".join(schedule), name), "create-session", "-o", ws.out,
           *schedule, name)
    ok_cmd("enable-marker -s %s ust:tick" % name, "enable-marker", "-s", name, "ust:tick")
    ok_cmd("start-session %s" % name, "start-session", name)
    p = ws.start_app("ticker", ["-i", "1000"])
    time.sleep(0.5)
    stop_ticker(p)
    return ustest.session_dir(ws.out, name), p.pid


# 2. No schedule, never rotated: the layout of a session that does not rotate.
pdir, pid = ticked_session("plain")
ok_cmd("destroy-session plain", "destroy-session", "plain")
t.eq(sorted(os.listdir(pdir)), ["ticker-%d" % pid],
     "a session that never rotated: its process directory stays where it was, no archives/")

# 3. Rotated by hand after it stopped: nothing new, no empty chunk.
hdir, _ = ticked_session("hand", "--rotate-every", "10s")
ok_cmd("stop-session hand", "stop-session", "hand")
ok_cmd("rotate-session hand", "rotate-session", "hand")
ok_cmd("destroy-session hand", "destroy-session", "hand")
t.ok(sorted(os.listdir(hdir)) == ["archives"] and len(chunks(hdir)) == 1,
     "rotated after it stopped, then destroyed: one chunk, no empty one",
     [os.path.basename(c) for c in chunks(hdir)])
ws.cleanup()
t.done()
