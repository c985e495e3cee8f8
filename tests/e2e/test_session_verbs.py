# SPDX-License-Identifier: GPL-2.0-only
"""The session verbs of LTTng on ustd's sessions, with the real ustd and
tests/apps/service: list-sessions NAME (the session's settings, chunks,
processes, bytes and discarded events; --mi xml valid against the
schema; an unknown name refused), snapshot -s NAME of a flight-recorder
session (one directory, a trace per process, read merged by babeltrace2;
refused for a session written to disk), clear-session of a session on
disk (the events before it gone from every process's trace, those of a
process that ended before it too, archived chunks kept, the events after
it kept) and of a flight-recorder session (the next snapshot holds only
what came after)."""

import os
import re
import subprocess
import time

import xml.etree.ElementTree as ET

import ustest
from relayd import Relayd
from service_app import command, quit_service, start_service
from ustest import TOP_SRC, Tap, Workspace, babeltrace_check, read_trace, wait_for

t = Tap()
ws = Workspace()
ws.start_ustd()
XSD = os.path.join(TOP_SRC, "doc", "xml", "ustctl-mi.xsd")


def ctl(*args):
    return ws.ustctl_fast([str(a) for a in args])


def mi(*args):
    """--mi xml of a command: (result, root element or None, schema errors)."""
    res = ctl("--mi", "xml", *args)
    valid = subprocess.run(["xmllint", "--noout", "--schema", XSD, "-"], input=res.stdout,
                           capture_output=True, text=True, timeout=60)
    root = ET.fromstring(res.stdout) if valid.returncode == 0 else None
    return res, root, res.stdout + res.stderr + valid.stderr


def warns(path):
    """{pid: [seq of each app:warn]} of the traces under path."""
    found = {}
    for d in sorted(os.listdir(path)) if os.path.isdir(path) else []:
        m = re.match(r"service-(\d+)", d)
        if not m:
            continue
        events, _ = read_trace(os.path.join(path, d))
        found.setdefault(int(m.group(1)), []).extend(
            e.fields["seq"] for e in events if e.name == "app:warn")
    return found


def du(path):
    return sum(os.path.getsize(os.path.join(dp, f))
               for dp, _, files in os.walk(path) for f in files)


# 1. list-sessions NAME of a session written to disk.
res = ctl("create-session", "-o", ws.out, "--subbuf-size", "16k", "--subbuf-num", "4",
          "--tracefile-size", "1M", "--tracefile-count", "3", "disk")
t.ok(res.returncode == 0, "create-session disk", res.stderr)
sdir = ustest.session_dir(ws.out, "disk")
ctl("enable-marker", "-s", "disk", "--filter", "seq >= 0", "app:*")
ctl("disable-marker", "-s", "disk", "app:request")
ctl("enable-marker", "-s", "disk", "--loglevel", "WARNING", "app:request")
ctl("add-context", "-s", "disk", "app", "vtid", "procname")
ctl("enable-rotation", "-s", "disk", "--every", "1h")
procs = [start_service(ws) for _ in range(2)]
res = ctl("start-session", "disk")
t.ok(res.returncode == 0, "start-session disk with 2 processes", res.stderr)
t.ok(wait_for(lambda: all(os.path.isdir(os.path.join(sdir, "service-%d" % p.pid))
                          for p in procs), timeout=15), "both trace into the session")
res = ctl("rotate-session", "disk")
t.ok(res.returncode == 0, "rotate-session disk: one chunk archived", res.stderr)
res = ctl("list-sessions", "disk")
out = res.stdout
t.ok(res.returncode == 0 and out.startswith("session disk: active, written to disk as it goes, "
                                            "2 processes\n"),
     "list-sessions disk: state, mode and number of processes", out + res.stderr)
t.ok("  output: %s\n  buffers: per-pid\n" % sdir in out,
     "its output directory, then its buffers: per process (the default)", out)
t.ok(re.search(r"^  channel \*: subbuf-size 16k, subbuf-num 4, tracefile-size 1M, "
               r"tracefile-count 3$", out, re.M) is not None,
     "the channel settings: sub-buffers and tracefile limits", out)
t.ok(re.search(r"^  channel app: default buffers, contexts vtid,procname$", out, re.M)
     is not None, "the contexts of channel app", out)
t.ok(re.search(r"^  enable 'app:\*' filter 'seq >= 0'\n"
               r"  disable 'app:request'\n  enable 'app:request' loglevel WARNING$", out, re.M)
     is not None,
     "the rules in order, with log level and filter", out)
t.ok(re.search(r"^  rotation: every 1h$", out, re.M) is not None, "the rotation schedule", out)
t.ok(re.search(r"^  chunks archived: 1; current chunk since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$",
               out, re.M) is not None, "the chunks archived so far", out)
chunks = sorted(os.listdir(os.path.join(sdir, "archives")))
t.ok(len(chunks) == 1 and "  chunk %s\n" % os.path.join(sdir, "archives", chunks[0]) in out,
     "the archived chunk's directory", out)
t.ok("  tracking: every pid; every procname; every uid\n" in out,
     "the trackers: every process", out)
for p in procs:
    t.ok("  process %d service\n" % p.pid in out, "process %d is listed with its name" % p.pid,
         out)
m = re.search(r"^  disk: (\d+) bytes in (\S+); (\d+) events discarded", out, re.M)
t.ok(m and m.group(2) == sdir and int(m.group(1)) > 0 and m.group(3) == "0",
     "the bytes in its directory and the events discarded (none)", out)
res, root, why = mi("list-sessions", "disk")
s = root.find("./ustd-session") if root is not None else None
t.ok(s is not None and s.get("name") == "disk" and s.get("state") == "active" and
     sorted(int(x.get("pid")) for x in s.findall("process")) == sorted(p.pid for p in procs)
     and s.find("chunks").text == "1" and len(s.findall("chunk")) == 1 and
     [x.get("policy") for x in s.findall("tracker")] == ["all", "all", "all"] and
     len(s.findall("rule")) == 3 and s.find("rotation").get("every") == "1h" and
     s.findtext("buffers") == "per-pid",
     "list-sessions disk --mi xml: valid against ustctl-mi.xsd, processes, chunks, trackers, "
     "rules, rotation, buffers in it", why)
res = ctl("list-sessions", "nosuch")
t.ok(res.returncode == 1 and "no session 'nosuch'" in res.stderr and not res.stdout,
     "list-sessions nosuch: exit 1, says there is no such session", res.stdout + res.stderr)
res = ctl("list-sessions", "bad name")
t.eq(res.returncode, 2, "list-sessions with an invalid name: exit 2")

# 2. snapshot -s refused for a session written to disk.
res = ctl("snapshot", "-s", "disk")
t.ok(res.returncode == 1 and "not in flight-recorder mode" in res.stderr,
     "snapshot -s disk: exit 1, the session is not a flight recorder", res.stderr)

# 3. clear-session of the session on disk: a process that ended before it,
# the others' events before it, go; archived chunks and what follows stay.
for k, p in enumerate(procs):
    t.ok(command(p, "warn %d" % (10 + k)), "process %d: warn %d before the clear"
         % (p.pid, 10 + k))
late = start_service(ws)
t.ok(wait_for(lambda: os.path.isdir(os.path.join(sdir, "service-%d" % late.pid)), timeout=15),
     "a process started later joins")
command(late, "warn 20")
t.eq(quit_service(late), 0, "it ends before the clear")
t.ok(wait_for(lambda: warns(sdir).get(late.pid) == [20], timeout=15),
     "its trace with warn 20 is in the session's directory")
archives = sorted(os.listdir(os.path.join(sdir, "archives")))
res = ctl("clear-session", "disk")
t.ok(res.returncode == 0 and "session disk cleared" in res.stdout and
     "(2 processes tracing on)" in res.stdout, "clear-session disk", res.stdout + res.stderr)
t.ok(not os.path.exists(os.path.join(sdir, "service-%d" % late.pid)),
     "the ended process's trace is gone", os.listdir(sdir))
t.eq(sorted(os.listdir(os.path.join(sdir, "archives"))), archives, "the archived chunk stays")
t.ok(not [n for n in os.listdir(sdir) if n.startswith(".")], "nothing hidden is left",
     os.listdir(sdir))
for k, p in enumerate(procs):
    command(p, "warn %d" % (30 + k))
res = ctl("stop-session", "disk")
t.ok(res.returncode == 0, "stop-session disk", res.stderr)
ok, err = babeltrace_check(sdir)
t.ok(ok, "babeltrace2 reads the session's directory after the clear", err)
got = warns(sdir)
t.eq({pid: sorted(v) for pid, v in got.items()},
     {p.pid: [30 + k] for k, p in enumerate(procs)},
     "each process's trace holds its warn after the clear, none of before")
res = ctl("list-sessions", "disk")
m = re.search(r"^  disk: (\d+) bytes in", res.stdout, re.M)
t.ok(m and int(m.group(1)) == du(sdir), "list-sessions disk: the bytes are those in its "
     "directory now", res.stdout)
ctl("destroy-session", "disk")
for p in procs:
    quit_service(p)

# 3b. A session streamed to lttng-relayd: shown with its URL, not cleared.
relayd = Relayd(ws, "relay")
res = ctl("create-session", "-r", relayd.url, "st")
t.ok(res.returncode == 0, "create-session -r URL st", res.stderr)
res = ctl("list-sessions", "st")
t.ok(re.search(r"^  output: streamed to lttng-relayd at %s \(local fallback \S+\)$"
               % re.escape(relayd.url), res.stdout, re.M) is not None,
     "list-sessions st: streamed to the URL, with the local fallback", res.stdout)
res = ctl("clear-session", "st")
t.ok(res.returncode == 1 and "streamed to lttng-relayd" in res.stderr and
     "has no clear" in res.stderr, "clear-session st: exit 1, says relayd's protocol has no "
     "clear", res.stderr)
ctl("destroy-session", "st")
relayd.kill()

# 4. A flight-recorder session: snapshot -s, clear-session.
res = ctl("create-session", "-o", ws.out, "--overwrite", "--subbuf-size", "16k",
          "--subbuf-num", "4", "fr")
fdir = ustest.session_dir(ws.out, "fr")
ctl("enable-marker", "-s", "fr", "app:*")
res = ctl("snapshot", "-s", "fr")
t.ok(res.returncode == 1 and "not active" in res.stderr, "snapshot -s of a session never "
     "started: exit 1, says it is not active", res.stderr)
procs = [start_service(ws) for _ in range(2)]
ctl("start-session", "fr")
t.ok(wait_for(lambda: len(ctl("list-sessions", "fr").stdout.split("  process ")) == 3,
              timeout=15), "both processes trace for session fr")
for k, p in enumerate(procs):
    command(p, "warn %d" % (40 + k))
odir = os.path.join(ws.root, "snaps")
res, root, why = mi("snapshot", "-s", "fr", "-o", odir)
s = root.find("./ustd-session") if root is not None else None
snap = s.find("snapshot").text if s is not None else ""
t.ok(s is not None and snap == os.path.join(odir, "snapshot-1") and
     s.find("processes").text == "2", "snapshot -s fr -o DIR --mi xml: DIR/snapshot-1, "
     "2 processes, valid against the schema", why)
ok, err = babeltrace_check(snap)
t.ok(ok, "babeltrace2 reads the snapshot's directory whole", err)
events, _ = read_trace(snap) if os.path.isdir(snap) else ([], None)
t.eq(sorted(e.fields["seq"] for e in events if e.name == "app:warn"), [40, 41],
     "the snapshot holds both processes' warns, merged")
t.eq(sorted(os.listdir(snap)), sorted("service-%d-snapshot-1" % p.pid for p in procs),
     "one directory per process in it")
res = ctl("snapshot", "-s", "fr")
t.ok(res.returncode == 0 and "session fr: snapshot of 2 processes in %s\n"
     % os.path.join(fdir, "snapshots", "snapshot-1") == res.stdout,
     "snapshot -s fr: in <session dir>/snapshots/snapshot-1", res.stdout + res.stderr)
res, root, why = mi("clear-session", "fr")
s = root.find("./ustd-session") if root is not None else None
t.ok(res.returncode == 0 and s is not None and s.get("success") == "true" and
     s.find("processes").text == "2", "clear-session fr --mi xml: 2 processes cleared, valid "
     "against the schema", why)
for k, p in enumerate(procs):
    command(p, "warn %d" % (50 + k))
res = ctl("snapshot", "-s", "fr")
snap = os.path.join(fdir, "snapshots", "snapshot-2")
events, _ = read_trace(snap) if os.path.isdir(snap) else ([], None)
seqs = sorted(e.fields["seq"] for e in events if e.name == "app:warn")
t.eq(seqs, [50, 51], "the snapshot after the clear holds the warns after it only")
t.ok(os.path.isdir(os.path.join(fdir, "snapshots", "snapshot-1")),
     "the snapshot taken before the clear stays")
ctl("destroy-session", "fr")
for p in procs:
    quit_service(p)
t.done()
