# SPDX-License-Identifier: GPL-2.0-only
"""Rotation of sessions held by ustd (ustctl rotate-session, create-session
--rotate-every / --rotate-size / --on-rotate).

Each archived chunk, <session dir>/archives/<begin>-<end>-<n>/, is a
complete trace that babeltrace2 reads on its own while tracing goes on;
every packet is in exactly one chunk, so the union of the chunks is every
event the programs emitted (tests/apps/ticker numbers them per thread)
but the discards the tracer counted, none twice. Rotation every second for
20 s under load; rotate-session by hand with two processes; bad input;
--on-rotate commands that succeed, fail, cannot be found and hang."""

import os
import re
import signal
import subprocess
import time

import ustest
from ustest import (TOP_SRC, Tap, VerboseUstd, Workspace, babeltrace_check, read_trace,
                    stream_discarded, wait_for)

t = Tap()
XSD = os.path.join(TOP_SRC, "doc", "xml", "ustctl-mi.xsd")
CHUNK_RE = re.compile(r"(\d{8}T\d{6}[+-]\d{4})-(\d{8}T\d{6}[+-]\d{4})-(\d+)$")


def ctl(ws, *args):
    return ws.ustctl_fast(list(args))


def ok_cmd(ws, what, *args):
    res = ctl(ws, *args)
    t.ok(res.returncode == 0, what, res.stdout + res.stderr)
    return res


def session_dir(ws, name):
    return ustest.session_dir(ws.out, name)


def chunks(sdir):
    """The archived chunks, in order of their number (not one being filled,
    under its hidden name)."""
    adir = os.path.join(sdir, "archives")
    found = []
    for name in os.listdir(adir) if os.path.isdir(adir) else []:
        if name.startswith("."):
            continue
        m = CHUNK_RE.fullmatch(name)
        found.append((int(m.group(3)) if m else -1, os.path.join(adir, name)))
    return [p for _, p in sorted(found)]


def start_ticker(ws, *args):
    return ws.start_app("ticker", args)


def stop_ticker(ws, proc):
    """SIGTERM; {thread: events emitted} from its last words."""
    out, _ = ws.stop_app(proc)
    return {int(m.group(1)): int(m.group(2))
            for m in re.finditer(r"^emitted (\d+) (\d+)$", out, re.M)}


def ticks(path):
    """[(pid, thread, seq, ts)] of every ust:tick under path, and the
    discards babeltrace2 reports."""
    events, discarded = read_trace(path)
    return [(e.vpid, e.fields["thread"], e.fields["seq"], e.ts) for e in events
            if e.name == "ust:tick"], discarded


def context_discards(paths):
    """The events the tracer counted as discarded, from the packet contexts:
    the counter is cumulative per stream, so the largest value any chunk
    holds for a stream is that stream's total."""
    best = {}
    for chunk in paths:
        for proc in os.listdir(chunk):
            for name, n in stream_discarded(os.path.join(chunk, proc)).items():
                best[(proc, name)] = max(best.get((proc, name), 0), n)
    return sum(best.values())


def seq_ranges(evs):
    """{(pid, thread): (first seq, last seq, count)} of a chunk's ticks."""
    out = {}
    for pid, th, seq, _ in evs:
        lo, hi, n = out.get((pid, th), (seq, seq, 0))
        out[(pid, th)] = (min(lo, seq), max(hi, seq), n + 1)
    return out


def check_union(label, paths, emitted):
    """Every chunk alone, then the union against what was emitted."""
    bad = [(p, err) for p in paths for ok, err in [babeltrace_check(p)] if not ok]
    t.ok(paths and not bad, "%s: each of the %d chunks reads on its own with babeltrace2" %
         (label, len(paths)), bad[:2])
    seen, per_chunk = [], []
    for p in paths:
        evs, _ = ticks(p)
        seen.extend((pid, th, seq) for pid, th, seq, _ in evs)
        per_chunk.append(evs)
    dups = len(seen) - len(set(seen))
    t.eq(dups, 0, "%s: no event in two chunks" % label)
    want = set((pid, th, s) for (pid, th), n in emitted.items() for s in range(n))
    got = set(seen)
    missing = want - got
    discards = context_discards(paths)
    t.ok(got <= want and len(missing) == discards,
         "%s: the union of the chunks is the %d events emitted, %d of them counted discarded" %
         (label, len(want), discards),
         "missing %d (%s...), unexpected %d" % (len(missing), sorted(missing)[:5],
                                                 len(got - want)))
    # Across each boundary, a thread's events go on where they stopped.
    late, where = 0, []
    for i, (a, b) in enumerate(zip(per_chunk, per_chunk[1:])):
        last = {}
        for pid, th, seq, ts in a:
            last[(pid, th)] = max(last.get((pid, th), -1), seq)
        n = sum(1 for pid, th, seq, ts in b if seq <= last.get((pid, th), -1))
        if n:
            where.append("%d late in %s after %s" % (n, paths[i + 1], paths[i]))
        late += n
    t.ok(late == 0, "%s: no chunk holds an event older than one of the chunk before" % label,
         "\n".join(where + ["%s: %s" % (os.path.basename(p), seq_ranges(evs))
                             for p, evs in zip(paths, per_chunk)]))
    return per_chunk


# --- (a) Every second for 20 s under load, --on-rotate logging each chunk.
ws = Workspace()
ustd = VerboseUstd(ws, ws.out)
log = os.path.join(ws.root, "on-rotate.log")
hook = os.path.join(ws.root, "hook.sh")
with open(hook, "w") as f:
    f.write('#!/bin/sh\necho "$1" >> %s\n' % log)
os.chmod(hook, 0o755)
ok_cmd(ws, "create-session --rotate-every 1s --on-rotate HOOK",
       "create-session", "-o", ws.out, "--subbuf-size", "16k", "--subbuf-num", "8",
       "--rotate-every", "1s", "--on-rotate", hook, "load")
ok_cmd(ws, "enable-marker -s load ust:tick", "enable-marker", "-s", "load", "ust:tick")
ok_cmd(ws, "start-session load", "start-session", "load")
app = start_ticker(ws, "-t", "2", "-i", "20")
time.sleep(20)
emitted = {(app.pid, th): n for th, n in stop_ticker(ws, app).items()}
t.ok(len(emitted) == 2 and min(emitted.values()) > 20000,
     "ticker emitted %s events in 20 s" % sorted(emitted.values()), emitted)
ok_cmd(ws, "stop-session load", "stop-session", "load")
# The periodic rotation may have archived the ended process already.
res = ctl(ws, "rotate-session", "load")
t.ok(res.returncode == 0 or "nothing to archive" in res.stderr,
     "rotate-session of the stopped session archives what is left", res.stdout + res.stderr)
res = ctl(ws, "rotate-session", "load")
t.ok(res.returncode == 1 and "load" in res.stderr and
     ("rotated since it stopped" in res.stderr or "nothing to archive" in res.stderr),
     "a second rotate-session of the stopped session: nothing new, said", res.stderr)
# Started again, it rotates again.
ok_cmd(ws, "start-session load again", "start-session", "load")
res = ctl(ws, "rotate-session", "load")
t.ok(res.returncode == 1 and "nothing to archive" in res.stderr,
     "restarted after a rotation while stopped: rotate-session is taken again", res.stderr)
ok_cmd(ws, "stop-session load again", "stop-session", "load")
ok_cmd(ws, "destroy-session load", "destroy-session", "load")
sdir = session_dir(ws, "load")
paths = chunks(sdir)
names = [CHUNK_RE.search(p) for p in paths]
t.ok(len(paths) >= 15 and all(names) and
     [int(m.group(3)) for m in names] == list(range(len(paths))) and
     all(m.group(2) <= n.group(1) for m, n in zip(names, names[1:])),
     "%d chunks in 20 s, named <begin>-<end>-<n> with n from 0 and times that follow" %
     len(paths), [os.path.basename(p) for p in paths])
t.eq(sorted(d for d in os.listdir(sdir) if d != "archives"), [],
     "everything is archived: nothing left beside archives/")
per_chunk = check_union("every 1 s under load", paths, emitted)
t.ok(sum(1 for c in per_chunk if c) >= len(paths) - 2,
     "events in every chunk but at most the last two",
     [len(c) for c in per_chunk])
# babeltrace2 also reads the chunks together, as one trace.
whole, bt_discards = ticks(os.path.join(sdir, "archives"))
t.eq(len(whole) + bt_discards, sum(emitted.values()),
     "babeltrace2 on archives/: the chunks read as one trace, every event but those it reports discarded")
wait_for(lambda: os.path.exists(log) and len(open(log).read().split()) >= len(paths), 10)
logged = open(log).read().split() if os.path.exists(log) else []
t.eq(sorted(logged), sorted(paths), "--on-rotate ran once on each chunk, with its path")
ws.cleanup()

# --- (b) rotate-session by hand, two processes.
ws = Workspace()
ws.start_ustd()
ok_cmd(ws, "create-session two", "create-session", "-o", ws.out, "two")
ok_cmd(ws, "enable-marker -s two ust:tick", "enable-marker", "-s", "two", "ust:tick")
ok_cmd(ws, "start-session two", "start-session", "two")
apps = [start_ticker(ws, "-i", "500"), start_ticker(ws, "-t", "2", "-i", "300")]
printed, asked = [], []
for i in range(3):
    time.sleep(1)
    asked.append(time.time_ns())
    res = ok_cmd(ws, "rotate-session two (%d)" % i, "rotate-session", "two")
    printed.append(res.stdout.strip())
    if i == 0:
        subs = sorted(os.listdir(printed[0])) if os.path.isdir(printed[0]) else []
        t.eq(subs, sorted("ticker-%d" % a.pid for a in apps),
             "the chunk printed holds one directory per process")
        ok, err = babeltrace_check(printed[0])
        t.ok(ok, "the first chunk reads while both processes go on tracing", err)
        evs, _ = ticks(printed[0])
        t.eq(sorted(set(e[0] for e in evs)), sorted(a.pid for a in apps),
             "the first chunk holds events of both processes")
t.ok(all(CHUNK_RE.search(p) and int(CHUNK_RE.search(p).group(3)) == i
         for i, p in enumerate(printed)),
     "rotate-session prints chunks 0, 1, 2", printed)
# --mi xml, checked against the schema.
res = ws.ustctl(["--mi", "xml", "rotate-session", "two"])
valid = subprocess.run(["xmllint", "--noout", "--schema", XSD, "-"], input=res.stdout,
                       capture_output=True, text=True, timeout=60)
m = re.search(r"<chunk>([^<]+)</chunk>", res.stdout)
t.ok(res.returncode == 0 and valid.returncode == 0 and m and CHUNK_RE.search(m.group(1)),
     "rotate-session --mi xml: valid against ustctl-mi.xsd, gives chunk 3",
     res.stdout + valid.stderr)
emitted = {}
for a in apps:
    emitted.update({(a.pid, th): n for th, n in stop_ticker(ws, a).items()})
ok_cmd(ws, "stop-session two", "stop-session", "two")
ok_cmd(ws, "rotate-session two, stopped", "rotate-session", "two")
ok_cmd(ws, "destroy-session two", "destroy-session", "two")
paths = chunks(session_dir(ws, "two"))
t.eq(len(paths), 5, "five chunks: four while running, one after the stop")
per_chunk = check_union("by hand, 2 processes", paths, emitted)
# The open packets are closed at the rotation: an event recorded before
# rotate-session was asked (a packet holds seconds of these) is in that
# chunk or an earlier one. 100 ms for the trace clock's offset to ours.
late = [(i, k) for i, when in enumerate(asked) for k, evs in enumerate(per_chunk)
        if k > i and any(ts < when - 100000000 for _, _, _, ts in evs)]
t.eq(late, [], "by hand: every event recorded before a rotation is in its chunk or before")
ws.cleanup()

# --- (e) --rotate-size: a chunk once the processes wrote that much.
ws = Workspace()
ws.start_ustd()
SIZE = 256 * 1024
ok_cmd(ws, "create-session --rotate-size 256k", "create-session", "-o", ws.out,
       "--subbuf-size", "16k", "--rotate-size", "256k", "sized")
ok_cmd(ws, "enable-marker -s sized ust:tick", "enable-marker", "-s", "sized", "ust:tick")
ok_cmd(ws, "start-session sized", "start-session", "sized")
app = start_ticker(ws, "-t", "2", "-i", "50")
sdir = session_dir(ws, "sized")
wait_for(lambda: len(chunks(sdir)) >= 4, 30)
emitted = {(app.pid, th): n for th, n in stop_ticker(ws, app).items()}
ok_cmd(ws, "stop-session sized", "stop-session", "sized")
ctl(ws, "rotate-session", "sized")
ok_cmd(ws, "destroy-session sized", "destroy-session", "sized")
paths = chunks(sdir)


def stream_bytes(chunk):
    return sum(os.path.getsize(os.path.join(dp, f)) for dp, _, files in os.walk(chunk)
               for f in files if f != "metadata" and not f.endswith(".idx"))


sizes = [stream_bytes(p) for p in paths]
t.ok(len(paths) >= 4 and all(b >= SIZE for b in sizes[:-2]),
     "--rotate-size 256k: %d chunks, each but the last two of at least 256 KiB of packets" %
     len(paths), sizes)
check_union("--rotate-size", paths, emitted)
ws.cleanup()

# --- (c) Bad input: clear messages, non-zero exit, nothing created.
ws = Workspace()
ws.start_ustd()
res = ctl(ws, "rotate-session", "nosuch")
t.ok(res.returncode == 1 and "no session 'nosuch'" in res.stderr,
     "rotate-session of a session that does not exist", res.stderr)
ok_cmd(ws, "create-session idle", "create-session", "-o", ws.out, "idle")
res = ctl(ws, "rotate-session", "idle")
t.ok(res.returncode == 1 and "never started" in res.stderr and "start-session idle" in res.stderr,
     "rotate-session of a session never started", res.stderr)
ok_cmd(ws, "start-session idle", "start-session", "idle")
res = ctl(ws, "rotate-session", "idle")
t.ok(res.returncode == 1 and "nothing to archive" in res.stderr,
     "rotate-session of a session no process traced for", res.stderr)
res = ctl(ws, "rotate-session", "bad/name")
t.ok(res.returncode == 2 and "invalid session name" in res.stderr,
     "rotate-session of an invalid name: usage error", res.stderr)
for value in ("0", "1x", "50ms", "", "-1s", "1.5s", "40d", "s"):
    res = ctl(ws, "create-session", "-o", ws.out, "--rotate-every", value, "r")
    t.ok(res.returncode == 2 and "--rotate-every %s:" % value in res.stderr and
         "100ms" in res.stderr,
         "--rotate-every '%s': usage error saying what is expected" % value, res.stderr)
for opt, value, word in (("--rotate-size", "1k", "--rotate-size 1k:"),
                         ("--rotate-size", "lots", "--rotate-size lots:"),
                         ("--on-rotate-timeout", "0", "--on-rotate-timeout 0:"),
                         ("--on-rotate", "", "--on-rotate: a command")):
    res = ctl(ws, "create-session", "-o", ws.out, opt, value, "r")
    t.ok(res.returncode == 2 and word in res.stderr,
         "%s '%s': usage error" % (opt, value), res.stderr)
res = ctl(ws, "create-session", "-o", ws.out, "--overwrite", "--rotate-every", "1s", "r")
t.ok(res.returncode == 2 and "flight-recorder" in res.stderr,
     "--overwrite with --rotate-every: usage error", res.stderr)
res = ctl(ws, "list-sessions")
t.ok(res.returncode == 0 and not re.search(r"^r\t", res.stdout, re.M),
     "none of the refused create-session left a session", res.stdout)
ws.cleanup()

# --- (d) --on-rotate commands that fail, cannot be found, hang.
ws = Workspace()
ustd = VerboseUstd(ws, ws.out)
hang = os.path.join(ws.root, "hang.sh")
with open(hang, "w") as f:
    f.write("#!/bin/sh\nsleep 60\n")
os.chmod(hang, 0o755)
cases = (("false", ["false"], r"failed: exit status 1"),
         ("missing", ["/nonexistent/ship-it"], r"failed: exit status 127"),
         ("hang", [hang, "--on-rotate-timeout", "1s"],
          r"ran past its bound of 1000 ms and was killed"))
for name, hook_args, pattern in cases:
    ok_cmd(ws, "create-session --on-rotate %s" % hook_args[0],
           "create-session", "-o", ws.out, "--rotate-every", "1s", "--on-rotate",
           *hook_args, name)
    ok_cmd(ws, "enable-marker -s %s" % name, "enable-marker", "-s", name, "ust:tick")
    ok_cmd(ws, "start-session %s" % name, "start-session", name)
    app = start_ticker(ws, "-i", "200")
    sdir = session_dir(ws, name)
    rx = r"session %s: the --on-rotate command for (%s/archives/\S+) %s" % (
        name, re.escape(sdir), pattern)
    first = ustd.wait_line(rx, timeout=15)
    t.ok(first is not None, "%s: reported on ustd's stderr with the chunk's path" % name,
         "".join(ustd.seen[-5:]))
    # Tracing goes on: more chunks complete after the failure, and ustd answers.
    begun = time.time()
    res = ctl(ws, "list-sessions")
    t.ok(res.returncode == 0 and time.time() - begun < 5,
         "%s: ustd answers while the command fails or hangs" % name, res.stderr)
    wait_for(lambda: len(chunks(sdir)) >= 4, 15)
    emitted = {(app.pid, th): n for th, n in stop_ticker(ws, app).items()}
    ok_cmd(ws, "stop-session %s" % name, "stop-session", name)
    ctl(ws, "rotate-session", name)
    ok_cmd(ws, "destroy-session %s" % name, "destroy-session", name)
    if ustd.proc.poll() is not None:
        ustd.wait_line("(?!)", timeout=2)
        t.diag("ustd ended (%d): %s" % (ustd.proc.returncode, "".join(ustd.seen[-60:])))
    paths = chunks(sdir)
    t.ok(first is not None and first.group(1) in paths and len(paths) >= 4,
         "%s: the chunk reported exists, and %d chunks followed it" % (name, len(paths)),
         paths)
    check_union("--on-rotate %s" % name, paths, emitted)
# Every command killed or ended: none is left to ustd.
children = "/proc/%d/task/%d/children" % (ustd.proc.pid, ustd.proc.pid)
t.ok(wait_for(lambda: open(children).read().strip() == "", 5),
     "no --on-rotate command is left running under ustd", open(children).read())
t.ok(ustd.proc.poll() is None, "ustd runs on through every failed command")
ws.cleanup()
t.done()
