# SPDX-License-Identifier: GPL-2.0-only
"""A rotation while a writer is held in the middle of an event
(tests/apps/midevent: reserved, not committed, as a thread preempted
there). ustd waits a bounded time for the packet (ustd/app_rotate.c),
then goes on: rotate-session answers while the event is still held, the
packet goes whole into the next chunk, never split between two, and the
union of the chunks is every event exactly once. Then the commit sent as
soon as the rotation began: the rotation waits for it, and the event is in
its chunk (checked when the test got the commit out within 5 ms, a fourth
of ustd's bound; said otherwise)."""

import os
import subprocess
import threading
import time

from ustest import Tap, Workspace, app, babeltrace_check, read_trace, session_dir, wait_for

t = Tap()
ws = Workspace()
ws.start_ustd()
cpu = min(os.sched_getaffinity(0))


def ctl(*args):
    res = ws.ustctl_fast(list(args))
    t.ok(res.returncode == 0, " ".join(args), res.stdout + res.stderr)
    return res


def say(proc, line, answer):
    proc.stdin.write(line + "\n")
    proc.stdin.flush()
    got = proc.stdout.readline().strip()
    t.eq(got, answer, "the program: %s" % line)


def seqs(path):
    events, _ = read_trace(path)
    return [e.fields["n"] for e in events if e.name == "midevent:seq"]


ctl("create-session", "-o", ws.out, "--subbuf-size", "64k", "midev")
ctl("enable-marker", "-s", "midev", "midevent:*")
ctl("start-session", "midev")
sdir = session_dir(ws.out, "midev")
proc = subprocess.Popen([app("midevent")], env=ws.env(),
                        preexec_fn=lambda: os.sched_setaffinity(0, {cpu}),
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
ws.daemons.append(proc)
t.eq(proc.stdout.readline().strip(), "ready", "midevent ready")
t.ok(sdir and wait_for(lambda: os.path.isdir(os.path.join(sdir, "midevent-%d" % proc.pid)),
                       timeout=15), "it joined the session")
# ustd applies the session's rules a moment after the process appears.
time.sleep(0.5)

# 1. Held across the whole rotation.
say(proc, "tick 100", "ticked")
say(proc, "hold", "held")
begun = time.monotonic()
first = ctl("rotate-session", "midev").stdout.strip()
took = time.monotonic() - begun
t.ok(took < 5, "rotate-session answers while the event is held (%.0f ms)" % (took * 1000))
say(proc, "commit", "committed")
say(proc, "tick 100", "ticked")
second = ctl("rotate-session", "midev").stdout.strip()

# 2. Committed as soon as the rotation began (its hidden chunk appeared).
adir = os.path.join(sdir or ws.out, "archives")
say(proc, "tick 100", "ticked")
say(proc, "hold", "held")
answer = {}
rot = threading.Thread(target=lambda: answer.update(res=ws.ustctl_fast(["rotate-session",
                                                                         "midev"])))
rot.start()
deadline = time.monotonic() + 10
while rot.is_alive() and time.monotonic() < deadline and \
        not any(n.startswith(".") for n in os.listdir(adir)):
    time.sleep(0.0002)
seen = time.monotonic()
say(proc, "commit", "committed")
lag = (time.monotonic() - seen) * 1000
rot.join()
third = answer["res"].stdout.strip()
proc.stdin.close()
t.eq(proc.stdout.readline().strip(), "emitted 302", "the program emitted 302 events")
t.eq(proc.wait(timeout=30), 0, "the program exits 0")
ctl("stop-session", "midev")
ctl("rotate-session", "midev")
ctl("destroy-session", "midev")

chunks = [first, second, third]
ok = all(os.path.isdir(c) for c in chunks)
t.ok(ok, "rotate-session printed three chunks", chunks)
per = [seqs(c) if os.path.isdir(c) and babeltrace_check(c)[0] else None for c in chunks]
t.ok(all(p is not None for p in per), "babeltrace2 reads each chunk on its own",
     [babeltrace_check(c)[1] for c in chunks if os.path.isdir(c)])
per = [p or [] for p in per]
t.eq(per[0], [], "chunk 0 holds none of the held packet: not split, it went on whole")
t.ok(per[1][:101] == list(range(101)),
     "chunk 1 holds the held packet whole: events 0 to 99 and the held one, 100",
     per[1][:5])
rest = [c for c in os.listdir(adir) if not c.startswith(".")] if os.path.isdir(adir) else []
everything = []
for c in sorted(rest):
    everything.extend(seqs(os.path.join(adir, c)))
t.eq(sorted(everything), list(range(302)), "the chunks hold every event once")
where = "2 (the rotation waited for it)" if 301 in per[2] else "3 (past the wait's bound)"
if lag < 5:
    # 5 ms here, a fourth of the bound: the program's wakeup has the rest.
    t.ok(301 in per[2], "committed %.1f ms into the rotation: the rotation waited, and the "
         "held event is in its chunk" % lag, "it is in chunk %s" % where)
else:
    t.diag("committed %.1f ms into the rotation (a loaded machine): the held event is in "
           "chunk %s" % (lag, where))
ws.cleanup()
t.done()
