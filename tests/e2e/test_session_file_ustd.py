# SPDX-License-Identifier: GPL-2.0-only
"""Session files of sessions held by ustd (ustctl save-session -s NAME FILE,
load-session [-s NAME] FILE), the tracefile limits in session files, and
the rotation schedule of an existing session (enable-rotation,
disable-rotation) as list-sessions shows it.

A session with everything a file holds (output, channel settings,
contexts, tracefile limits, rules with a filter and a level, rotation
schedule; triggers on a flight recorder) is saved, destroyed and loaded:
list-sessions --mi xml shows it back, and saving it again writes the same
file. save-session -s and load-session say its trackers as they say its
rules and channels: counted in the sentence, what they track on a line,
a <tracker> per kind in --mi xml (they used to leave them out). Programs started under the loaded session are traced (hello numbers
its events: counted exactly across the chunks), the schedule rotates
(chunks appear, --on-rotate runs), the tracefile limits bound the stream
files, a trigger snapshots the triggering event. Bad files, a name taken
and a refusal half-way change nothing. Version 1 files still load, and
usttrace --session and the per-process commands read version 2 files.
Per-user buffers (create-session --buffers-uid) go round the same way:
create, list-sessions (text and --mi xml), list-sessions NAME, save,
destroy, load, save again; buffers="per-uid" in the file, nothing for
per-process buffers; a flight recorder per user; the refusals (both
options, an unknown type on the wire and in a file, a seventh argument)
say why with their exit statuses."""

import os
import re
import subprocess
import time
import xml.etree.ElementTree as ET

import ustest
from ustest import (TOP_SRC, Tap, Workspace, app, babeltrace_check, ctl_call, read_trace,
                    wait_for)

t = Tap()
MI_XSD = os.path.join(TOP_SRC, "doc", "xml", "ustctl-mi.xsd")
FILE_XSD = os.path.join(TOP_SRC, "doc", "xml", "ust-session.xsd")
HELLO_N = 40
TF_SIZE, TF_COUNT = 8192, 2


def ctl(ws, *args):
    return ws.ustctl_fast([str(a) for a in args])


def ok_cmd(ws, what, *args):
    res = ctl(ws, *args)
    t.ok(res.returncode == 0, what, res.stdout + res.stderr)
    return res


def valid(xsd, path=None, text=None):
    res = subprocess.run(["xmllint", "--noout", "--schema", xsd, path or "-"], input=text,
                         capture_output=True, text=True)
    return res.returncode == 0, res.stderr


def mi(ws, what, *args):
    """ustctl --mi xml ARGS: checked against ustctl-mi.xsd; the parsed root."""
    res = ctl(ws, "--mi", "xml", *args)
    ok, why = valid(MI_XSD, text=res.stdout)
    t.ok(res.returncode == 0 and ok, "%s --mi xml: exit 0, valid against ustctl-mi.xsd" % what,
         res.stdout + res.stderr + why)
    return ET.fromstring(res.stdout) if res.stdout.strip() else ET.Element("none")


def sessions(ws):
    """{name: <ustd-session> element} of list-sessions --mi xml."""
    root = mi(ws, "list-sessions", "list-sessions")
    return {s.get("name"): s for s in root.findall("ustd-session")}


def bad_load(ws, what, path, status, pattern, *extra):
    before = ctl(ws, "--mi", "xml", "list-sessions").stdout
    res = ctl(ws, "--mi", "xml", "load-session", *extra, path)
    ok, why = valid(MI_XSD, text=res.stdout)
    t.ok(res.returncode == status and re.search(pattern, res.stderr) and ok and
         'success="false"' in res.stdout,
         "%s: exit %d, says %r (--mi xml: valid, a failure)" % (what, status, pattern),
         res.stdout + res.stderr + why)
    t.ok(ctl(ws, "--mi", "xml", "list-sessions").stdout == before,
         "%s: ustd's sessions unchanged" % what)


def bad_file(ws, text, what, status, pattern):
    """A file of text in bad.xml, then bad_load() of it."""
    with open(bad, "w") as f:
        f.write(text)
    bad_load(ws, what, bad, status, pattern)


def run(ws, name, *args, stdin=None):
    res = subprocess.run([app(name)] + [str(a) for a in args], env=ws.env(), input=stdin,
                         capture_output=True, text=True, timeout=120)
    t.ok(res.returncode == 0, "%s %s ran" % (name, " ".join(map(str, args))), res.stderr)
    return res


def proc_dirs(sdir):
    """Every <procname>-<pid> directory of the session: the current chunk's
    and the archived chunks'."""
    adir = os.path.join(sdir, "archives")
    found = []
    for root in [sdir] + [os.path.join(adir, c)
                          for c in (sorted(os.listdir(adir)) if os.path.isdir(adir) else [])]:
        for sub in sorted(os.listdir(root)):
            if re.fullmatch(r".+-\d+", sub) and os.path.isfile(os.path.join(root, sub, "metadata")):
                found.append(os.path.join(root, sub))
    return found


ws = Workspace()
ws.start_ustd()
out2 = os.path.join(ws.root, "out2")
log = os.path.join(ws.root, "on-rotate.log")
hook = "echo >>%s" % log

# --- (a) A session with everything a file holds, saved.
res = ctl(ws, "create-session", "--tracefile-count", "4", "svc")
t.ok(res.returncode == 2 and "--tracefile-count needs --tracefile-size" in res.stderr,
     "create-session --tracefile-count without a size: usage error", res.stderr)
ok_cmd(ws, "create-session -o DIR --subbuf-size 4k --subbuf-num 4 --tracefile-size 1M",
       "create-session", "-o", out2, "--subbuf-size", "4k", "--subbuf-num", "4",
       "--tracefile-size", "1M", "--tracefile-count", "4", "svc")
ok_cmd(ws, "enable-marker -s with a filter", "enable-marker", "-s", "svc", "--filter",
       "count >= 10", "ust:search_event")
ok_cmd(ws, "enable-marker -s with a level", "enable-marker", "-s", "svc", "--loglevel",
       "DEBUG", "myprovider:*", "ust:flood")
ok_cmd(ws, "disable-marker -s", "disable-marker", "-s", "svc", "ust:tp_probe")
ok_cmd(ws, "add-context -s", "add-context", "-s", "svc", "ust", "vtid", "procname")
root = mi(ws, "set-tracefile -s", "set-tracefile", "-s", "svc", "ust/8k/%d" % TF_COUNT)
ch = root.find("ustd-session/channel")
t.ok(ch is not None and ch.get("tracefile-size") == str(TF_SIZE) and
     ch.get("tracefile-count") == str(TF_COUNT), "set-tracefile -s --mi xml: the limits set",
     ET.tostring(root))
root = mi(ws, "enable-rotation --every", "enable-rotation", "-s", "svc", "--every", "5s")
rot = root.find("ustd-session/rotation")
t.ok(rot is not None and rot.get("every") == "5s", "enable-rotation --mi xml: every 5s",
     ET.tostring(root))
# What is not given keeps its setting: --every stays, the command joins.
ok_cmd(ws, "enable-rotation --every 1s --on-rotate CMD", "enable-rotation", "-s", "svc",
       "--every", "1s", "--on-rotate", hook, "--on-rotate-timeout", "30s")
res = ok_cmd(ws, "list-sessions (text)", "list-sessions")
t.ok("rotation: every 1s, on-rotate '%s' (killed after 30s)" % hook in res.stdout,
     "list-sessions shows the rotation schedule", res.stdout)
listed = sessions(ws)["svc"]
rot = listed.find("rotation")
t.ok(rot is not None and rot.get("every") == "1s" and rot.get("on-rotate") == hook and
     rot.get("on-rotate-timeout") == "30s", "list-sessions --mi xml: the rotation schedule",
     ET.tostring(listed))
# Trackers that the programs of (c) pass: the file must keep them.
UID = str(os.getuid())
ok_cmd(ws, "track -s svc --procname hello flood", "track", "-s", "svc", "--procname", "hello",
       "flood")
ok_cmd(ws, "track -s svc --uid UID", "track", "-s", "svc", "--uid", UID)
TRACKING = "  tracking: every pid; procname hello,flood; uid %s\n" % UID
res = ok_cmd(ws, "list-sessions svc", "list-sessions", "svc")
t.ok(TRACKING in res.stdout, "list-sessions svc shows the trackers", res.stdout)

saved = os.path.join(ws.root, "svc.xml")
root = mi(ws, "save-session -s", "save-session", "-s", "svc", saved)
WANT_TRACKERS = [("pid", "all", []), ("procname", "set", ["hello", "flood"]),
                 ("uid", "set", [UID])]


def mi_trackers(root):
    return [(x.get("kind"), x.get("policy"), [v.text for v in x.findall("value")])
            for x in root.findall("./ustd-session/tracker")]


t.eq(mi_trackers(root), WANT_TRACKERS,
     "save-session -s --mi xml: a tracker per kind, with its policy and values")
ok, why = valid(FILE_XSD, saved)
t.ok(ok, "the saved file validates against ust-session.xsd", why)
doc = ET.parse(saved).getroot()
t.eq((doc.get("version"), doc.get("name"), doc.get("overwrite"), doc.findtext("output")),
     ("2", "svc", "false", out2), "the file: version 2, name, mode, output")
chans = {c.get("name"): c for c in doc.findall("channel")}
t.eq((chans["*"].get("subbuf-size"), chans["*"].get("subbuf-num"),
      chans["*"].get("tracefile-size"), chans["*"].get("tracefile-count"),
      chans["ust"].get("tracefile-size"), chans["ust"].get("tracefile-count"),
      [c.get("name") for c in chans["ust"].findall("context")]),
     ("4k", "4", "1M", "4", "8k", str(TF_COUNT), ["vtid", "procname"]),
     "the file: sub-buffers, tracefile limits, contexts")
t.eq([(r.tag, r.get("pattern"), r.get("filter"), r.get("loglevel"))
      for r in doc if r.tag in ("enable", "disable")],
     [("enable", "ust:search_event", "count >= 10", None),
      ("enable", "myprovider:*", None, "DEBUG"), ("enable", "ust:flood", None, "DEBUG"),
      ("disable", "ust:tp_probe", None, None)], "the file: the rules in order")
rot = doc.find("rotation")
t.eq((rot.get("every"), rot.get("on-rotate"), rot.get("on-rotate-timeout")),
     ("1s", hook, "30s"), "the file: the rotation schedule")
t.eq([(x.get("kind"), x.get("value")) for x in doc.findall("track")],
     [("procname", "hello"), ("procname", "flood"), ("uid", UID)], "the file: the trackers")

# --- (b) Destroyed, loaded: everything is back.
ok_cmd(ws, "destroy-session svc", "destroy-session", "svc")
t.ok("svc" not in sessions(ws), "svc is gone")
root = mi(ws, "load-session FILE", "load-session", saved)
got = root.find("ustd-session")
t.eq(mi_trackers(root), WANT_TRACKERS, "load-session --mi xml: the trackers it made")
t.ok(got is not None and got.get("name") == "svc" and got.get("success") == "true" and
     got.findtext("directory", "").startswith(out2 + "/svc-"),
     "load-session: session svc created in the file's output", ET.tostring(root))
listed = sessions(ws)["svc"]
rot = listed.find("rotation")
t.ok(listed.get("state") == "created" and listed.get("rules") == "4" and
     listed.get("overwrite") == "false" and rot is not None and rot.get("every") == "1s" and
     rot.get("on-rotate") == hook and rot.get("on-rotate-timeout") == "30s",
     "list-sessions --mi xml: state, rules, mode and schedule back", ET.tostring(listed))
again = os.path.join(ws.root, "svc-again.xml")
res = ok_cmd(ws, "save-session -s of the loaded session", "save-session", "-s", "svc", again)
t.ok(res.stdout.startswith("session svc saved to %s: " % again) and
     res.stdout.splitlines()[0].endswith(", 0 triggers, 2 trackers") and TRACKING in res.stdout,
     "save-session -s says the session's 2 trackers and what they track", res.stdout)
t.eq(open(again).read(), open(saved).read(), "the loaded session saves to the same file")
res = ok_cmd(ws, "list-sessions svc of the loaded session", "list-sessions", "svc")
t.ok(TRACKING in res.stdout, "load-session: the trackers are back", res.stdout)

# --- (c) Programs under the loaded session: counted exactly, chunks, limits.
ok_cmd(ws, "start-session svc", "start-session", "svc")
sdir = got.findtext("directory") if got is not None else ws.out
hello = run(ws, "hello", HELLO_N)
run(ws, "flood", 1, 20000, stdin="go\n")
adir = os.path.join(sdir, "archives")
t.ok(wait_for(lambda: os.path.isdir(adir) and os.listdir(adir) and os.path.exists(log), timeout=20),
     "the loaded schedule rotates: a chunk appears and --on-rotate runs")
ok_cmd(ws, "stop-session svc", "stop-session", "svc")
ctl(ws, "rotate-session", "svc")
ok_cmd(ws, "destroy-session svc", "destroy-session", "svc")
chunks = sorted(os.listdir(adir)) if os.path.isdir(adir) else []


def all_logged():
    return all(os.path.join(adir, c) in open(log).read().split() for c in chunks)


t.ok(chunks and wait_for(all_logged), "--on-rotate ran with each chunk's path",
     (chunks, os.path.exists(log) and open(log).read()))
hello_events, flood_files = [], {}
for pdir in proc_dirs(sdir):
    ok, why = babeltrace_check(pdir)
    t.ok(ok, "babeltrace2 reads %s" % os.path.relpath(pdir, sdir), why)
    if os.path.basename(pdir).startswith("hello-"):
        events, _ = read_trace(pdir)
        hello_events += events
    for name in os.listdir(pdir):
        path = os.path.join(pdir, name)
        m = re.fullmatch(r"(ust_\d+)(_(\d+))?", name)
        if m and os.path.isfile(path):
            flood_files.setdefault((pdir, m.group(1)), []).append((m.group(3), os.path.getsize(path)))
search = sorted(e.fields["count"] for e in hello_events if e.name == "ust:search_event")
done = sorted(e.fields["status"] for e in hello_events if e.name == "myprovider:request_done")
t.eq(search, list(range(10, HELLO_N)), "hello's ust:search_event: exactly count 10 to %d "
     "(the filter)" % (HELLO_N - 1))
t.eq(done, [200 + i for i in range(HELLO_N)], "hello's myprovider:request_done: all %d" % HELLO_N)
t.eq(sorted({e.name for e in hello_events}), ["myprovider:request_done", "ust:search_event"],
     "hello: nothing else (ust:tp_probe disabled, ust:* not enabled)")
t.ok(all(e.context.get("procname") == "hello" and "vtid" in e.context
         for e in hello_events if e.name == "ust:search_event"),
     "channel ust records the contexts vtid and procname")
t.ok(flood_files and all(k is not None for files in flood_files.values() for k, _ in files),
     "every ust stream is cut into files <stream>_<k> (the session's limits)", flood_files)
t.ok(all(len(files) <= TF_COUNT and all(size <= TF_SIZE for _, size in files)
         for files in flood_files.values()),
     "no ust stream holds more than %d files of at most %d bytes" % (TF_COUNT, TF_SIZE),
     flood_files)
t.ok(any(len(files) == TF_COUNT for files in flood_files.values()),
     "flood's stream reached the count (the oldest files were replaced)", flood_files)

# --- (d) A flight recorder with triggers, saved and loaded under a new name.
ok_cmd(ws, "create-session --overwrite fr", "create-session", "--overwrite", "fr")
ok_cmd(ws, "enable-marker -s fr", "enable-marker", "-s", "fr", "ust:*")
ok_cmd(ws, "add-trigger -s fr", "add-trigger", "-s", "fr", "--on", "ust:tick",
       "--filter", "seq >= 400", "--snapshot", "--at-most", "2/minute")
ok_cmd(ws, "add-trigger -s fr -o DIR", "add-trigger", "-s", "fr", "--on", "ust:no_args",
       "--snapshot", "-o", ws.root)
res = ctl(ws, "enable-rotation", "-s", "fr", "--every", "1s")
t.ok(res.returncode == 1 and "flight recorder" in res.stderr,
     "enable-rotation on a flight recorder: refused, exit 1", res.stderr)
fr_file = os.path.join(ws.root, "fr.xml")
mi(ws, "save-session -s fr", "save-session", "-s", "fr", fr_file)
ok, why = valid(FILE_XSD, fr_file)
t.ok(ok, "the flight recorder's file validates", why)
doc = ET.parse(fr_file).getroot()
t.eq((doc.get("overwrite"), [(g.get("on"), g.get("filter"), g.get("at-most"), g.get("dir"))
                             for g in doc.findall("trigger")]),
     ("true", [("ust:tick", "seq >= 400", "2", None), ("ust:no_args", None, None, ws.root)]),
     "the file: flight recorder, its triggers")
root = mi(ws, "load-session -s NEWNAME", "load-session", "-s", "fr2", fr_file)
t.eq([(g.get("id"), g.get("on")) for g in root.findall("ustd-session/trigger")],
     [("1", "ust:tick"), ("2", "ust:no_args")], "load-session --mi xml: the triggers")
listed = sessions(ws)
trig = listed["fr2"].findall("trigger")
t.ok(listed["fr2"].get("overwrite") == "true" and
     [(g.get("on"), g.get("filter"), g.get("at-most")) for g in trig] ==
     [("ust:tick", "seq >= 400", "2"), ("ust:no_args", None, None)] and
     trig[1].get("dir") == os.path.join(ws.root, "fr2-trigger-2"),
     "list-sessions --mi xml: fr2's triggers back, with their counts",
     ET.tostring(listed["fr2"]))
res = ok_cmd(ws, "list-sessions shows the triggers", "list-sessions")
t.ok(re.search(r"\ttrigger 1: --on ust:tick --filter 'seq >= 400' .*--at-most 2/minute; fired 0",
               res.stdout), "list-sessions text: the triggers", res.stdout)
ok_cmd(ws, "destroy-session fr", "destroy-session", "fr")
ok_cmd(ws, "start-session fr2", "start-session", "fr2")
# A program started later gets the session's triggers once it joined.
ticker = ws.start_app("ticker", ["-t", "1", "-i", "2000"])
fr2_dir = root.findtext("ustd-session/directory")
firing = os.path.join(fr2_dir, "triggers", "trigger-1", "firing-1")
t.ok(wait_for(lambda: os.path.isdir(firing) and os.listdir(firing), timeout=30),
     "the loaded trigger fired: firing-1 written")
ws.stop_app(ticker)
ok_cmd(ws, "destroy-session fr2", "destroy-session", "fr2")
events, _ = read_trace(firing) if os.path.isdir(firing) else ([], 0)
# The firing comes with the first tick from 400 on once the trigger is in
# the program, whenever ustd installed it.
t.ok(any(e.name == "ust:tick" and e.fields["seq"] >= 400 for e in events),
     "the snapshot holds the triggering event")

# --- (e) Bad files and refusals: a clear error, nothing changed.
ok_cmd(ws, "create-session keep", "create-session", "keep")
bad = os.path.join(ws.root, "bad.xml")
bad_file(ws, '<?xml version="1.0"?>\n<ust-session version="2" name="x">\n  <enable pattern="a"\n',
         "malformed XML", 2, r"bad\.xml:\d+: ")
bad_file(ws, '<ust-session version="2" name="x">\n  <rotation every="soon"/>\n</ust-session>\n',
         "a file the schema refuses", 2, r"bad\.xml:2: .*every")
bad_file(ws, '<ust-session version="2" name="auto">\n  <enable pattern="a:*"/>\n</ust-session>\n',
         "an invalid session name in the file", 2, r"bad\.xml:1: session name \"auto\"")
bad_file(ws, '<ust-session version="1">\n  <enable pattern="a:*"/>\n</ust-session>\n',
         "a file that names no session", 2, r"names no session")
bad_file(ws, '<ust-session version="2" name="x">\n  <channel name="ust" tracefile-count="4"/>\n'
         '</ust-session>\n',
         "a tracefile count without a size", 2, r"bad\.xml:2: tracefile-count .*needs")
bad_file(ws, '<ust-session version="2" name="x">\n  <trigger on="a:b"/>\n</ust-session>\n',
         "a trigger on a session that is no flight recorder", 2,
         r"bad\.xml:2: .*flight-recorder")
bad_file(ws, '<ust-session version="2" name="x">\n  <enable pattern="a:*"/>\n'
         '  <track kind="pid" value="0"/>\n</ust-session>\n',
         "a tracker value ustctl track refuses", 2,
         r"bad\.xml:3: track pid \"0\": a decimal number \(a pid is not 0\)")
bad_file(ws, '<ust-session version="2" name="keep">\n  <enable pattern="a:*"/>\n</ust-session>\n',
         "a name taken", 1, r"session 'keep' exists already")
bad_file(ws, '<ust-session version="2" name="half" overwrite="true">\n  <enable pattern="a:*"/>\n'
         '  <trigger on="a:b" dir="/%s"/>\n</ust-session>\n' % ("d" * 4090),
         "ustd refuses half-way (a trigger's directory too long)", 1,
         r"the trigger's directory under /d+.*; session half was destroyed again: nothing changed")
before = set(os.listdir(ws.root))
res = ctl(ws, "save-session", "-s", "nosuch", os.path.join(ws.root, "nosuch.xml"))
t.ok(res.returncode == 1 and "no session 'nosuch'" in res.stderr and
     set(os.listdir(ws.root)) == before, "save-session -s of an unknown session: exit 1, "
     "no file", res.stderr)
res = ctl(ws, "save-session", "-s", "keep", os.path.join(ws.root, "no", "such", "dir.xml"))
t.ok(res.returncode == 1 and "cannot write the session file" in res.stderr,
     "save-session -s to a path that cannot be written: exit 1, says so", res.stderr)
res = ctl(ws, "load-session", "-s", "x", "1234", saved)
t.ok(res.returncode == 2 and "no PID goes with it" in res.stderr,
     "load-session -s NAME PID FILE: usage error", res.stderr)
res = ctl(ws, "enable-rotation", "-s", "keep")
t.ok(res.returncode == 2, "enable-rotation without a schedule: usage error", res.stderr)
res = ctl(ws, "enable-rotation", "-s", "keep", "--every", "1ms")
t.ok(res.returncode == 2 and "--every 1ms" in res.stderr,
     "enable-rotation --every out of bounds: usage error", res.stderr)
res = ctl(ws, "enable-rotation", "-s", "nosuch", "--every", "1s")
t.ok(res.returncode == 1 and "no session 'nosuch'" in res.stderr,
     "enable-rotation on an unknown session: exit 1", res.stderr)
mi(ws, "disable-rotation", "disable-rotation", "-s", "keep")
ok_cmd(ws, "start-session keep", "start-session", "keep")
res = ctl(ws, "set-tracefile", "-s", "keep", "ust/1M/4")
t.ok(res.returncode == 1 and "before its first start" in res.stderr,
     "set-tracefile -s on a started session: refused", res.stderr)
ok_cmd(ws, "destroy-session keep", "destroy-session", "keep")

# --- (g) Per-user buffers: create, list, save, load, save again.
root = mi(ws, "create-session --buffers-uid", "create-session", "--buffers-uid", "-o", ws.out, "us")
t.eq(root.findtext("ustd-session/buffers"), "per-uid", "create-session --mi xml: <buffers>per-uid")
res = ok_cmd(ws, "create-session --buffers-pid", "create-session", "--buffers-pid", "ps")
t.ok("per-user" not in res.stdout, "create-session --buffers-pid says nothing of per-user buffers",
     res.stdout)
ok_cmd(ws, "create-session (default buffers)", "create-session", "ds")
ok_cmd(ws, "enable-marker -s us", "enable-marker", "-s", "us", "--filter", "seq >= 3", "app:*")
res = ok_cmd(ws, "list-sessions (text) with per-user buffers", "list-sessions")
for name, kind in (("us", "per-uid"), ("ps", "per-pid"), ("ds", "per-pid")):
    t.ok(re.search(r"^%s\t[^\n]*\n\tbuffers: %s$" % (name, kind), res.stdout, re.M),
         "list-sessions: %s's line, then buffers: %s" % (name, kind), res.stdout)
    t.eq(sessions(ws).get(name, ET.Element("none")).findtext("buffers"), kind,
         "list-sessions --mi xml: %s's <buffers> is %s" % (name, kind))
res = ok_cmd(ws, "list-sessions us", "list-sessions", "us")
t.ok("\n  buffers: per-uid\n" in res.stdout, "list-sessions us: buffers: per-uid", res.stdout)
t.eq(mi(ws, "list-sessions us", "list-sessions", "us").findtext("ustd-session/buffers"), "per-uid",
     "list-sessions us --mi xml: <buffers>per-uid")
us_file, ps_file = os.path.join(ws.root, "us.xml"), os.path.join(ws.root, "ps.xml")
ok_cmd(ws, "save-session -s us", "save-session", "-s", "us", us_file)
ok_cmd(ws, "save-session -s ps", "save-session", "-s", "ps", ps_file)
us_text = open(us_file).read() if os.path.exists(us_file) else ""
ps_text = open(ps_file).read() if os.path.exists(ps_file) else ""
t.ok(re.search(r'<ust-session version="2" name="us" overwrite="false" buffers="per-uid">',
               us_text) and valid(FILE_XSD, us_file)[0],
     'the file of us says buffers="per-uid", valid against the schema', us_text)
t.ok(ps_text and "buffers=" not in ps_text,
     "the file of a session with per-process buffers has no buffers attribute", ps_text)
ok_cmd(ws, "destroy-session us", "destroy-session", "us")
ok_cmd(ws, "load-session us.xml", "load-session", us_file)
t.eq(sessions(ws).get("us", ET.Element("none")).findtext("buffers"), "per-uid",
     "the loaded us has per-user buffers")
again = os.path.join(ws.root, "us-again.xml")
ok_cmd(ws, "save-session -s us of the loaded session", "save-session", "-s", "us", again)
t.eq(open(again).read() if os.path.exists(again) else "", us_text,
     "saved again, the loaded us writes the same file")
for name in ("us", "ps", "ds"):
    ok_cmd(ws, "destroy-session " + name, "destroy-session", name)

for what, args, pattern in (
        ("--buffers-uid with --buffers-pid", ["--buffers-uid", "--buffers-pid"],
         r"--buffers-pid and --buffers-uid: .*give one"),):
    res = ctl(ws, "create-session", *(args + ["bad"]))
    t.ok(res.returncode == 2 and re.search(pattern, res.stderr),
         "create-session %s: exit 2, says why" % what, res.stderr)
t.ok("bad" not in sessions(ws), "none of them made a session")
res = ok_cmd(ws, "create-session --buffers-uid --overwrite (a flight recorder per user)",
             "create-session", "--buffers-uid", "--overwrite", "ufr")
res = ok_cmd(ws, "list-sessions ufr", "list-sessions", "ufr")
t.ok("\n  buffers: per-uid\n" in res.stdout and "flight recorder" in res.stdout,
     "list-sessions ufr: a flight recorder with per-user buffers", res.stdout)
ok_cmd(ws, "destroy-session ufr", "destroy-session", "ufr")
bad_file(ws, '<ust-session version="2" name="x" buffers="per-gid">\n  <enable pattern="a:*"/>\n'
         '</ust-session>\n', "an unknown buffer type in a file", 2,
         r"bad\.xml:1: .*buffers.*per-gid")
# ustd's own refusals, for clients other than ustctl: SESSION_CREATE (35).
sock = os.path.join(ws.rundir, "ustd") + ".ctl"
for what, args, pattern in (
        ("BUFFERS gid", ["w", "", "0", "0", "0", "gid"],
         r"unknown buffer type 'gid': 'pid' .* or 'uid'"),
        ("a seventh argument", ["w", "", "0", "0", "0", "uid", "x"],
         r"the wrong number of arguments")):
    reply = ctl_call(sock, ustest.ctl_request(35, *args))
    t.ok(reply is not None and reply[0] < 0 and re.search(pattern, reply[1][0]),
         "ustd refuses create-session with %s, saying why" % what, reply)
t.ok("w" not in sessions(ws), "and makes no session")

# --- (f) Version 1 files still load; usttrace and the per-process commands
# read version 2 files.
old = os.path.join(ws.root, "old.xml")
with open(old, "w") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<ust-session version="1">\n'
            '  <channel name="ust" subbuf-size="64k" subbuf-num="4"/>\n'
            '  <enable pattern="ust:*"/>\n  <disable pattern="ust:tick"/>\n</ust-session>\n')
mi(ws, "load-session -s NAME of a version 1 file", "load-session", "-s", "old", old)
t.ok(sessions(ws)["old"].get("rules") == "2", "the version 1 file's rules are the session's")
ok_cmd(ws, "destroy-session old", "destroy-session", "old")

res = ws.usttrace(["--session", saved, app("hello"), str(HELLO_N)])
t.ok(res.returncode == 0, "usttrace --session of a version 2 file", res.stderr)
dirs = [d for d in ws.trace_dirs() if os.path.basename(d).startswith("hello-") and
        os.path.dirname(d) == ws.out]
events, _ = read_trace(dirs[0]) if len(dirs) == 1 else ([], 0)
t.eq(sorted(e.fields["count"] for e in events if e.name == "ust:search_event"),
     list(range(10, HELLO_N)), "usttrace --session: the file's rules and filter")
t.ok(len(dirs) == 1 and any(re.fullmatch(r"ust_\d+_0", n) for n in os.listdir(dirs[0])),
     "usttrace --session: the file's tracefile limits (stream files ust_<cpu>_<k>)",
     dirs and os.listdir(dirs[0]))

proc = ws.start_app("ticker", ["-i", "100000"])
ok_cmd(ws, "load-session PID of a version 2 file", "load-session", proc.pid, saved)
res = ok_cmd(ws, "get-tracefile PID ust", "get-tracefile", proc.pid, "ust")
t.eq(res.stdout.strip(), "%d/%d" % (TF_SIZE, TF_COUNT), "the file's limits in the process")
refused = os.path.join(ws.root, "refused.xml")
# The process holds svc.xml's 4 rules: 1021 more pass the file's bound
# and the process refuses them, after the limits were set.
with open(refused, "w") as f:
    f.write('<ust-session version="2">\n  <channel name="ust" tracefile-size="16k" tracefile-count="3"/>\n' +
            "".join('  <enable pattern="r%d:*"/>\n' % i for i in range(1021)) + '</ust-session>\n')
res = ctl(ws, "load-session", proc.pid, refused)
t.ok(res.returncode == 1 and "too many" in res.stderr,
     "load-session PID of a file the process refuses (too many rules): exit 1", res.stderr)
res = ctl(ws, "get-tracefile", proc.pid, "ust")
t.eq(res.stdout.strip(), "%d/%d" % (TF_SIZE, TF_COUNT),
     "the refused file's limits were put back as they were")
per_pid = os.path.join(ws.root, "pid.xml")
root = mi(ws, "save-session PID", "save-session", proc.pid, per_pid)
chans = {c.get("name"): c for c in ET.parse(per_pid).getroot().findall("channel")}
t.ok("ust" in chans and chans["ust"].get("tracefile-size") == "8k" and
     chans["ust"].get("tracefile-count") == str(TF_COUNT) and valid(FILE_XSD, per_pid)[0],
     "save-session PID writes the process's tracefile limits", open(per_pid).read())
ws.stop_app(proc)

t.done()
