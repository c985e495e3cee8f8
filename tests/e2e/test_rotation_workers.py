# SPDX-License-Identifier: GPL-2.0-only
"""--rotate-size of a session over a forking service whose workers are
replaced (tests/apps/prefork: 4 workers, the oldest replaced every second,
each writing less than the size in its life): the size counts what every
process of the session wrote since the last rotation, those that ended
included, so the session rotates several times while the service runs,
and every event a worker emitted is in exactly one chunk.

Before the fix the size counted the running processes only: with 256 KiB
and 4 workers holding about 150 KiB between them, the session never
rotated and destroy-session archived one chunk of everything."""

import os
import re
import subprocess

import ustest
from ustest import (Tap, Workspace, app, archived_chunks, babeltrace_check, read_trace_ints,
                    stream_bytes)

t = Tap()
PROC_RE = re.compile(r"prefork-(\d+)$")
SECONDS = 16
SIZE = 256 * 1024


def ctl(ws, *args):
    return ws.ustctl_fast([str(a) for a in args])




ws = Workspace()
ws.start_ustd()
res = ctl(ws, "create-session", "-o", ws.out, "--subbuf-size", "16k", "--rotate-size", "256k",
          "svc")
t.ok(res.returncode == 0, "create-session --rotate-size 256k svc", res.stderr)
ctl(ws, "enable-marker", "-s", "svc", "ust:work")
res = ctl(ws, "start-session", "svc")
t.ok(res.returncode == 0, "start-session svc", res.stderr)
sdir = ustest.session_dir(ws.out, "svc")
svc = subprocess.Popen([app("prefork"), "4", str(SECONDS)], env=ws.env(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
ws.daemons.append(svc)
out, err = svc.communicate(timeout=SECONDS + 60)
emitted = {int(pid): int(n) for pid, n in re.findall(r"^worker (\d+) emitted (\d+) ", out, re.M)}
t.ok(svc.returncode == 0 and len(emitted) == 4 + SECONDS,
     "prefork: %d workers, one replaced every second for %d s" % (len(emitted), SECONDS),
     out[-300:] + err)
during = archived_chunks(sdir)
res = ctl(ws, "destroy-session", "svc")
t.ok(res.returncode == 0, "destroy-session svc", res.stderr)
paths = archived_chunks(sdir)

# The workers' directories, wherever they are: each holds less than SIZE.
per_proc = {}
for p in paths:
    for name in os.listdir(p):
        m = PROC_RE.fullmatch(name)
        if m:
            per_proc[int(m.group(1))] = per_proc.get(int(m.group(1)), 0) + \
                stream_bytes(os.path.join(p, name))
t.ok(per_proc and max(per_proc.values()) < SIZE,
     "no process alone wrote 256 KiB (the largest: %d bytes)" % max(per_proc.values() or [0]))
total = sum(per_proc.values())
sizes = [stream_bytes(p) for p in paths]
t.ok(len(during) >= 2,
     "the session rotated on its size while workers came and went: %d chunks before "
     "destroy-session, %d in all for %d bytes" % (len(during), len(paths), total), sizes)
t.ok(all(b >= SIZE for b in sizes[:-1]),
     "each chunk but the last holds at least 256 KiB of packets", sizes)

bad = [(p, e) for p in paths for ok, e in [babeltrace_check(p)] if not ok]
t.ok(paths and not bad, "each of the %d chunks reads on its own with babeltrace2" % len(paths),
     bad[:2])
seen, discarded = [], 0
for p in paths:
    for name in os.listdir(p):
        m = PROC_RE.fullmatch(name)
        if not m:
            continue
        evs, lost = read_trace_ints(os.path.join(p, name))
        discarded += lost
        seen.extend((int(m.group(1)), e.fields["seq"]) for e in evs if e.name == "ust:work")
t.eq(len(seen) - len(set(seen)), 0, "no event in two chunks")
want = set((pid, s) for pid, n in emitted.items() for s in range(n))
missing = want - set(seen)
t.ok(discarded == 0 and not missing and set(seen) <= want,
     "the chunks together hold the %d events the workers emitted, each once" % len(want),
     "missing %d (%s), unexpected %d, discarded %d" % (len(missing), sorted(missing)[:5],
                                                     len(set(seen) - want), discarded))
t.done()
