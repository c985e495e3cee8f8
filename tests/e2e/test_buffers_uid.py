# SPDX-License-Identifier: GPL-2.0-only
"""Buffers per user (ustctl create-session --buffers-uid, manual 4.6).

The processes of one uid in such a session write into one set of rings
per channel and CPU, which ustd makes: the session directory holds one
trace, uid-UID/, with one stream file per CPU and channel however many
processes wrote, and babeltrace2 reads every event of every process in
it once. A forking server (its workers fork and exit) numbers its events,
so the counts are exact; each process records its pid as the vpid
context, so the events are told apart. Then a worker killed by SIGKILL in
the middle of its events: the rings do not stop for the others."""

import os
import re
import signal
import subprocess
import time

import forking_server
import shutil
import ustest
from relayd import HOST, LiveViewer, Relayd
from service_app import command, quit_service, start_service
from ustest import Tap, VerboseUstd, Workspace, app, babeltrace_check, read_trace, wait_for

t = Tap()
N = 300


def ok_cmd(ws, args, what):
    res = ws.ustctl(args)
    t.ok(res.returncode == 0, what, res.stdout + res.stderr)
    return res


def by_pid(events):
    out = {}
    for e in events:
        out.setdefault(e.context.get("vpid"), []).append((e.name, e.fields["seq"],
                                                        e.fields.get("worker")))
    return out


# --- A forking server and a second program of the same user.
ws = Workspace()
ws.start_ustd()
ok_cmd(ws, ["create-session", "-o", ws.out, "--buffers-uid", "u"], "create-session --buffers-uid")
ok_cmd(ws, ["add-context", "-s", "u", "*", "vpid"], "add-context -s u * vpid")
ok_cmd(ws, ["enable-marker", "-s", "u", "svc:*"], "enable-marker -s u svc:*")
ok_cmd(ws, ["start-session", "u"], "start-session u")
svc = forking_server.Service(ws, N, 3)
other = forking_server.Service(ws, N, 0)
svc.go()
other.go()
svc.go()
t.eq(svc.end(), 0, "the forking server ends well")
t.eq(other.end(), 0, "the other program ends well")
ok_cmd(ws, ["stop-session", "u"], "stop-session u")
ok_cmd(ws, ["destroy-session", "u"], "destroy-session u")
sdir = ustest.session_dir(ws.out, "u")
subs = sorted(os.listdir(sdir)) if sdir else []
uid = os.getuid()
t.eq(subs, ["uid-%d" % uid], "one trace in the session directory, uid-UID, for every process")
trace = os.path.join(sdir, "uid-%d" % uid) if sdir else ws.out
streams = sorted(f for f in os.listdir(trace) if f != "metadata" and not f.startswith(".")) \
    if os.path.isdir(trace) else []
streams = [f for f in streams if f != "index"]
t.ok(len(streams) == os.cpu_count(), "one stream file per CPU of the channel, not per process",
     streams)
events, discarded = read_trace(trace) if os.path.isdir(trace) else ([], -1)
t.eq(discarded, 0, "nothing discarded")
procs = by_pid(events)
t.ok(len(procs) == 5, "events of five processes: the server, its three workers, the other program",
     sorted(procs, key=str))
for pid, evs in sorted(procs.items(), key=lambda kv: str(kv[0])):
    starts = [s for n, s, w in evs if n == "svc:start"]
    works = [s for n, s, w in evs if n == "svc:work"]
    ticks = [s for n, s, w in evs if n == "svc:tick"]
    if works:
        t.eq(sorted(works), list(range(N)), "worker %s: each of its %d svc:work once" % (pid, N))
    else:
        t.eq(sorted(starts), list(range(N)), "process %s: each svc:start once" % pid)
        want = 2 * N if pid == svc.pid else N
        t.eq(sorted(ticks), list(range(want)), "process %s: each of its %d svc:tick once"
             % (pid, want))
with open(os.path.join(trace, "metadata")) as f:
    meta = f.read()
t.eq(len(re.findall(r'name = "svc:start"', meta)), 1,
     "svc:start described once in the metadata though five processes wrote it")
ws.cleanup()


# --- A scheduled rotation while nobody writes: no chunk of empty traces.
ws = Workspace()
ws.start_ustd()
ok_cmd(ws, ["create-session", "-o", ws.out, "--buffers-uid", "--rotate-every", "1s", "idle"],
       "create-session --buffers-uid --rotate-every 1s idle")
ok_cmd(ws, ["enable-marker", "-s", "idle", "svc:*"], "enable-marker -s idle svc:*")
ok_cmd(ws, ["start-session", "idle"], "start-session idle")
quiet = forking_server.Service(ws, N, 0)
quiet.go()
time.sleep(4.5)
t.eq(quiet.end(), 0, "a program writes, then waits 4.5 s, and ends")
ok_cmd(ws, ["destroy-session", "idle"], "destroy-session idle")
sdir = ustest.session_dir(ws.out, "idle")
chunks = sorted(os.listdir(os.path.join(sdir, "archives"))) if sdir else []
per_chunk = [len(read_trace(os.path.join(sdir, "archives", c))[0]) for c in chunks]
# Its events may straddle a rotation (two chunks), the last chunk is
# destroy-session's; four periods went by with nothing written.
t.ok(2 <= len(chunks) <= 3 and all(per_chunk[:-1]),
     "no chunk for the periods nobody wrote in: every chunk but the last holds events",
     list(zip(chunks, per_chunk)))
t.eq(sum(per_chunk), 2 * N, "the chunks hold its %d events" % (2 * N))
ws.cleanup()

# --- Rings too large for the machine: ustd refuses them in words, before
# allocating anything; the program runs on untraced.
ws = Workspace()
big_ustd = ws.start_ustd()
ok_cmd(ws, ["create-session", "-o", ws.out, "--buffers-uid", "--subbuf-size", "64M",
            "--subbuf-num", "256", "big"], "create-session --buffers-uid with 16 GiB rings")
ok_cmd(ws, ["enable-marker", "-s", "big", "svc:*"], "enable-marker -s big svc:*")
ok_cmd(ws, ["start-session", "big"], "start-session big")
big = subprocess.Popen([app("forking_server"), "10", "0"], env=ws.env(), stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
out, err = big.communicate(timeout=60)
t.eq(big.returncode, 0, "the program runs and ends well")
t.ok(re.search(r"ustd refused the buffers of channel svc: buffers of 64 MiB x 256 .* exceed "
               r".*half of the memory available", err),
     "it says why its events are not recorded", err)
t.ok(ws.ustctl(["list-sessions", "big"]).returncode == 0, "ustd is still there")
ok_cmd(ws, ["destroy-session", "big"], "destroy-session big")
big_ustd.terminate()
err = big_ustd.communicate(timeout=30)[1]
t.ok(re.search(r"buffers per user of uid \d+: channel svc not made: buffers of 64 MiB x 256", err),
     "ustd says which rings it did not make and why", err[-1500:])
ws.cleanup()

# --- A writer killed in the middle of an event, on the CPU the others use.
def say(proc, line, answer):
    proc.stdin.write(line + "\n")
    proc.stdin.flush()
    got = proc.stdout.readline().strip()
    t.eq(got, answer, "midevent: %s" % line)


def on_cpu0():
    os.sched_setaffinity(0, {0})


def midevent_on_cpu0(ws, what):
    """A midevent pinned to CPU 0, once it said ready."""
    proc = subprocess.Popen([app("midevent")], env=ws.env(), preexec_fn=on_cpu0,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    ws.daemons.append(proc)
    t.eq(proc.stdout.readline().strip(), "ready", what)
    # ustd applies the session's rules a moment after the process appears.
    time.sleep(0.5)
    return proc


def killed_holding(ws, ticks):
    """A midevent on CPU 0 that records ticks events, reserves the next
    and is killed there; returned once the rescue's grace (500 ms) is over."""
    proc = midevent_on_cpu0(ws, "midevent ready")
    say(proc, "tick %d" % ticks, "ticked")
    say(proc, "hold", "held")
    proc.kill()
    proc.wait()
    time.sleep(1.5)
    return proc


ws = Workspace()
ustd = ws.start_ustd()
# Sixteen sub-buffers of 4 KiB: the live process's events go round the
# ring twice, so a sub-buffer left incomplete would stop it.
ok_cmd(ws, ["create-session", "-o", ws.out, "--buffers-uid", "--subbuf-size", "4096",
            "--subbuf-num", "16", "k"], "create-session --buffers-uid with small rings")
ok_cmd(ws, ["add-context", "-s", "k", "*", "vpid"], "add-context -s k * vpid")
ok_cmd(ws, ["enable-marker", "-s", "k", "midevent:*"], "enable-marker -s k midevent:*")
ok_cmd(ws, ["start-session", "k"], "start-session k")
mid = killed_holding(ws, 50)
# Another process of the uid, on the same CPU: the same rings.
mid2 = midevent_on_cpu0(ws, "a second process of the uid starts")
for _ in range(80):
    say(mid2, "tick 50", "ticked")
mid2.stdin.close()
t.eq(mid2.stdout.readline().strip(), "emitted 4000",
     "it writes 4 000 events into the rings of the dead writer and ends")
t.eq(mid2.wait(timeout=30), 0, "it ends well")
ok_cmd(ws, ["destroy-session", "k"], "destroy-session k")
sdir = ustest.session_dir(ws.out, "k")
trace = os.path.join(sdir, "uid-%d" % uid) if sdir else ws.out
events, discarded = read_trace(trace)
seqs = {}
for e in events:
    if e.name == "midevent:seq":
        seqs.setdefault(e.context.get("vpid"), []).append(e.fields["n"])
t.eq(sorted(seqs.get(mid2.pid, [])), list(range(4000)),
     "every event of the live process is in the trace")
t.eq(sorted(seqs.get(mid.pid, [])), list(range(50)), "the dead writer's 50 finished events are too")
t.eq(discarded, 1, "its unfinished event is counted as discarded, nothing else")
ustd.terminate()
err = ustd.communicate(timeout=30)[1]
t.ok("died inside an event" in err, "ustd says a process died inside an event", err[-1500:])
ws.cleanup()


# --- ustd killed and restarted: its rings are gone with it; the running
# process joins the resumed session again, into a new set.
ws = Workspace()
ws.start_ustd()
ok_cmd(ws, ["create-session", "-o", ws.out, "--buffers-uid", "r"], "create-session --buffers-uid r")
ok_cmd(ws, ["enable-marker", "-s", "r", "app:*"], "enable-marker -s r app:*")
ok_cmd(ws, ["start-session", "r"], "start-session r")
service = subprocess.Popen([app("service"), "500"], env=ws.env(), stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
ws.daemons.append(service)
t.eq(service.stdout.readline().strip(), "ready", "a service writing app:request every 500 us")
time.sleep(0.5)
first = ws.daemons[0]
first.kill()
first.wait()
ws.daemons.remove(first)
ws.start_ustd()
sdir = ustest.session_dir(ws.out, "r")
res = {}
t.ok(wait_for(lambda: "process %d service" % service.pid in
              ws.ustctl(["list-sessions", "r"]).stdout, timeout=15),
     "the restarted ustd resumed the session and the running service is in it again")
time.sleep(1)
service.stdin.write("quit\n")
service.stdin.flush()
t.eq(service.wait(timeout=30), 0, "the service ends well")
t.eq(service.stderr.read(), "", "and said nothing")
ok_cmd(ws, ["destroy-session", "r"], "destroy-session r")
traces = sorted(os.listdir(sdir)) if sdir else []
t.eq(traces, ["uid-%d" % uid, "uid-%d-1" % uid],
     "the set of the first ustd, and a new one of the second")
events, discarded = read_trace(os.path.join(sdir, "uid-%d-1" % uid)) if len(traces) == 2 \
    else ([], -1)
seqs = [e.fields["seq"] for e in events if e.name == "app:request"]
t.ok(len(seqs) > 100 and seqs == list(range(seqs[0], seqs[0] + len(seqs))),
     "the new set holds the service's requests since it joined again, none missing (%d)"
     % len(seqs), seqs[:5])
t.eq(discarded, 0, "nothing discarded")
ws.cleanup()


# --- A flight recorder per user: a session trigger and a snapshot take the
# set's rings, which every process wrote into.
ws = Workspace()
ws.start_ustd()
ok_cmd(ws, ["create-session", "-o", ws.out, "--buffers-uid", "--overwrite", "--subbuf-size",
            "16k", "--subbuf-num", "4", "fr"], "create-session --buffers-uid --overwrite fr")
ok_cmd(ws, ["add-context", "-s", "fr", "*", "vpid"], "add-context -s fr * vpid")
ok_cmd(ws, ["enable-marker", "-s", "fr", "app:*"], "enable-marker -s fr app:*")
ok_cmd(ws, ["add-trigger", "-s", "fr", "--on", "app:error", "--snapshot"],
       "add-trigger -s fr --on app:error --snapshot")
ok_cmd(ws, ["start-session", "fr"], "start-session fr")
procs = [start_service(ws) for _ in range(2)]
sdir = ustest.session_dir(ws.out, "fr")
t.ok(wait_for(lambda: "process %d" % procs[1].pid in
              ws.ustctl(["list-sessions", "fr"]).stdout, timeout=15),
     "both services are in the session")
time.sleep(0.5)
t.ok(command(procs[0], "error 7 500"), "the first service emits app:error 7")
firing = os.path.join(sdir, "triggers", "trigger-1", "firing-1") if sdir else ws.out
t.ok(wait_for(lambda: os.path.isdir(firing) and os.listdir(firing), timeout=15),
     "the trigger fired: firing-1/", firing)
snaps = sorted(os.listdir(firing)) if os.path.isdir(firing) else []
t.ok(len(snaps) == 1 and snaps[0].startswith("uid-%d" % uid),
     "one snapshot in it, of the set's rings, not one per process", snaps)
events, _ = read_trace(firing) if snaps else ([], 0)
errors = [(e.context.get("vpid"), e.fields["seq"]) for e in events if e.name == "app:error"]
t.eq(errors, [(procs[0].pid, 7)], "it holds the triggering event, of the first service")
writers = {e.context.get("vpid") for e in events if e.name == "app:request"}
t.eq(writers, {p.pid for p in procs}, "and the requests of both services before it")
res = ok_cmd(ws, ["snapshot", "-s", "fr"], "snapshot -s fr")
snap = res.stdout.strip().split()[-1] if res.stdout.strip() else ws.out
events, _ = read_trace(snap) if os.path.isdir(snap) else ([], 0)
t.eq({e.context.get("vpid") for e in events if e.name == "app:request"}, {p.pid for p in procs},
     "snapshot -s: both services' latest requests, from one trace")
# A writer killed inside an event on CPU 0, then another filling CPU 0's
# ring round: repaired in place, the ring keeps the newest events.
ok_cmd(ws, ["enable-marker", "-s", "fr", "midevent:*"], "enable-marker -s fr midevent:*")
killed_holding(ws, 10)
mid2 = midevent_on_cpu0(ws, "a second midevent on CPU 0")
for _ in range(40):
    say(mid2, "tick 100", "ticked")
res = ok_cmd(ws, ["snapshot", "-s", "fr"], "snapshot -s fr after the ring went round")
snap = res.stdout.strip().split()[-1] if res.stdout.strip() else ws.out
events, _ = read_trace(snap) if os.path.isdir(snap) else ([], 0)
last = [e.fields["n"] for e in events if e.name == "midevent:seq" and
        e.context.get("vpid") == mid2.pid]
t.ok(last and last[-1] == 3999 and last == list(range(last[0], 4000)),
     "the snapshot ends with the second midevent's newest events, none missing among them",
     last[:3] + last[-3:])
mid2.stdin.close()
mid2.wait(timeout=30)
for p in procs:
    t.eq(quit_service(p), 0, "service %d ends well" % p.pid)
ok_cmd(ws, ["destroy-session", "fr"], "destroy-session fr")
ok, msg = babeltrace_check(os.path.join(sdir, "uid-%d" % uid)) if sdir else (False, "no session")
t.ok(ok, "the rings written at the end read whole with babeltrace2", msg)
fr_ustd = ws.daemons[0]
fr_ustd.terminate()
err = fr_ustd.communicate(timeout=30)[1]
t.ok("corrupted" not in err and "protocol error" not in err,
     "ustd found nothing corrupted in the rings of the flight recorder", err[-1500:])
ws.cleanup()


# --- Streamed to a real lttng-relayd: the set's one trace goes there.
if shutil.which("lttng-relayd"):
    ws = Workspace()
    relayd = Relayd(ws, "relay")
    VerboseUstd(ws, ws.out, ["--live-timer", "200000"])
    ok_cmd(ws, ["create-session", "-r", relayd.url, "--buffers-uid", "rs"],
           "create-session -r URL --buffers-uid rs")
    ok_cmd(ws, ["add-context", "-s", "rs", "*", "vpid"], "add-context -s rs * vpid")
    ok_cmd(ws, ["enable-marker", "-s", "rs", "svc:*"], "enable-marker -s rs svc:*")
    ok_cmd(ws, ["start-session", "rs"], "start-session rs")
    svc = forking_server.Service(ws, N, 2)
    # The live timer closes the set's open packets: a live viewer sees the
    # events while the session runs, long before a packet fills.
    viewer = LiveViewer(ws, "net://127.0.0.1:%d/host/%s/rs" % (relayd.live, HOST))
    seen = []
    end = time.time() + 30
    while time.time() < end and not seen:
        svc.go()
        seen = viewer.matches(r" svc:tick: .*\{ vpid = %d \}" % svc.pid, 2)
    viewer.stop()
    t.ok(seen, "a live viewer of the relay session sees the server's ticks as they come")
    t.eq(svc.end(), 0, "a forking server with 2 workers ends well")
    ok_cmd(ws, ["destroy-session", "rs"], "destroy-session rs")
    remote = relayd.traces("rs-")
    subs = sorted(os.listdir(remote[0])) if remote else []
    t.eq(subs, ["uid-%d" % uid], "relayd holds one trace of the session, uid-UID")
    events, discarded = read_trace(os.path.join(remote[0], subs[0])) if subs else ([], -1)
    procs = by_pid(events)
    t.ok(len(procs) == 3, "events of the server and its 2 workers", sorted(procs, key=str))
    for pid, evs in sorted(procs.items(), key=lambda kv: str(kv[0])):
        kinds = {n for n, _, _ in evs}
        want = "svc:work" if "svc:work" in kinds else "svc:start"
        t.eq(sorted(q for n, q, _ in evs if n == want), list(range(N)),
             "process %s at relayd: each %s once" % (pid, want))
    t.eq(discarded, 0, "nothing discarded")
    ws.cleanup()
else:
    t.ok(False, "lttng-relayd is installed (the README's test command installs lttng-tools)")
t.done()
