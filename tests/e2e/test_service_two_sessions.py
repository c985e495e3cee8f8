# SPDX-License-Identifier: GPL-2.0-only
"""A forking service traced through two sessions at once (issue 32's
"Done when"): tests/apps/svc_pool keeps 2 workers, each a program of its
own started with fork()+execv() or with posix_spawn(), living about a
second (1 000 svc:work events) and replaced as it ends; every event of a
process carries a sequence number of that process. Started once both
sessions are active, every process joins both by itself. The service
runs 12 s, or until it started 12 workers (a loaded machine, where
workers live longer), then ends with its workers.

- session A, buffers per user, rotated every second and on 128 KiB, the
  vpid context recorded: every event of every process (the service and
  each worker, by vpid and sequence number) is in exactly one of its
  chunks (archives/*, the last archived by destroy-session), each chunk
  read alone by babeltrace2; the discarded count stop-session and
  destroy-session say is what babeltrace2 reports (none at these rates).
  A burst of the service passes the size within a period: ustd says it
  rotated on its size, and on its period, and each chunk but the last
  is one of those rotations.
- session B, buffers per process, a flight recorder with a trigger on
  svc:error, which the service records once: the trigger fired once, its
  firing-1/ reads whole with babeltrace2, and the service's snapshot in
  it holds that error and the 200 events of the service just before it.
"""

import os
import queue
import re
import subprocess
import threading
import time
import xml.etree.ElementTree as ET

import ustest
from ustest import (Tap, VerboseUstd, app, archived_chunks, babeltrace_check, read_trace,
                    stream_bytes, wait_for)

t = Tap()
WORK_EVENTS = 1000
RUN_S = 12
MIN_WORKERS = 12
BEFORE = 200
SNAP_RE = re.compile(r"svc_pool-(\d+)-snapshot-\d+$")

ws = ustest.Workspace()
# UST_DEBUG: ustd says why it rotated each chunk.
ustd = VerboseUstd(ws, ws.out, UST_DEBUG=1)


def ctl(*args):
    return ws.ustctl_fast([str(a) for a in args])


def ok_cmd(*args):
    res = ctl(*args)
    t.ok(res.returncode == 0, " ".join(str(a) for a in args), res.stdout + res.stderr)
    return res


def mi_discarded(res):
    """The events-discarded of a session verb's --mi xml answer, or None."""
    try:
        found = [int(e.text) for e in ET.fromstring(res.stdout).iter("events-discarded")]
    except ET.ParseError:
        return None
    return found[0] if len(found) == 1 else None


def in_session(name, pid):
    res = ctl("list-sessions", name)
    return re.search(r"^  process %d " % pid, res.stdout, re.M) is not None


def in_b():
    """The pids session b lists (the service's and its workers')."""
    res = ctl("list-sessions", "b")
    return {int(x) for x in re.findall(r"^  process (\d+) ", res.stdout, re.M)}


def has_trigger(pid, tdir):
    res = ctl("list-triggers", pid)
    return res.returncode == 0 and tdir in res.stdout




class Said:
    """The lines of the service's output, read as they come."""

    def __init__(self, proc):
        self.lines = []
        self.fresh = queue.Queue()
        self.reader = threading.Thread(target=self._read, args=(proc.stdout,), daemon=True)
        self.reader.start()

    def _read(self, f):
        for line in f:
            self.fresh.put(line)

    def wait(self, what, timeout=30):
        """Until a line begins with what (a string; that line's words), or
        until what() is true (a function)."""
        end = time.time() + timeout
        while True:
            if callable(what) and what():
                return True
            try:
                line = self.fresh.get(timeout=max(0.01, min(0.1, end - time.time())))
            except queue.Empty:
                line = None
            if line is not None:
                self.lines.append(line)
                if not callable(what) and line.split()[:1] == [what]:
                    return line.split()
            if time.time() > end:
                return None

    def started(self):
        return sum(1 for x in self.lines if x.startswith("started "))


def say(proc, said, line):
    """Sends a command; the words of its answer, without its name."""
    proc.stdin.write(line + "\n")
    proc.stdin.flush()
    words = said.wait(line.split()[0])
    return words[1:] if words else []


# --- The two sessions, then the service.
# About 40 KB a second, of 12-byte events: the size is reached by the burst.
ok_cmd("create-session", "-o", ws.out, "--buffers-uid", "--subbuf-size", "32k", "--subbuf-num",
       "16", "--rotate-every", "1s", "--rotate-size", "128k", "a")
ok_cmd("add-context", "-s", "a", "*", "vpid")
ok_cmd("enable-marker", "-s", "a", "svc:*")
ok_cmd("create-session", "-o", ws.out, "--overwrite", "--subbuf-size", "16k", "--subbuf-num", "4",
       "b")
ok_cmd("enable-marker", "-s", "b", "svc:*")
ok_cmd("add-trigger", "-s", "b", "--on", "svc:error", "--snapshot")
ok_cmd("start-session", "a")
ok_cmd("start-session", "b")
adir, bdir = ustest.session_dir(ws.out, "a"), ustest.session_dir(ws.out, "b")
tdir = os.path.join(bdir, "triggers", "trigger-1")

began = time.time()
svc = subprocess.Popen([app("svc_pool"), "serve", "2", str(WORK_EVENTS)], env=ws.env(),
                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
ws.daemons.append(svc)
said = Said(svc)
t.ok(said.wait("ready"), "svc_pool ready, its first 2 workers running", said.lines)
t.ok(wait_for(lambda: in_session("a", svc.pid) and in_session("b", svc.pid), timeout=15),
     "the service traces for both sessions at once")
t.ok(wait_for(lambda: has_trigger(svc.pid, tdir), timeout=15),
     "session b's trigger is installed in the service")
time.sleep(max(0, began + 3 - time.time()))


def worker_in_b():
    """A worker started and not ended that traces for session b: the
    firing must snapshot it (under load a fresh worker takes a while to
    exec and join, and the firing would find none)."""
    started = {int(x.split()[1]) for x in said.lines if x.startswith("started ")}
    ended = {int(x.split()[1]) for x in said.lines if x.startswith("worker ")}
    return any(in_session("b", pid) for pid in started - ended)


# A precondition, not a check: under ASan the worker was not seen in the
# listing within 30 s once, while the firing did snapshot workers (check
# "firing-1/ holds ..." below says what matters).
said.wait(worker_in_b, timeout=30)
before_error = in_b()
words = say(svc, said, "error")
error_seq = int(words[0]) if len(words) == 1 else -1
t.ok(error_seq > BEFORE, "the service records svc:error, its event %d" % error_seq, words)
# ustd publishes firing-1/ once every snapshot in it is made: a worker in
# the session from before the error to after that was there to be
# snapshotted. Under load the worker seen before may end first (once,
# under ASan: no worker in the firing).
firing = os.path.join(tdir, "firing-1")
wait_for(lambda: os.path.isdir(firing), timeout=15)
kept_on = (before_error & in_b()) - {svc.pid}
time.sleep(max(0, began + 6 - time.time()))
words = say(svc, said, "burst 40000")
t.ok(len(words) == 2, "the service records a burst of 40 000 events", words)
# RUN_S, and more on a loaded machine, where the workers live longer.
time.sleep(max(0, began + RUN_S - time.time()))
said.wait(lambda: said.started() >= MIN_WORKERS, timeout=60)
svc.stdin.close()
svc.wait(timeout=60)
said.reader.join(timeout=10)
said.wait(lambda: said.fresh.empty())
out = "".join(said.lines)
err = svc.stderr.read()
workers = {int(pid): (how, int(status)) for pid, how, status in
           re.findall(r"^worker (\d+) (exec|spawn) (-?\d+)$", out, re.M)}
m = re.search(r"^service emitted (\d+)$", out, re.M)
service_n = int(m.group(1)) if m else 0
kinds = {how: sum(1 for h, _ in workers.values() if h == how) for how in ("exec", "spawn")}
t.ok(svc.returncode == 0 and len(workers) >= MIN_WORKERS and
     abs(kinds["exec"] - kinds["spawn"]) <= 1 and all(s == 0 for _, s in workers.values()),
     "%d workers in %.0f s, %d started with fork+exec and %d with posix_spawn, each ended well"
     % (len(workers), time.time() - began, kinds["exec"], kinds["spawn"]), out[-600:] + err)

# --- Session b: the trigger's firing, read before the session goes.
t.ok(wait_for(lambda: os.path.isdir(firing), timeout=15), "the trigger fired: firing-1/ is there")
res = ctl("list-triggers", "-s", "b")
t.ok(res.stdout.rstrip().endswith("; fired 1, snapshots 1, over the limit 0, failed 0") and
     not os.path.exists(os.path.join(tdir, "firing-2")),
     "list-triggers -s b: fired once, one snapshot", res.stdout + res.stderr)
ok, bterr = babeltrace_check(firing) if os.path.isdir(firing) else (False, "no firing-1")
t.ok(ok, "babeltrace2 reads firing-1/ whole", bterr)
snaps = {int(m.group(1)): os.path.join(firing, n) for n in
         (os.listdir(firing) if os.path.isdir(firing) else []) for m in [SNAP_RE.fullmatch(n)] if m}
others = sorted(set(snaps) - {svc.pid})
t.ok(svc.pid in snaps and set(kept_on) <= set(others) <= set(workers),
     "firing-1/ holds the service's snapshot and its workers' (%d), among them the %d in the "
     "session from before the error to after the firing" % (len(others), len(kept_on)),
     "snapshots %s, in the session throughout %s" % (sorted(snaps), sorted(kept_on)))
mine, _ = read_trace(snaps[svc.pid]) if svc.pid in snaps else ([], None)
errors = [e.fields["seq"] for e in mine if e.name == "svc:error"]
t.eq(errors, [error_seq], "the service's snapshot holds the triggering svc:error, once")
seqs = set(e.fields["seq"] for e in mine)
gap = [s for s in range(error_seq - BEFORE, error_seq) if s not in seqs]
t.ok(not gap, "and each of the %d events the service recorded just before it" % BEFORE,
     "missing %d: %s" % (len(gap), gap[:10]))
# A worker snapshotted just after it joined may have recorded nothing yet
# (seen with two busy loops beside three runs of the test): each snapshot
# holds the worker's svc:work events only, in order, and together some.
in_workers = 0
for pid in others:
    evs, _ = read_trace(snaps[pid])
    seqs = [e.fields["seq"] for e in evs]
    t.ok(all(e.name == "svc:work" for e in evs) and seqs == sorted(set(seqs)),
         "worker %d (%s): its snapshot holds its svc:work events only, in order (%d)"
         % (pid, workers.get(pid, ("?",))[0], len(evs)))
    in_workers += len(evs)
t.ok(in_workers > 0 or not others,
     "the workers' snapshots hold %d svc:work events in all" % in_workers)
ok_cmd("destroy-session", "b")

# --- Session a: every event once across the chunks.
res = ctl("--mi", "xml", "stop-session", "a")
stop_discarded = mi_discarded(res)
t.ok(res.returncode == 0 and stop_discarded is not None, "stop-session a --mi xml",
     res.stdout + res.stderr)
res = ctl("--mi", "xml", "destroy-session", "a")
destroy_discarded = mi_discarded(res)
t.ok(res.returncode == 0 and destroy_discarded is not None, "destroy-session a --mi xml",
     res.stdout + res.stderr)
paths = archived_chunks(adir)
t.eq(sorted(os.listdir(adir)), ["archives"],
     "after destroy-session, session a's directory holds its archived chunks only")
uid_dir = "uid-%d" % os.getuid()
layouts = [p for p in paths if os.listdir(p) != [uid_dir]]
t.ok(len(paths) >= RUN_S // 2 and not layouts,
     "%d chunks, each holding one trace, %s/" % (len(paths), uid_dir), layouts)
bad = [(p, e) for p in paths for ok, e in [babeltrace_check(p)] if not ok]
t.ok(paths and not bad, "babeltrace2 reads each chunk alone", bad[:2])
# Every chunk but the last (destroy-session's) is a scheduled rotation.
if len(paths) > 1:
    ustd.wait_line(r"session a: rotated .* into %s$" % re.escape(paths[-2]), timeout=5)
why = [m.group(1) for x in ustd.seen for m in [re.search(r"session a: rotated \(on its (\w+)\)", x)]
       if m]
t.ok(len(why) == len(paths) - 1 and why.count("period") >= 2 and why.count("size") >= 1,
     "ustd rotated session a %d times on its period and %d times on its size"
     % (why.count("period"), why.count("size")),
     "%s; chunk bytes %s" % (why, [stream_bytes(p) for p in paths]))

seen, names, discarded, spread = [], {}, 0, {}
for i, p in enumerate(paths):
    evs, lost = read_trace(os.path.join(p, uid_dir))
    discarded += lost
    for e in evs:
        key = (e.context.get("vpid"), e.fields["seq"])
        seen.append(key)
        names[key] = e.name
        spread.setdefault(key[0], set()).add(i)
want = set((svc.pid, s) for s in range(service_n))
want |= set((pid, s) for pid in workers for s in range(WORK_EVENTS))
dups = len(seen) - len(set(seen))
t.eq(dups, 0, "no event in two chunks")
missing, extra = want - set(seen), set(seen) - want
t.ok(service_n > 0 and not missing and not extra,
     "the chunks hold the %d events of the service and of its %d workers, each once"
     % (len(want), len(workers)),
     "missing %d %s, unexpected %d %s" % (len(missing), sorted(missing)[:5], len(extra),
                                          sorted(extra)[:5]))
wrong = sorted(k for k, n in names.items()
               if n != ("svc:work" if k[0] != svc.pid else
                        "svc:error" if k[1] == error_seq else "svc:tick"))
t.eq(wrong[:5], [], "each process's events are the ones it records (work, tick, error)")
t.eq((stop_discarded, destroy_discarded), (discarded, discarded),
     "stop-session and destroy-session say the discarded count babeltrace2 reports (%d)"
     % discarded)
t.ok(sum(1 for pid in workers if len(spread.get(pid, ())) > 1) > 0,
     "rotations cut workers in the middle of their lives")
t.ok(ustd.proc.poll() is None, "ustd still runs")
ustd.stop()
t.done()
