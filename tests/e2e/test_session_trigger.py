# SPDX-License-Identifier: GPL-2.0-only
"""Triggers of a session: ustctl add-trigger -s NAME on a flight-recorder
session held by the real ustd. A 4-process service (tests/apps/service),
two processes running when the session starts and two started while it
is active, one trigger on app:error with --at-most 3/minute: each of the
first 3 errors, whichever process emits it, gets one snapshot directory
holding a trace of every process of the session, read whole by
babeltrace2, with that error (by its number) and requests before it; the
2 errors over the limit are counted, said by ustd and listed by
list-triggers -s. A second trigger added while the session is active,
on a marker, with a filter and -o DIR, then removed from the session and
its processes with remove-trigger -s. Then bad input:
a session that is not a flight recorder, one that does not exist, a PID
with -s, a bad pattern, rate or name."""

import os
import re
import subprocess
import time

import xml.etree.ElementTree as ET

import ustest
from service_app import command, quit_service, start_service
from ustest import (TOP_SRC, Tap, VerboseUstd, Workspace, babeltrace_check, read_trace,
                    wait_for)

t = Tap()
ws = Workspace()
ustd = VerboseUstd(ws, ws.out)
XSD = os.path.join(TOP_SRC, "doc", "xml", "ustctl-mi.xsd")
SNAP_RE = re.compile(r"^service-(\d+)-snapshot-\d+$")


def ctl(*args):
    return ws.ustctl_fast([str(a) for a in args])


def per_process(firing):
    """{pid: snapshot directory} of one firing's directory."""
    if not os.path.isdir(firing):
        return {}
    return {int(SNAP_RE.match(n).group(1)): os.path.join(firing, n)
            for n in os.listdir(firing) if SNAP_RE.match(n)}


def has_trigger(pid, tdir):
    """Whether process pid holds the trigger of directory tdir, once."""
    res = ctl("list-triggers", pid)
    return res.returncode == 0 and len(re.findall(r"-o %s[ ;]" % re.escape(tdir), res.stdout)) == 1


# 1. A flight-recorder session with a trigger, 2 processes before it, 2 after.
res = ctl("create-session", "-o", ws.out, "--overwrite", "--subbuf-size", "16k",
          "--subbuf-num", "4", "shop")
t.ok(res.returncode == 0, "create-session --overwrite shop", res.stderr)
sdir = ustest.session_dir(ws.out, "shop")
ctl("enable-marker", "-s", "shop", "app:*")
res = ctl("--mi", "xml", "add-trigger", "-s", "shop", "--on", "app:error", "--snapshot",
          "--at-most", "3/minute")
valid = subprocess.run(["xmllint", "--noout", "--schema", XSD, "-"], input=res.stdout,
                       capture_output=True, text=True, timeout=60)
trig = ET.fromstring(res.stdout).findall("./ustd-session/trigger") if valid.returncode == 0 else []
t.ok(res.returncode == 0 and valid.returncode == 0 and len(trig) == 1 and
     trig[0].get("id") == "1" and trig[0].get("at-most") == "3",
     "add-trigger -s shop --mi xml: trigger 1, valid against ustctl-mi.xsd",
     res.stdout + res.stderr + valid.stderr)
tdir = os.path.join(sdir, "triggers", "trigger-1")
procs = [start_service(ws) for _ in range(2)]
res = ctl("start-session", "shop")
t.ok(res.returncode == 0, "start-session shop with 2 processes running", res.stderr)
procs += [start_service(ws) for _ in range(2)]
t.ok(wait_for(lambda: all(has_trigger(p.pid, tdir) for p in procs), timeout=15),
     "the session's trigger is installed in all 4 processes, the 2 started later too",
     "\n".join(ctl("list-triggers", p.pid).stdout for p in procs))
t.ok(wait_for(lambda: all(os.path.isdir(os.path.join(sdir, "service-%d" % p.pid))
                          for p in procs), timeout=15),
     "all 4 processes trace into the session directory")
time.sleep(0.3)

ERRORS = 5
for k in range(1, ERRORS + 1):
    p = procs[(k - 1) % len(procs)]
    t.ok(command(p, "error %d 500" % k), "error %d emitted by process %d" % (k, p.pid))
    firing = os.path.join(tdir, "firing-%d" % k)
    if k <= 3:
        wait_for(lambda: len(per_process(firing)) == len(procs), timeout=15)
    else:
        # A snapshot over the limit would be written by now.
        time.sleep(0.5)
    snaps = per_process(firing)
    if k > 3:
        t.ok(not os.path.exists(firing),
             "error %d, over --at-most 3/minute: no snapshot" % k)
        continue
    t.eq(sorted(snaps), sorted(q.pid for q in procs),
         "firing %d: one snapshot per process of the session" % k)
    ok, err = babeltrace_check(firing)
    t.ok(ok, "firing %d: babeltrace2 reads the whole firing directory" % k, err)
    events, _ = read_trace(firing)
    errors = [e for e in events if e.name == "app:error" and e.fields["seq"] == k]
    t.ok(len(errors) == 1 and errors[0].fields["code"] == 500,
         "firing %d: the snapshot holds error %d, once" % (k, k),
         repr([(e.name, e.fields) for e in events if e.name == "app:error"]))
    newer = [e for e in events if e.name == "app:error" and e.fields["seq"] > k]
    t.ok(not newer, "firing %d: no later error in it" % k)
    for q in procs:
        qev, _ = read_trace(snaps[q.pid]) if q.pid in snaps else ([], None)
        reqs = [e for e in qev if e.name == "app:request"]
        t.ok(reqs, "firing %d: process %d's snapshot holds its requests (%d)"
             % (k, q.pid, len(reqs)))
    mine, _ = read_trace(snaps[p.pid]) if p.pid in snaps else ([], None)
    t.ok([e for e in mine if e.name == "app:error" and e.fields["seq"] == k],
         "firing %d: the error is in the snapshot of process %d, which emitted it" % (k, p.pid))

t.ok(ustd.wait_line(r"session shop, trigger 1: --at-most 3/minute reached"),
     "ustd says when the session's limit is reached")

# A trigger added to the active session, on a marker, into a directory of its own.
odir = os.path.join(ws.root, "elsewhere")
res = ctl("add-trigger", "-s", "shop", "--on", "app:warn", "--filter", "seq == 7", "--snapshot",
          "-o", odir)
t.ok(res.returncode == 0 and "session shop: trigger 2 added" in res.stdout,
     "add-trigger -s shop -o DIR while the session is active: trigger 2", res.stdout + res.stderr)
wdir = os.path.join(odir, "shop-trigger-2")
t.ok(wait_for(lambda: all(has_trigger(p.pid, wdir) for p in procs), timeout=15),
     "trigger 2 is installed in the 4 running processes")
command(procs[1], "warn 6")
command(procs[1], "warn 7")
firing = os.path.join(wdir, "firing-1")
wait_for(lambda: len(per_process(firing)) == len(procs), timeout=15)
time.sleep(0.3)
events, _ = read_trace(firing) if os.path.isdir(firing) else ([], None)
warns = [e.fields["seq"] for e in events if e.name == "app:warn"]
t.ok(sorted(per_process(firing)) == sorted(p.pid for p in procs) and 7 in warns and
     not os.path.exists(os.path.join(wdir, "firing-2")),
     "warn 7 (not warn 6: the filter) snapshots the 4 processes into DIR/shop-trigger-2/firing-1",
     "warns %r, firings %r" % (warns, os.listdir(wdir) if os.path.isdir(wdir) else None))
res = ctl("list-triggers", "-s", "shop")
want = ["1: --on app:error --snapshot -o %s --at-most 3/minute; fired 5, snapshots 3, over the "
        "limit 2, failed 0" % tdir,
        "2: --on app:warn --filter 'seq == 7' --snapshot -o %s; fired 1, snapshots 1, over the "
        "limit 0, failed 0" % wdir]
t.eq(res.stdout.splitlines(), want, "list-triggers -s shop: both triggers, with the session's counts")
res = ctl("--mi", "xml", "list-triggers", "-s", "shop")
valid = subprocess.run(["xmllint", "--noout", "--schema", XSD, "-"], input=res.stdout,
                       capture_output=True, text=True, timeout=60)
trig = ET.fromstring(res.stdout).findall("./ustd-session/trigger") if valid.returncode == 0 else []
t.ok(res.returncode == 0 and [(x.get("id"), x.get("snapshots"), x.get("over-limit"))
                              for x in trig] == [("1", "3", "2"), ("2", "1", "0")],
     "list-triggers -s shop --mi xml: valid against ustctl-mi.xsd, the counts in it",
     res.stdout + res.stderr + valid.stderr)

# remove-trigger -s: out of the session and of every process; numbers are not reused.
res = ctl("remove-trigger", "-s", "shop", 2)
t.ok(res.returncode == 0 and "session shop: trigger 2 removed" in res.stdout,
     "remove-trigger -s shop 2", res.stdout + res.stderr)
t.ok(wait_for(lambda: not any(ctl("list-triggers", p.pid).stdout.count(wdir) for p in procs),
              timeout=15),
     "trigger 2 is removed from the 4 processes, trigger 1 stays",
     "\n".join(ctl("list-triggers", p.pid).stdout for p in procs))
t.ok(all(has_trigger(p.pid, tdir) for p in procs), "trigger 1 is still in the 4 processes")
command(procs[2], "warn 7")
time.sleep(0.5)
t.ok(not os.path.exists(os.path.join(wdir, "firing-2")), "warn 7 after the removal: no snapshot")
res = ctl("list-triggers", "-s", "shop")
t.ok(res.stdout.startswith("1: ") and len(res.stdout.splitlines()) == 1,
     "list-triggers -s shop: trigger 1 only", res.stdout)
res = ctl("remove-trigger", "-s", "shop", 2)
t.ok(res.returncode == 1 and "session 'shop' has no trigger '2'" in res.stderr,
     "remove-trigger -s shop 2 again: exit 1, says there is no such trigger", res.stderr)
res = ctl("add-trigger", "-s", "shop", "--on", "app:warn", "--snapshot", "-o", odir)
t.ok(res.returncode == 0 and "session shop: trigger 3 added" in res.stdout,
     "the next trigger is number 3: numbers are not reused", res.stdout + res.stderr)

res = ctl("destroy-session", "shop")
t.ok(res.returncode == 0, "destroy-session shop", res.stderr)
m = ustd.wait_line(r"session shop, trigger 1: fired (\d+) times, (\d+) snapshots taken, (\d+) "
                   r"firings over --at-most 3/minute not snapshotted, (\d+) snapshots failed")
t.ok(m and m.groups() == ("5", "3", "2", "0"),
     "ustd counts 5 firings across the processes: 3 snapshots, 2 over the limit, none failed",
     m.group(0) if m else "no such message")
for p in procs:
    t.eq(quit_service(p), 0, "process %d ends normally" % p.pid)

# 2. Bad input: exit 2 with the usage for what ustctl sees, 1 for what ustd refuses.
ctl("create-session", "-o", ws.out, "plain")
ctl("create-session", "-o", ws.out, "--overwrite", "fr")
CASES = [
    (["add-trigger", "-s", "plain", "--on", "app:error", "--snapshot"], 1,
     "not a flight recorder"),
    (["add-trigger", "-s", "nosuch", "--on", "app:error", "--snapshot"], 1,
     "no session 'nosuch'"),
    (["add-trigger", "-s", "fr", "1234", "--on", "app:error", "--snapshot"], 2,
     "no PID goes with it"),
    (["add-trigger", "-s", "fr", "--on", "app:error"], 2, "--snapshot is missing"),
    (["add-trigger", "-s", "fr", "--snapshot"], 2, "--on PATTERN is missing"),
    (["add-trigger", "-s", "fr", "--on", "app error", "--snapshot"], 2, "pattern"),
    (["add-trigger", "-s", "fr", "--on", "app:error", "--snapshot", "--at-most", "0/minute"],
     2, "--at-most '0/minute'"),
    (["add-trigger", "-s", "fr", "--on", "app:error", "--snapshot", "--filter", "seq >"], 2,
     "filter"),
    (["add-trigger", "-s", ".bad", "--on", "app:error", "--snapshot"], 2,
     "invalid session name"),
    (["list-triggers", "-s", "nosuch"], 1, "no session 'nosuch'"),
    (["list-triggers", "-s", "fr", "1234"], 2, "no PID goes with it"),
    (["remove-trigger", "-s", "fr", "1", "2"], 2, "takes the trigger's number only"),
    (["remove-trigger", "-s", "fr", "x"], 2, "'x' is not a trigger number"),
    (["remove-trigger", "-s", "nosuch", "1"], 1, "no session 'nosuch'"),
]
for args, status, words in CASES:
    res = ctl(*args)
    t.ok(res.returncode == status and words in res.stderr,
         "%s: exit %d, says '%s'" % (" ".join(args), status, words),
         "exit %d: %s" % (res.returncode, res.stderr))
res = ctl("add-trigger", "-s", "fr", "--on", "app:error", "--snapshot")
t.ok(res.returncode == 0 and "session fr: trigger 1 added" in res.stdout,
     "after the refusals, session fr's first trigger is number 1", res.stdout + res.stderr)
res = ctl("list-triggers", "-s", "plain")
t.ok(res.returncode == 0 and res.stdout == "", "list-triggers -s of a session without triggers: "
     "nothing, exit 0", res.stdout + res.stderr)

# 3. A firing where one process of the session cannot be snapshotted (a
# trace named like the session, made by hand without flight-recorder mode:
# ustd files it under the session). The firing is one snapshot of the
# session, firing-K/, with the processes that could be snapshotted: the
# counts are what is on disk (they said "snapshots 0, failed 2" while two
# readable firing directories existed).
ctl("create-session", "-o", ws.out, "--overwrite", "--subbuf-size", "16k", "--subbuf-num", "4",
    "part")
ctl("enable-marker", "-s", "part", "app:*")
ctl("add-trigger", "-s", "part", "--on", "app:error", "--snapshot")
psdir = ustest.session_dir(ws.out, "part")
pdir = os.path.join(psdir, "triggers", "trigger-1")
svcs = [start_service(ws) for _ in range(2)]
# Running before the session starts, so that no join of ustd's waits on it
# (it matches nothing of the session) while its trace is made by hand.
web = ws.start_app("webish", ["0"])
ctl("start-session", "part")
for args in (["create-trace", "-t", "part"], ["enable-marker", "-t", "part"],
             ["start-trace", "-t", "part"]):
    res = ctl(*(args + [web.pid] + (["http:*"] if args[0] == "enable-marker" else [])))
    t.ok(res.returncode == 0, "%s %d: a trace named like the session, not a flight recorder"
         % (" ".join(args), web.pid), res.stderr)
t.ok(wait_for(lambda: all(os.path.isdir(os.path.join(psdir, d)) for d in
                          ["service-%d" % p.pid for p in svcs] + ["webish-%d" % web.pid]),
              timeout=15),
     "session part holds the 2 services and the hand-made trace of webish")
time.sleep(0.3)
for k in (1, 2):
    command(svcs[0], "error %d 500" % k)
    firing = os.path.join(pdir, "firing-%d" % k)
    wait_for(lambda: len(per_process(firing)) == 2, timeout=15)
    t.eq(sorted(per_process(firing)), sorted(p.pid for p in svcs),
         "part, firing %d: the snapshots of the 2 services, webish's failed" % k)
    # libust tells ustd of one firing a millisecond at most: ustd (nice
    # -10) can publish firing-1/ within that, and error 2 then came too
    # soon (held back: "fired 2, told ustd 1, held back 1", 2 runs of 54
    # beside two busy loops; firing-1 held error 1 and events 42 us older).
    time.sleep(0.01)
m = ustd.wait_line(r"a trigger of webish\[%d\] fired, but its trace is written to disk" % web.pid)
t.ok(m, "ustd says why webish was not snapshotted")
firings = sorted(n for n in os.listdir(pdir) if re.fullmatch(r"firing-\d+", n))
res = ctl("list-triggers", "-s", "part")
t.ok(firings == ["firing-1", "firing-2"] and
     res.stdout.rstrip().endswith("; fired 2, snapshots 2, over the limit 0, failed 0"),
     "list-triggers -s part: 2 snapshots, as the 2 firing directories on disk", res.stdout)
ctl("destroy-session", "part")
m = ustd.wait_line(r"session part, trigger 1: fired 2 times, 2 snapshots taken, 0 firings over "
                   r"--at-most 0/minute not snapshotted, 0 snapshots failed; 2 of the snapshots "
                   r"lack processes whose own snapshot failed")
t.ok(m, "at destroy-session, ustd says that both snapshots lack a process")
for p in svcs:
    quit_service(p)
ws.stop_app(web)

t.ok(ustd.proc.poll() is None, "ustd still runs")
ustd.stop()
t.done()
