# SPDX-License-Identifier: GPL-2.0-only
"""Filters and log levels end to end: rules given with ustctl to a running
program, with usttrace at start-up, saved and loaded as session files, and
sent corrupt by a raw client; what is recorded is read back with
babeltrace2's bindings, event for event."""

import os
import signal
import subprocess

import bt2

from ustest import Tap, Workspace, app, read_trace, ctl_request, ctl_call, USTCTL

t = Tap()


def names(events):
    counts = {}
    for e in events:
        counts[e.name] = counts.get(e.name, 0) + 1
    return counts


def run_app(ws, rules, threads=3):
    """Starts filtered waiting, applies rules (ustctl argument lists), runs
    one round and ends the trace; returns the events, the app's stderr and
    the ustctl results."""
    ws.start_ustd()
    proc = ws.start_app("filtered", ["1", threads], WAIT=1)
    pid = str(proc.pid)
    results = [ws.ustctl(["create-trace", pid])]
    for r in rules:
        results.append(ws.ustctl([r[0]] + r[1:-1] + [pid, r[-1]]))
    results.append(ws.ustctl(["start-trace", pid]))
    proc.send_signal(signal.SIGUSR2)
    line = proc.stdout.readline().strip()
    results.append(ws.ustctl(["destroy-trace", pid]))
    _, err = ws.stop_app(proc)
    dirs = ws.trace_dirs()
    events = read_trace(dirs[0])[0] if dirs else []
    return events, err, results, line


# ---------------------------------------------------------- ustctl rules
ws = Workspace()
events, err, results, line = run_app(ws, [
    ["enable-marker", "--filter", "value >= 500 && value < 600", "req:done"],
    ["enable-marker", "--filter", 'path == "/static/9*"', "req:done"],
    ["enable-marker", "--filter", 'path == "/api*" && ratio < 0.1', "ust:value"],
    ["enable-marker", "--loglevel", "WARNING", "*"],
    ["enable-marker", "--filter", "$ctx.vtid == tid && $ctx.procname == \"filtered\"",
     "ust:thread"],
])
t.ok(all(r.returncode == 0 for r in results) and line == "done",
     "ustctl applies five rules with filters and a level to a running program",
     "\n".join(r.stdout + r.stderr for r in results))
t.ok("(1 event matched)" in results[1].stdout and "with filter 'value >= 500" in results[1].stdout,
     "enable-marker says what it enabled and with which filter", results[1].stdout)
got = names(events)
done = sorted(e.fields["value"] for e in events if e.name == "req:done")
want = sorted(list(range(500, 600)) + [v for v in range(1000) if v % 2 and
                                        str(v).startswith("9")])
t.eq(done, want, "req:done: exactly the values 500..599 and the /static/9* paths "
     "(two filters on one event: either lets it through)")
t.eq(got.get("req:done"), 156, "156 req:done events of 1000")
vals = sorted(e.fields["value"] for e in events if e.name == "ust:value")
t.eq(vals, list(range(0, 100, 2)), "marker ust:value: string glob and float comparison")
t.eq(sorted(n for n in got if n not in ("req:done", "ust:value", "ust:thread")),
     ["app:crit", "db:slow", "req:failed"],
     "--loglevel WARNING across providers: CRIT, ERR and WARNING events, not INFO, DEBUG "
     "or the default level")
t.eq(got.get("ust:thread"), 4, "a filter on $ctx.vtid and $ctx.procname: every thread's "
     "event, where tid is its own thread id")

# The level is in the metadata and babeltrace2 shows it.
levels = {}
for msg in bt2.TraceCollectionMessageIterator(ws.trace_dirs()[0]):
    if type(msg) is bt2._EventMessageConst:
        levels[msg.event.cls.name] = msg.event.cls.log_level
t.eq((levels.get("req:failed"), levels.get("db:slow"), levels.get("app:crit")),
     (bt2.EventClassLogLevel.ERROR, bt2.EventClassLogLevel.WARNING,
      bt2.EventClassLogLevel.CRITICAL), "babeltrace2 reads each event's log level")
t.eq(levels.get("req:done"), bt2.EventClassLogLevel.DEBUG_LINE,
     "an event without a level has LTTng's default, DEBUG_LINE")

# --------------------------------------------- errors, sessions, a raw client
ws2 = Workspace()
ws2.start_ustd()
proc = ws2.start_app("filtered", ["1"], WAIT=1)
pid = str(proc.pid)
res = ws2.ustctl(["list-markers", pid])
row = [l for l in res.stdout.splitlines() if l.startswith("req:failed ")]
t.ok(row and " ERR " in row[0], "list-markers shows each event's level", res.stdout)
res = ws2.ustctl(["--mi", "xml", "list-markers", pid])
t.ok('<loglevel value="4">WARNING</loglevel>' in res.stdout,
     "list-markers --mi xml carries the level", res.stdout[-600:])
res = ws2.ustctl(["enable-marker", "--filter", "value > 1 && nosuch == 2", pid, "req:done"])
t.ok(res.returncode == 0 and "ustctl: warning: filter 'value > 1 && nosuch == 2' on req:done, column 14: "
     "no field 'nosuch': the filter is false for such events" in res.stderr,
     "a filter naming a field the event lacks: accepted as LTTng does, with a warning naming "
     "the field and the column", res.stderr)
res = ws2.ustctl(["enable-marker", "--filter", "$ctx.nosuch == 2", pid, "req:done"])
t.ok(res.returncode == 0 and "warning: filter '$ctx.nosuch == 2' on req:done, column 1: no context "
     "'$ctx.nosuch'" in res.stderr and res.stderr.count("warning") == 1,
     "a context the program lacks: accepted with one warning", res.stderr)
res = subprocess.run([USTCTL, "enable-marker", "--filter", b'value > 1 && path == "\xed\xa0\x80"',
                      pid, "req:done"], env=ws2.env(), capture_output=True)
res.stderr = res.stderr.decode(errors="replace")
t.ok(res.returncode == 2 and "invalid UTF-8 at byte offset 22" in res.stderr,
     "a filter that is not UTF-8 (an encoded surrogate): refused, naming the byte offset, "
     "so that save-session never writes XML that load-session refuses", res.stderr)
res = ws2.ustctl(["enable-marker", "--filter", "path > 3", pid, "req:done"])
t.ok(res.returncode == 2 and "column 6: cannot compare a string with an integer in event req:done" in res.stderr,
     "a type mismatch against the event's fields: refused, with the column", res.stderr)
res = ws2.ustctl(["enable-marker", "--filter", "tag == 3", pid, "req:done"])
t.ok(res.returncode == 2 and "array or a sequence" in res.stderr,
     "a filter on an array field: refused", res.stderr)
res = ws2.ustctl(["enable-marker", "--filter", "value == 7", pid, "later:*"])
t.ok(res.returncode == 0 and "(0 events matched)" in res.stdout,
     "a pattern matching no event yet is accepted (a library may bring it)", res.stdout)

sock = ws2.app_socket(proc.pid)
corrupt = [
    ("bytecode that is not hexadecimal", ["", "req:done", "", "value > 1", "zz"],
     "not hexadecimal"),
    ("bytecode of a wrong version", ["", "req:done", "", "value > 1", "00" * 16],
     "invalid filter bytecode"),
    ("a filter without bytecode", ["", "req:done", "", "value > 1", ""],
     "a filter without its bytecode"),
    ("bytecode without its filter", ["", "req:done", "", "", "0102"],
     "bytecode without its filter"),
    ("a level out of range", ["", "req:done", "<=15", "", ""], "invalid log level"),
    ("a jump backwards", ["", "req:done", "", "x",
                          "55535446" "0100" "0000" "0d000000" "00000000"
                          "04" "0100000000000000" "12" "0000" "01"], "forward"),
    ("a linked load smuggled in", ["", "req:done", "", "x",
                                   "55535446" "0100" "0000" "04000000" "00000000"
                                   "40" "ff7f" "01"], "invalid opcode"),
]
for desc, args, why in corrupt:
    reply = ctl_call(sock, ctl_request("enable-rule", *args))
    t.ok(reply and reply[0] < 0 and why in reply[1][0],
         "raw client, %s: refused with the reason" % desc, repr(reply))
reply = ctl_call(sock, ctl_request("info"))
t.ok(reply and reply[0] == 0, "the program still answers after the corrupt filters",
     repr(reply))

session = os.path.join(ws2.root, "s.xml")
res = ws2.ustctl(["enable-marker", "--loglevel-only", "ERR", pid, "req:*"])
res2 = ws2.ustctl(["save-session", pid, session])
xml = open(session).read() if os.path.exists(session) else ""
t.ok(res.returncode == 0 and res2.returncode == 0 and 'loglevel-only="ERR"' in xml
     and 'filter="value == 7"' in xml, "save-session writes levels and filters", xml)
res = ws2.ustctl(["--mi", "xml", "save-session", pid, session])
t.ok('<rule action="enable" loglevel-only="ERR">req:*</rule>' in res.stdout and
     'filter="value == 7"' in res.stdout, "the MI output carries them too", res.stdout)
# A second program gets the session; its rules then read back the same.
proc2 = ws2.start_app("filtered", ["1"], WAIT=1)
res = ws2.ustctl(["load-session", str(proc2.pid), session])
saved2 = os.path.join(ws2.root, "s2.xml")
ws2.ustctl(["save-session", str(proc2.pid), saved2])
t.ok(res.returncode == 0 and open(saved2).read() == xml,
     "load-session applies them: the second program's session is the same", res.stderr)
bad = os.path.join(ws2.root, "bad.xml")


def load_bad_session(rule):
    """Loads a session file whose second line is rule."""
    with open(bad, "w") as f:
        f.write('<ust-session version="1">\n%s\n</ust-session>\n' % rule)
    return ws2.ustctl(["load-session", pid, bad])


res = load_bad_session('<enable pattern="a:*" filter="x = 2"/>')
t.ok(res.returncode != 0 and "bad.xml:2:" in res.stderr and "column 3" in res.stderr,
     "a session file with a broken filter: the file's line and the column", res.stderr)
res = load_bad_session('<enable pattern="a:*" loglevel="ERR" loglevel-only="ERR"/>')
t.ok(res.returncode != 0 and "bad.xml:2:" in res.stderr and "both" in res.stderr,
     "a rule with both loglevel attributes is refused", res.stderr)
for p in (proc, proc2):
    p.send_signal(signal.SIGUSR2)
    ws2.stop_app(p)

# ------------------------------------------------------------- usttrace
ws3 = Workspace()
res = ws3.usttrace(["-m", "req:done", "--filter", "value >= 500 && value < 600",
                    app("filtered")])
events = read_trace(ws3.trace_dirs()[0])[0] if ws3.trace_dirs() else []
t.eq(sorted(e.fields["value"] for e in events), list(range(500, 600)),
     "usttrace --filter: 1000 events with value 0..999, exactly 100 recorded")
ws4 = Workspace()
res = ws4.usttrace(["--loglevel", "ERR", app("filtered")])
events = read_trace(ws4.trace_dirs()[0])[0] if ws4.trace_dirs() else []
t.eq(sorted(names(events)), ["app:crit", "req:failed"], "usttrace --loglevel ERR")
ws5 = Workspace()
res = ws5.usttrace(["-m", "req:done", "--filter", "nosuch == 1", app("filtered")])
t.ok(res.returncode == 0 and "filter 'nosuch == 1' does not apply to event req:done: "
     "the event has no field 'nosuch'" in res.stderr,
     "usttrace: a filter that fits no field is reported by the program", res.stderr)
ws6 = Workspace()
res = ws6.usttrace(["--filter", "value >", app("filtered")])
t.ok(res.returncode != 0 and "column 8" in res.stderr and not ws6.trace_dirs(),
     "usttrace: a broken filter stops before the program runs", res.stderr)
t.done()
