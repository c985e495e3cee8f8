# SPDX-License-Identifier: GPL-2.0-only
"""Contexts end to end: added with ustctl to a running program, with
usttrace at start-up and through session files; every event carries them in
its stream's event context, read back with babeltrace2's bindings and
checked value for value (each thread's vtid and pthread_id, the process id
and name, the instrumentation site's address resolved with addr2line, perf
counters that count); refusals say why, and the program keeps tracing."""

import json
import os
import signal
import subprocess

from ustest import TOP_SRC, Tap, Workspace, app, read_trace, ctl_request, ctl_call

t = Tap()
FILTERED = app("filtered")


def maps_base(pid, path):
    """The lowest address the executable path is mapped at in process pid."""
    real = os.path.realpath(path)
    with open("/proc/%d/maps" % pid) as f:
        starts = [int(l.split("-")[0], 16) for l in f if l.rstrip().endswith(real)]
    return min(starts) if starts else None


def function_at(path, offset):
    """The function holding offset in the executable (addr2line), or None."""
    try:
        res = subprocess.run(["addr2line", "-f", "-e", path, hex(offset)],
                             capture_output=True, text=True, timeout=30)
    except FileNotFoundError:
        return None
    return res.stdout.splitlines()[0] if res.returncode == 0 and res.stdout else None


def start_waiting(ws, threads=4):
    ws.start_ustd()
    proc = ws.start_app("filtered", ["1", threads], WAIT=1)
    return proc, str(proc.pid)


def finish(ws, proc, pid):
    """Runs filtered's round, reads its mappings, ends the trace."""
    proc.send_signal(signal.SIGUSR2)
    line = proc.stdout.readline().strip()
    base = maps_base(proc.pid, FILTERED)
    res = ws.ustctl(["destroy-trace", pid])
    ws.stop_app(proc)
    dirs = ws.trace_dirs()
    events = read_trace(dirs[0])[0] if dirs else []
    return line, base, res, events


# ------------------------------------------------------- ustctl add-context
ws = Workspace()
proc, pid = start_waiting(ws)
results = [ws.ustctl(["create-trace", pid]),
           ws.ustctl(["enable-marker", pid, "*"]),
           ws.ustctl(["add-context", pid, "*", "vtid", "procname", "vpid", "pthread_id", "ip"]),
           ws.ustctl(["add-context", pid, "ust", "perf:thread:page-faults"])]
t.ok(all(r.returncode == 0 for r in results), "add-context for every channel and for one",
     "\n".join(r.stdout + r.stderr for r in results))
t.ok("pid %s: channel *: context procname added" % pid in results[2].stdout,
     "add-context says what it added", results[2].stdout)
res = ws.ustctl(["add-context", pid, "req", "vtid"])
t.ok(res.returncode == 1 and "channel req records context vtid already" in res.stderr,
     "a context a channel has through * is refused for the channel", res.stderr)
res = ws.ustctl(["add-context", pid, "*", "ip"])
t.ok(res.returncode == 1 and "channel * records context ip already" in res.stderr,
     "a context given twice is refused", res.stderr)
res = ws.ustctl(["add-context", pid, "bad-name", "vtid"])
t.ok(res.returncode == 2 and "invalid channel name 'bad-name'" in res.stderr,
     "an invalid channel name is refused", res.stderr)
res = ws.ustctl(["add-context", pid, "*", "tid"])
t.ok(res.returncode == 2 and "unknown context 'tid': expected vpid, vtid" in res.stderr,
     "an unknown context is a usage error that lists the known ones; nothing is sent",
     res.stderr)
res = ws.ustctl(["add-context", pid, "*", "perf:thread:cycles"])
have_pmu = res.returncode == 0
t.ok(have_pmu or ("no hardware counter for perf:thread:cycles" in res.stderr),
     "perf:thread:cycles is added, or refused because this machine has no counter for it "
     "(%s)" % ("added" if have_pmu else "no PMU here"), res.stderr)
res = ws.ustctl(["--mi", "xml", "save-session", pid, os.path.join(ws.root, "ctx.xml")])
t.ok(res.returncode == 0 and '<context name="perf:thread:page-faults"/>' in res.stdout,
     "save-session --mi xml lists each channel's contexts", res.stdout)
with open(os.path.join(ws.root, "ctx.xml")) as f:
    saved = f.read()
t.ok('<channel name="*"' in saved and '<context name="vtid"/>' in saved and
     '<channel name="ust"' in saved, "the session file holds the contexts by channel", saved)
res = ws.ustctl(["start-trace", pid])
t.eq(res.returncode, 0, "start-trace")
res = ws.ustctl(["add-context", pid, "*", "vpid"])
t.ok(res.returncode == 1 and "so contexts are fixed until destroy-trace" in res.stderr,
     "after allocation contexts are refused: the streams' layout is fixed", res.stderr)
line, base, res, events = finish(ws, proc, pid)
t.ok(line == "done" and res.returncode == 0 and len(events) > 1000,
     "the program ran its round with contexts (%d events)" % len(events))

expect = ["vtid", "procname", "vpid", "pthread_id", "ip"]
wrong = [e for e in events if list(e.context)[:5] != expect]
t.eq(len(wrong), 0, "every event has the * contexts, in the order added")
ust = [e for e in events if os.path.basename(e.stream).startswith("ust_")]
other = [e for e in events if not os.path.basename(e.stream).startswith("ust_")]
t.ok(ust and other and all("perf_thread_page_faults" in e.context for e in ust) and
     not any("perf_thread_page_faults" in e.context for e in other),
     "the channel's own context is in its events only")
t.eq({(e.context["vpid"], e.context["procname"]) for e in events},
     {(int(pid), "filtered")}, "vpid and procname: the process's")
# ust:thread: once from each of the 4 threads, and once from the main thread.
threads = [e for e in events if e.name == "ust:thread"]
t.ok(len(threads) == 5 and all(e.context["vtid"] == e.fields["tid"] for e in threads),
     "vtid: each thread's own id (4 threads and the main one)",
     repr([(e.context, e.fields) for e in threads]))
main = [e for e in events if e.name != "ust:thread"]
t.eq({e.context["vtid"] for e in main}, {int(pid)}, "vtid of the main thread's events: the pid")
t.eq(len({e.context["pthread_id"] for e in threads}), 5,
     "pthread_id: a distinct value for each of the 5 threads")
t.eq({e.context["pthread_id"] for e in main},
     {e.context["pthread_id"] for e in threads if e.context["vtid"] == int(pid)},
     "pthread_id: the main thread's one value in all its events")
ips = {}
for e in main:
    ips.setdefault(e.name, set()).add(e.context["ip"])
t.ok(all(len(v) == 1 for v in ips.values()) and
     len({next(iter(v)) for v in ips.values()}) == len(ips),
     "ip: one address per site, distinct sites distinct addresses", repr(ips))
if base is None:
    t.ok(False, "the executable's mapping was read")
else:
    worker_ip = {e.context["ip"] for e in threads if e.context["vtid"] != int(pid)}
    funcs = {n: function_at(FILTERED, next(iter(ips[n])) - base)
             for n in ("ust:value", "req:done", "app:crit")}
    funcs["ust:thread"] = function_at(FILTERED, next(iter(worker_ip)) - base)
    # A typed event's probe is called from its tracepoint's out-of-line
    # caller, so its ip names the tracepoint; a marker's names its site.
    t.ok(funcs["ust:value"] == funcs["app:crit"] == "round_of_events" and
         funcs["ust:thread"] == "thread_main" and "req_done" in (funcs["req:done"] or ""),
         "ip resolves with addr2line to the function of each marker's site and to the "
         "tracepoint of a typed event", repr(funcs))
faults = [e.context["perf_thread_page_faults"] for e in ust if e.context["vtid"] == int(pid)]
t.ok(faults == sorted(faults) and faults[-1] > 0,
     "perf:thread:page-faults counts the main thread's faults and never goes back",
     repr(faults[:5] + faults[-5:]))

# ---------------------------------------- load-session, a raw client, MI
ws2 = Workspace()
proc, pid = start_waiting(ws2, threads=1)
res = ws2.ustctl(["load-session", pid, os.path.join(ws.root, "ctx.xml")])
t.eq(res.returncode, 0, "load-session applies the saved contexts")
res = ws2.ustctl(["save-session", pid, os.path.join(ws2.root, "again.xml")])
with open(os.path.join(ws2.root, "again.xml")) as f:
    t.eq(f.read(), saved, "saved again from the second program: the same file")
sock = ws2.app_socket(proc.pid)
hostile = [
    (["", "*", "perf:thread:nosuch"], "unknown context 'perf:thread:nosuch'"),
    (["", "x" * 80, "vtid"], "invalid channel name"),
    (["", "*", ""], "unknown context ''"),
    (["", "*", "vtid"], "channel * records context vtid already"),
]
for args, why in hostile:
    reply = ctl_call(sock, ctl_request("add-context", *args))
    t.ok(reply and reply[0] < 0 and why in reply[1][0],
         "a raw add-context %r is refused: %s" % (args[1:], why), repr(reply))
res = ws2.ustctl(["create-trace", pid])
res2 = ws2.ustctl(["start-trace", pid])
line, _, res3, events = finish(ws2, proc, pid)
t.ok(line == "done" and res3.returncode == 0 and events and
     all(list(e.context)[:5] == expect for e in events),
     "after the refusals the program traces with the loaded contexts")

res = ws2.ustctl(["list-contexts"])
t.ok(res.returncode == 0 and len(res.stdout.splitlines()) == 9 and
     "perf:thread:page-faults" in res.stdout, "list-contexts lists the 9 contexts", res.stdout)
res = ws2.ustctl(["--mi", "xml", "list-contexts"])
xsd = os.path.join(TOP_SRC, "doc", "xml", "ustctl-mi.xsd")
chk = subprocess.run(["xmllint", "--noout", "--schema", xsd, "-"], input=res.stdout,
                     capture_output=True, text=True)
t.ok(chk.returncode == 0 and 'name="vtid" size="4" available="true"' in res.stdout,
     "list-contexts --mi xml is valid against ustctl-mi.xsd", chk.stderr + res.stdout[:400])

# ------------------------------------------------------------ usttrace
ws3 = Workspace()
res = ws3.usttrace(["--context", "vtid,procname", "-c", "perf:thread:page-faults", "--",
                    FILTERED, "1", "2"])
dirs = ws3.trace_dirs()
events = read_trace(dirs[0])[0] if dirs else []
t.ok(res.returncode == 0 and events and
     all(list(e.context) == ["vtid", "procname", "perf_thread_page_faults"] for e in events),
     "usttrace --context: every event has the contexts in the order given", res.stderr)
# The timeline gives each thread its own track once events carry vtid.
timeline = os.path.join(ws3.root, "timeline.json")
res = ws3.usttrace(["-c", "vtid", "-c", "vpid", "--perfetto", timeline, "--",
                    FILTERED, "1", "3"])
tids = set()
if res.returncode == 0 and os.path.exists(timeline):
    with open(timeline) as f:
        doc = json.load(f)
    tids = {e.get("tid") for e in doc.get("traceEvents", [])
            if e.get("ph") in ("i", "B", "E", "X") and e.get("name", "").startswith("ust:thread")}
t.ok(len(tids) == 4 and all(isinstance(x, int) and x < 2 ** 30 for x in tids),
     "usttrace --context vtid --perfetto: one track per thread (4), not per CPU",
     res.stderr + repr(tids))
before = set(ws3.trace_dirs())
res = ws3.usttrace(["--context", "vtid,nosuch", "--", FILTERED])
t.ok(res.returncode != 0 and "--context nosuch: unknown context" in res.stderr and
     set(ws3.trace_dirs()) == before, "usttrace --context with an unknown name stops before "
     "running the program", res.stderr)
res = ws3.usttrace(["-c", "ip", "-c", "ip", "--", FILTERED])
t.ok(res.returncode != 0 and "--context ip: given twice" in res.stderr,
     "usttrace --context given twice is refused", res.stderr)
res = ws3.usttrace(["--session", os.path.join(ws.root, "ctx.xml"), "--", FILTERED, "1"])
new = sorted(set(ws3.trace_dirs()) - before)
events = read_trace(new[0])[0] if len(new) == 1 else []
t.ok(res.returncode == 0 and events and all(list(e.context)[:5] == expect for e in events),
     "usttrace --session starts the program with the session's contexts", res.stderr)
if not have_pmu:
    res = ws3.usttrace(["-c", "perf:thread:instructions", "--", FILTERED])
    t.ok(res.returncode != 0 and "no hardware counter for perf:thread:instructions" in res.stderr,
         "usttrace refuses a perf counter this machine lacks, saying why", res.stderr)
else:
    before = set(ws3.trace_dirs())
    res = ws3.usttrace(["-c", "perf:thread:instructions", "--", FILTERED, "1"])
    new = sorted(set(ws3.trace_dirs()) - before)
    events = read_trace(new[0])[0] if len(new) == 1 else []
    counts = [e.context["perf_thread_instructions"] for e in events
              if e.name == "req:done"]
    t.ok(counts and counts == sorted(counts) and counts[-1] - counts[0] > 1000 * 100,
         "perf:thread:instructions counts the instructions between events")

t.done()
