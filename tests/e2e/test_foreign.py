# SPDX-License-Identifier: GPL-2.0-only
"""sink.ust.perfetto and sink.ust.summary on traces others wrote: LTTng-UST
2.13 traces recorded here by a real lttng-sessiond (per-UID and per-PID
buffers, tiny sub-buffers in discard mode so that every CPU's buffer loses
events at once, vpid/vtid/procname contexts) and by a real lttng-relayd;
one with a lost-event counter that goes backwards; and UST traces whose
strings are not UTF-8 and whose payload has a member named ctx. Each
output is checked against babeltrace2's own reading of the same trace:
the JSON must be UTF-8 to a strict decoder and have no duplicate key,
every event's args must be its fields, discarded ranges must nest on every
track, the summary must list each event name once with babeltrace2's
count, and processes must be named after their events' procname."""

import json
import os
import re
import shutil
import struct
import subprocess
import sys

import bt2

from ustest import (TOP_SRC, UST_SUMMARY, Tap, Workspace, app, bt2_sink, index_entries,
                    packets)
from ustest import _value as value

import lttngtest

SUSPECT = 1 << 63

why = lttngtest.missing()
if why:
    print("1..0 # SKIP LTTng traces cannot be recorded here: %s" % why)
    sys.exit(0)

t = Tap()
ws = Workspace()


def raw(s):
    """The bytes of a string field as babeltrace2 read them (its bindings
    decode with surrogateescape)."""
    return s.encode("utf-8", "surrogateescape")


def expect(v):
    """A field value as a strict JSON writer must give it: strings decoded
    as strict decoders do, ill-formed subparts as U+FFFD."""
    if isinstance(v, str):
        return raw(v).decode("utf-8", "replace")
    if isinstance(v, list):
        return [expect(x) for x in v]
    if isinstance(v, dict):
        return {k: expect(x) for k, x in v.items()}
    return v


class Reading:
    """babeltrace2's reading of a trace (or a directory of traces)."""

    def __init__(self, path):
        self.events, self.discarded, self.suspect = [], 0, 0
        self.procname = {}          # vpid -> procname context
        for msg in bt2.TraceCollectionMessageIterator(path):
            if type(msg) is bt2._EventMessageConst:
                ev = msg.event
                ctx = value(ev.common_context_field) if ev.common_context_field is not None else {}
                self.events.append((ev.name, value(ev.payload_field), ctx))
                if "vpid" in ctx and "procname" in ctx:
                    self.procname.setdefault(ctx["vpid"], set()).add(ctx["procname"])
            elif type(msg) is bt2._DiscardedEventsMessageConst and msg.count is not None:
                if msg.count >= SUSPECT:
                    self.suspect += 1
                else:
                    self.discarded += msg.count

    def counts(self):
        c = {}
        for name, _, _ in self.events:
            c[name] = c.get(name, 0) + 1
        return c


def read_json(path):
    """(document, why the bytes are not UTF-8 or None, keys that repeat in
    an object): strictly decoded when the bytes allow it, else with each
    ill-formed subpart replaced, so that the rest can still be checked."""
    dups = []

    def pairs_hook(pairs):
        keys = [k for k, _ in pairs]
        dups.extend(sorted(k for k in set(keys) if keys.count(k) > 1))
        return dict(pairs)
    data = open(path, "rb").read()
    try:
        text, why = data.decode("utf-8"), None
    except UnicodeDecodeError as e:
        text, why = data.decode("utf-8", "replace"), str(e)
    return json.loads(text, object_pairs_hook=pairs_hook), why, dups


def bad_nesting(doc):
    """Spans ("X") of a track that overlap without one holding the other."""
    tracks, bad = {}, []
    for e in doc["traceEvents"]:
        if e["ph"] == "X":
            b = round(e["ts"] * 1000)
            tracks.setdefault((e["pid"], e["tid"]), []).append((b, b + round(e["dur"] * 1000)))
    for key, spans in tracks.items():
        stack = []
        for b, end in sorted(spans, key=lambda s: (s[0], -s[1])):
            while stack and stack[-1] <= b:
                stack.pop()
            if stack and end > stack[-1]:
                bad.append((key, b, end, stack[-1]))
            stack.append(end)
    return bad


def payload_key(k):
    return "$" + k if k.startswith("$") else k


def check_perfetto(label, path, reading):
    """The timeline of path against babeltrace2's reading of it."""
    out = os.path.join(ws.root, label.replace(" ", "_") + ".json")
    r = bt2_sink([path], "sink.ust.perfetto", 'path="%s"' % out)
    if not t.ok(r.returncode == 0, "%s: sink.ust.perfetto converts it" % label, r.stderr[-2000:]):
        return None
    doc, why, dups = read_json(out)
    t.ok(why is None, "%s: the JSON is UTF-8 to a strict decoder" % label, why)
    t.ok(not dups, "%s: no object of the JSON has a key twice" % label, sorted(set(dups)))
    shown = [e for e in doc["traceEvents"] if e["ph"] in ("i", "B", "E")]
    want = sorted(json.dumps([n, {payload_key(k): expect(v) for k, v in p.items()},
                              expect(c)], sort_keys=True, ensure_ascii=False)
                  for n, p, c in reading.events)
    got = sorted(json.dumps([e["name"], {k: v for k, v in e["args"].items() if k != "$ctx"},
                             e["args"].get("$ctx", {})], sort_keys=True, ensure_ascii=False)
                  for e in shown)
    diff = [(g, w) for g, w in zip(got, want) if g != w][:3]
    t.ok(len(got) == len(want) and not diff,
         "%s: every event once, its fields as args, its contexts as $ctx" % label,
         "%d elements for %d events; %r" % (len(got), len(want), diff))
    ranges = [e for e in doc["traceEvents"] if e.get("cat") == "discarded"]
    counted = sum(e["args"]["count"] or 0 for e in ranges)
    t.ok(counted == reading.discarded == doc["otherData"]["events_discarded"],
         "%s: discarded counts add up to babeltrace2's (%d)" % (label, reading.discarded),
         "ranges %d, otherData %r" % (counted, doc["otherData"]))
    bad = bad_nesting(doc)
    t.ok(not bad, "%s: the %d discarded ranges nest on every track" % (label, len(ranges)),
         bad[:5])
    names = {e["pid"]: e["args"]["name"] for e in doc["traceEvents"]
             if e["ph"] == "M" and e["name"] == "process_name"}
    wrong = {pid: (names.get(pid), sorted(n)) for pid, n in reading.procname.items()
             if names.get(pid) not in {expect(x) for x in n}}
    if reading.procname:
        t.ok(not wrong, "%s: processes named after their procname context" % label, wrong)
    return doc


def summary(path, xml=False):
    """ust-summary's result, its output as bytes (the text output copies
    names as they are)."""
    return subprocess.run([UST_SUMMARY] + (["--mi", "xml"] if xml else []) + [path],
                          capture_output=True, env=ws.env(), timeout=300)


def check_summary(label, path, reading):
    r = summary(path)
    if not t.ok(r.returncode == 0, "%s: ust-summary reads it" % label, r.stderr[-2000:]):
        return None
    stdout = r.stdout.decode("utf-8", "surrogateescape")
    rows = re.findall(r"^(\S+:\S+)\s+(\d+)\s", stdout, re.M)
    names = [n for n, _ in rows]
    t.ok(len(names) == len(set(names)), "%s: each event name once in the summary" % label,
         stdout)
    t.eq({n: int(c) for n, c in rows}, reading.counts(),
         "%s: per-name counts equal babeltrace2's" % label)
    m = re.search(r"^events\s+(\d+) recorded, (\d+) discarded", stdout, re.M)
    t.eq((int(m.group(1)), int(m.group(2))) if m else None,
         (len(reading.events), reading.discarded), "%s: totals equal babeltrace2's" % label)
    x = summary(path, xml=True)
    xsd = os.path.join(TOP_SRC, "doc", "xml", "ust-summary.xsd")
    val = subprocess.run(["xmllint", "--noout", "--schema", xsd, "-"], input=x.stdout,
                         capture_output=True)
    t.ok(x.returncode == 0 and val.returncode == 0,
         "%s: the summary's XML is valid against ust-summary.xsd" % label,
         (x.stderr + val.stderr).decode(errors="replace"))
    xml = x.stdout.decode("utf-8", "replace")
    procs = dict((int(p), n) for p, n in
                 re.findall(r'<process pid="(-?\d+)" name="([^"]*)"', xml))
    if reading.procname:
        wrong = {pid: (procs.get(pid), sorted(n)) for pid, n in reading.procname.items()
                 if procs.get(pid) not in {expect(x) for x in n}}
        t.ok(not wrong, "%s: the summary names processes after their procname" % label, wrong)
    return stdout


lt = lttngtest.Lttng(ws)
# Programs of different names, one of them not UTF-8 (a process's name is
# the bytes of the file it runs): a per-UID buffer holds them all.
bindir = os.path.join(ws.root, "bin").encode()
os.mkdir(bindir)
progs = []
for name in (b"ltt-alpha", b"ltt-beta", b"ltt-\xed\xa0\x80\xff"):
    os.symlink(lttngtest.LTTNG_APP, os.path.join(bindir, name))
    progs.append([os.path.join(bindir, name), "100000", "2"])
small = (4096, 2)

uid_dir = lt.mkdir(os.path.join(ws.root, "lttng-uid"))
lt.record("peruid", progs, output=uid_dir, buffers="uid", subbuf=small)
pid_dir = lt.mkdir(os.path.join(ws.root, "lttng-pid"))
lt.record("perpid", progs, output=pid_dir, buffers="pid", subbuf=small)
relay_dir = os.path.join(ws.root, "relayd-out")
relayd = lttngtest.Relayd(ws, relay_dir)
lt.record("relayed", progs, url=relayd.url, buffers="pid", subbuf=small)
relayd.stop()
lt.stop()

cases = (("per-UID", uid_dir), ("per-PID", pid_dir), ("relayd", relay_dir))
readings = {}
for label, path in cases:
    readings[label] = reading = Reading(path)
    t.ok(len(reading.procname) == len(progs) and reading.discarded > 0,
         "%s: LTTng recorded %d processes with their procname, and losses (%d)"
         % (label, len(progs), reading.discarded), reading.procname)
    check_perfetto(label, path, reading)
    check_summary(label, path, reading)

# A lost-event counter that goes backwards: a packet of a copy of the
# per-UID trace says fewer events were lost than its predecessor did.
suspect_dir = os.path.join(ws.root, "suspect")
shutil.copytree(uid_dir, suspect_dir)
trace = [d for d, _, files in os.walk(suspect_dir) if "metadata" in files][0]
patched = None
for f in sorted(os.listdir(trace)):
    path = os.path.join(trace, f)
    if f == "metadata" or not os.path.isfile(path):
        continue
    pkts, _ = packets(path)
    for k in range(len(pkts) - 1):
        disc = pkts[k][2][4]
        if disc > 0:
            off = pkts[k + 1][0] + 32 + 5 * 8      # events_discarded, LTTng's layout
            with open(path, "r+b") as fh:
                fh.seek(off)
                fh.write(struct.pack("<Q", disc - 1))
            idx = os.path.join(trace, "index", f + ".idx")
            header, _ = index_entries(idx)
            with open(idx, "r+b") as fh:
                fh.seek(16 + (k + 1) * header[3] + 5 * 8)
                fh.write(struct.pack(">Q", disc - 1))
            patched = (f, k + 1)
            break
    if patched:
        break
# LTTng-UST's own counter sometimes goes backwards too: those count as well.
natural = readings["per-UID"].suspect
t.diag("suspect counts LTTng-UST wrote itself: %d" % natural)
reading = Reading(suspect_dir)
t.ok(patched and reading.suspect == natural + 1,
     "a packet's counter goes backwards: babeltrace2 reports a loss of 2^63 or more", patched)
doc = check_perfetto("suspect count", suspect_dir, reading)
if doc:
    odd = [e for e in doc["traceEvents"] if e.get("cat") == "discarded" and
           ("suspect_count" in e["args"] or (e["args"]["count"] or 0) >= SUSPECT)]
    t.ok(len(odd) == reading.suspect and
         all(int(e["args"].get("suspect_count", "0")) >= SUSPECT for e in odd) and
         doc["otherData"].get("discarded_suspect") == reading.suspect,
         "the timeline flags that count as suspect instead of adding it", odd)
text = check_summary("suspect count", suspect_dir, reading)
t.ok(text and re.search(r"%d loss reports? with a suspect count" % reading.suspect, text),
     "the summary says how many loss reports were not believed", text)

# UST traces: strings that are not UTF-8, a payload member named ctx, the
# procname context; two runs, so two traces in one directory.
ust_out = ws.out
for _ in range(2):
    res = ws.usttrace(["--context", "vtid,vpid,procname", app("bad_strings")])
    t.ok(res.returncode == 0, "usttrace records bad_strings", res.stderr)
reading = Reading(ust_out)
bad = [p["s"] for n, p, _ in reading.events if n == "bad:text"]
t.ok(len(bad) == 18 and any(raw(s) != raw(s).decode("utf-8", "replace").encode() for s in bad),
     "UST recorded the strings that are not UTF-8 as they are", bad[:3])
doc = check_perfetto("UST bad strings", ust_out, reading)
if doc:
    text = [e for e in doc["traceEvents"] if e["name"] == "bad:text"]
    t.ok(len(text) == 18 and all("ctx" in e["args"] and "procname" in e["args"]["$ctx"]
                                 for e in text),
         "the payload's ctx and the contexts are both there", text[:2])
    t.eq(sorted(e["args"]["s"] for e in text), sorted(expect(s) for s in bad),
         "each ill-formed subpart became one U+FFFD, as Python's strict decoder reads it")
check_summary("UST bad strings", ust_out, reading)
t.done()
