# SPDX-License-Identifier: GPL-2.0-only
"""sink.ust.perfetto and sink.ust.summary against babeltrace2's own reading
of the same traces: every event exactly once with its time and fields, spans
nested, counters, discarded ranges; usttrace --perfetto/--summary; the
summary's span durations (count, min, p50, p90, p99, max) against those
babeltrace2's events give, and against the sleeps the program made;
ust-summary --mi xml against its schema; bad input leaves no file behind."""

import json
import os
import re
import shutil
import subprocess

from ustest import (BT2_PLUGIN_PATH, TOP_SRC, UST_SUMMARY, Tap, Workspace, app, flood_trace,
                    bt2_sink, read_trace)

N = 200
SLEEP_US = 20   # the parse span of request i sleeps SLEEP_US * (1 + i % 10)
SUFFIXES = {"B": ("_begin", "_entry"), "E": ("_end", "_exit")}

t = Tap()
ws = Workspace()
out_json = os.path.join(ws.root, "timeline.json")

# One CPU: without a vtid context the tracks are per CPU, and a span whose
# thread migrates would start on one track and end on another.
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
res = ws.usttrace(["--summary", "--perfetto", out_json, app("timeline"), str(N), str(SLEEP_US)])
t.eq(res.returncode, 0, "usttrace --summary --perfetto succeeds")
dirs = ws.trace_dirs()
t.eq(len(dirs), 1, "one trace")
trace = dirs[0]
events, _ = read_trace(trace)
t.eq(len(events), 2 + 5 * N, "babeltrace2 reads every event")

doc = json.load(open(out_json))
t.ok(isinstance(doc.get("traceEvents"), list), "the file is Trace Event JSON")
evs = doc["traceEvents"]
t.eq(doc["otherData"]["events"], len(events), "the file says how many events it holds")
origin = doc["otherData"]["origin_ns"]


def input_name(e):
    """The event name the JSON element stands for."""
    if e["ph"] in SUFFIXES:
        prov = e["name"]
        return [prov + s for s in SUFFIXES[e["ph"]]]
    return [e["name"]]


# Every input event exactly once, in order, with its exact time and fields.
shown = [e for e in evs if e["ph"] in ("i", "B", "E")]
t.eq(len(shown), len(events), "one element per input event")
mismatch = None
for ev, e in zip(events, shown):
    ts_ns = origin + round(e["ts"] * 1000)
    if ev.name not in input_name(e) or ts_ns != ev.ts or e["args"] != ev.fields:
        mismatch = (ev.name, ev.ts, ev.fields, e)
        break
t.ok(mismatch is None, "names, times (to the ns) and args equal babeltrace2's", mismatch)

# Spans: B/E pairs nest per track, names match, none left open.
stacks, bad, pairs = {}, [], 0
for e in evs:
    key = (e.get("pid"), e.get("tid"))
    if e["ph"] == "B":
        stacks.setdefault(key, []).append(e["name"])
    elif e["ph"] == "E":
        st = stacks.get(key, [])
        if not st or st[-1] != e["name"]:
            bad.append(e)
        else:
            st.pop()
            pairs += 1
t.eq(pairs, 2 * N, "each request and parse span is one pair")
t.ok(not bad and not any(stacks.values()), "spans nest and close", bad[:3])
orphan = [e for e in evs if e["name"] == "tl:orphan_end"]
t.ok(len(orphan) == 1 and orphan[0]["ph"] == "i", "an end without a begin stays an instant")
text = [e for e in evs if e["name"] == "tl:text"]
t.eq(text[0]["args"]["s"] if text else None, "quote\" backslash\\ tab\t \u00e9t\u00e9",
     "strings survive JSON escaping")

# Counters: one sample per event carrying counter_queue, with its value.
counters = [e for e in evs if e["ph"] == "C"]
samples = [e.fields["counter_queue"] for e in events if e.name == "tl:sample"]
t.eq([c["args"]["value"] for c in counters], samples, "counter_* fields become counter samples")
t.ok(all(c["name"] == "queue" for c in counters), "the counter is named after the field")
meta = [e for e in evs if e["ph"] == "M" and e["name"] == "process_name"]
t.ok(len(meta) == 1 and meta[0]["args"]["name"] == "timeline", "the process is named after the program")

# usttrace --summary printed the table on stderr.
m = re.search(r"^tl:sample\s+(\d+)\s", res.stderr, re.M)
t.eq(int(m.group(1)) if m else None, N, "--summary counts per event")
t.ok(re.search(r"^events\s+%d recorded, 0 discarded" % len(events), res.stderr, re.M),
     "--summary totals", res.stderr)

# Span durations, from babeltrace2's events: begin/end pairs nest (one
# thread on one CPU: one track).
def nearest_rank(sorted_durs, p):
    return sorted_durs[max(1, -(-p * len(sorted_durs) // 100)) - 1]


durs, stack = {}, []
for ev in events:
    if ev.name.endswith("_begin"):
        stack.append((ev.name[:-len("_begin")], ev.ts))
    elif ev.name.endswith("_end") and stack and stack[-1][0] == ev.name[:-len("_end")]:
        name, ts = stack.pop()
        durs.setdefault(name, []).append(ev.ts - ts)
want = {name: [len(d), d[0], nearest_rank(d, 50), nearest_rank(d, 90), nearest_rank(d, 99), d[-1]]
        for name, d in ((n, sorted(d)) for n, d in durs.items())}
t.eq(sorted(want), ["tl:parse", "tl:request"], "babeltrace2's events hold two span names")
known = sorted(SLEEP_US * 1000 * (1 + i % 10) for i in range(N))
parse = sorted(durs.get("tl:parse", []))
t.ok(len(parse) == N and all(d >= k for d, k in zip(parse, known)),
     "each parse span lasts at least its sleep", parse[:3])
rows = {m.group(1): [int(m.group(2))] + [round(float(x) * 1000) for x in m.group(3).split()] + [int(m.group(4))]
        for m in re.finditer(r"^(tl:\w+)\s+(\d+)((?:\s+\d+\.\d{3}){5})\s+(\d+)$", res.stderr, re.M)}
t.ok(re.search(r"^span\s+count\s+min \(us\)\s+p50 \(us\)\s+p90 \(us\)\s+p99 \(us\)\s+"
               r"max \(us\)\s+unclosed$", res.stderr, re.M), "--summary has a span table", res.stderr)
t.eq({n: r[:6] for n, r in rows.items()}, want,
     "span count, min, p50, p90, p99, max (us, to the ns) equal babeltrace2's")
t.ok(rows and all(r[6] == 0 for r in rows.values()), "no span left open")

# ust-summary --mi xml, valid against the schema, same counts.
xml = subprocess.run([UST_SUMMARY, "--mi", "xml", trace], capture_output=True, text=True,
                     env=ws.env())
t.ok(xml.returncode == 0, "ust-summary --mi xml succeeds", xml.stderr)
xsd = os.path.join(TOP_SRC, "doc", "xml", "ust-summary.xsd")
val = subprocess.run(["xmllint", "--noout", "--schema", xsd, "-"], input=xml.stdout,
                     capture_output=True, text=True)
t.ok(val.returncode == 0, "its XML is valid against ust-summary.xsd", val.stderr)
t.ok('<event name="tl:sample" count="%d"' % N in xml.stdout, "XML per-event count")
xspans = {m.group(1): [int(x) for x in m.groups()[1:]] for m in re.finditer(
    r'<span name="([^"]+)" count="(\d+)" min_ns="(\d+)" p50_ns="(\d+)" p90_ns="(\d+)" '
    r'p99_ns="(\d+)" max_ns="(\d+)" total_ns="(\d+)" unclosed="(\d+)"/>', xml.stdout)}
t.eq({n: v[:6] for n, v in xspans.items()}, want, "XML span statistics equal babeltrace2's")
t.eq({n: v[6:] for n, v in xspans.items()}, {n: [sum(d), 0] for n, d in durs.items()},
     "XML span totals, none unclosed")
bad = subprocess.run([UST_SUMMARY, "--mi", "json", trace], capture_output=True, text=True)
t.ok(bad.returncode == 2 and "xml" in bad.stderr, "ust-summary refuses an unknown format")

# Discarded events: a visible range per loss, totals equal babeltrace2's.
# Small buffers flooded while ustd is stopped, so that they overflow
# however fast ustd drains.
flood_trace(t, ws, "losses", 1, 100000, True, UST_SUBBUF_SIZE=4096, UST_SUBBUF_NUM=2)
burst = [d for d, _, files in os.walk(os.path.join(ws.root, "losses")) if "metadata" in files][0]
_, discarded = read_trace(burst)
loss_json = os.path.join(ws.root, "loss.json")
r = bt2_sink([burst], "sink.ust.perfetto", 'path="%s"' % loss_json)
t.ok(r.returncode == 0, "a trace with losses converts", r.stderr)
ld = json.load(open(loss_json)) if r.returncode == 0 else {"traceEvents": [], "otherData": {}}
ranges = [e for e in ld["traceEvents"] if e.get("cat") == "discarded"]
t.ok(discarded > 0 and len(ranges) > 0, "losses appear as ranges (%d lost)" % discarded)
t.eq(sum(e["args"]["count"] for e in ranges), discarded, "their counts add up to babeltrace2's")
t.ok(all(e["ph"] == "X" and e["dur"] >= 0 for e in ranges), "each is a span with a duration")
s = bt2_sink([burst], "sink.ust.summary", 'trace-dir="%s"' % burst)
t.ok(re.search(r"^events\s+\d+ recorded, %d discarded" % discarded, s.stdout, re.M),
     "the summary counts the same loss", s.stdout + s.stderr)

# Bad input: a clear error, a non-zero exit, no file presented as complete.
def leftovers(path):
    d = os.path.dirname(path)
    return [f for f in os.listdir(d) if f.startswith(os.path.basename(path))]

notctf = os.path.join(ws.root, "notctf")
os.mkdir(notctf)
open(os.path.join(notctf, "metadata"), "w").write("this is not TSDL\n")
bad_json = os.path.join(ws.root, "bad.json")
r = bt2_sink([notctf], "sink.ust.perfetto", 'path="%s"' % bad_json)
t.ok(r.returncode != 0 and "ERROR" in r.stderr, "a non-CTF directory is an error")
t.eq(leftovers(bad_json), [], "and leaves no file behind")

cut = os.path.join(ws.root, "cut")
shutil.copytree(trace, cut)
stream = [f for f in os.listdir(cut) if f != "metadata" and os.path.isfile(os.path.join(cut, f))
          and os.path.getsize(os.path.join(cut, f))][0]
with open(os.path.join(cut, stream), "r+b") as f:
    f.truncate(os.path.getsize(os.path.join(cut, stream)) // 2 + 3)
r = bt2_sink([cut], "sink.ust.perfetto", 'path="%s"' % bad_json)
t.ok(r.returncode != 0, "a truncated stream is an error", r.stderr[-300:])
t.eq(leftovers(bad_json), [], "and leaves no partial JSON")

r = bt2_sink([trace], "sink.ust.perfetto", "")
t.ok(r.returncode != 0 and "missing parameter `path`" in r.stderr, "path is required")
r = bt2_sink([trace], "sink.ust.perfetto", 'path="/nonexistent/dir/x.json"')
t.ok(r.returncode != 0 and "cannot create /nonexistent/dir/x.json" in r.stderr,
     "an unwritable path is named")
r = bt2_sink([trace], "sink.ust.perfetto", 'path="x.json",colour="red"')
t.ok(r.returncode != 0 and "`colour`: unknown parameter" in r.stderr, "unknown parameters are refused")
r = bt2_sink([trace], "sink.ust.summary", 'mi="yaml"')
t.ok(r.returncode != 0 and "not a format" in r.stderr, "summary refuses an unknown mi")
t.done()
