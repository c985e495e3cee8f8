# SPDX-License-Identifier: GPL-2.0-only
"""A C++ server traced end to end: tests/apps/cxx_server (threads, a
queue, virtual handlers, spans, a marker and a typed event, built with
g++ -std=c++17 -Wall -Wextra -Werror -pedantic) under usttrace -c vtid
--perfetto. babeltrace2's bindings read every request exactly once, with
its fields and its spans nested on the thread that handled it; the
timeline sink draws the same spans, nested, on the same threads."""

import json
import os

from ustest import Tap, Workspace, app, read_trace

N = 120
WORKERS = 3

t = Tap()
ws = Workspace()
out_json = os.path.join(ws.root, "server.json")
res = ws.usttrace(["-c", "vtid", "--perfetto", out_json, app("cxx_server"), str(N), str(WORKERS)])
t.ok(res.returncode == 0 and res.stdout.strip() == str(N),
     "usttrace runs the C++ server; it handles %d requests" % N, res.stdout + res.stderr)
dirs = ws.trace_dirs()
t.eq(len(dirs), 1, "one trace")
events, discarded = read_trace(dirs[0]) if dirs else ([], -1)
t.eq(discarded, 0, "nothing discarded")


def path_of(i):
    return ("/missing/%d" if i % 4 == 3 else "/static/%d") % i


counts = {}
for e in events:
    counts[e.name] = counts.get(e.name, 0) + 1
names = ["srv:accept", "srv:request_begin", "srv:parse_begin", "srv:parse_end",
         "srv:respond_begin", "srv:respond_end", "srv:request_done", "srv:request_end"]
t.eq(counts, {n: N for n in names}, "each kind of event once per request")

accepted = [(e.fields["id"], e.fields["path"]) for e in events if e.name == "srv:accept"]
t.eq(accepted, [(i, path_of(i)) for i in range(N)], "the acceptor's markers, in order, with their paths")

done = sorted((e.fields["id"], e.fields["path"], e.fields["status"], e.fields["bytes"])
              for e in events if e.name == "srv:request_done")
want = [(i, path_of(i), 404 if i % 4 == 3 else 200, 9 if i % 4 == 3 else (i % 5) * 10 + 10)
        for i in range(N)]
t.eq(done, want, "request_done: every id once, with its path, status and body size")

# Per thread, each request is begin, parse, respond(status), done, end.
by_tid = {}
for e in events:
    if e.name != "srv:accept":
        by_tid.setdefault(e.context["vtid"], []).append(e)
bad = None
for tid, evs in by_tid.items():
    for k in range(0, len(evs), 7):
        seq = evs[k:k + 7]
        kinds = [e.name for e in seq]
        rid = seq[0].fields.get("id")
        status = 404 if rid is not None and rid % 4 == 3 else 200
        if (kinds != names[1:] or seq[5].fields["id"] != rid or seq[6].fields["id"] != rid
                or seq[4].fields["status"] != status):
            bad = (tid, [(e.name, e.fields) for e in seq])
            break
t.ok(bad is None and len(evs) % 7 == 0, "each worker's requests nest: request(parse, respond, done)", bad)
# How many workers got requests depends on the scheduler; none is the acceptor.
acceptor = {e.context["vtid"] for e in events if e.name == "srv:accept"}
t.ok(1 <= len(by_tid) <= WORKERS and not acceptor & set(by_tid) and len(acceptor) == 1,
     "the requests were handled on worker threads, not the acceptor's",
     (sorted(acceptor), sorted(by_tid)))

# The timeline: the same spans as slices on the workers' tracks, nested.
doc = json.load(open(out_json)) if os.path.exists(out_json) else {"traceEvents": []}
evs = doc["traceEvents"]
stacks, wrong, closed = {}, [], {}
for e in evs:
    if e["ph"] not in ("B", "E"):
        continue
    st = stacks.setdefault(e["tid"], [])
    if e["ph"] == "B":
        if e["name"] != "srv:request" and (not st or st[-1] != "srv:request"):
            wrong.append(e)
        st.append(e["name"])
    elif not st or st.pop() != e["name"]:
        wrong.append(e)
    else:
        closed[e["name"]] = closed.get(e["name"], 0) + 1
t.eq(closed, {"srv:request": N, "srv:parse": N, "srv:respond": N},
     "sink.ust.perfetto draws each request, parse and respond span once")
t.ok(not wrong and not any(stacks.values()), "parse and respond nest inside their request", wrong[:3])
t.eq(sorted(stacks), sorted(by_tid), "on the tracks of the threads babeltrace2 saw")
instants = sorted(e["args"]["id"] for e in evs if e["ph"] == "i" and e["name"] == "srv:request_done")
t.eq(instants, list(range(N)), "request_done events are instants with their fields")
t.done()
