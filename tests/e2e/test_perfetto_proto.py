# SPDX-License-Identifier: GPL-2.0-only
"""sink.ust.perfetto in Perfetto's own format (format=proto, the default for
a .pftrace path): func_calls, whose call tree is known, traced with
usttrace --perfetto calls.pftrace; the file read back as Perfetto reads it
(packet sequences, interned names, the incremental clock, track
descriptors) gives every call of the program as a slice, on the thread that
made it, with the name, time and nesting of the JSON of the same trace;
a function call costs at most 30 bytes; Perfetto's trace_processor, where
this machine can fetch it, counts the same slices per name in SQL."""

import collections
import json
import os
import shutil
import subprocess
import urllib.request

from ustest import TOP_BUILD, Tap, Workspace, app, bt2_sink

LIB = os.path.join(TOP_BUILD, "tests", "apps", ".libs", "libfunc_cxx.so")
# func_calls' calls per function (tests/apps/func_calls.c): two threads run
# work(): recurse() 8 deep, middle() 3 times, each calling leaf() twice.
CALLS = {"main": 1, "worker": 1, "work": 2, "recurse": 16, "middle": 6, "leaf": 12,
         "func_cxx_run": 1, "shapes::Square::Square(int)": 1,
         "shapes::Square::area(int) const": 4}
LOOP = 50000
BYTES_PER_CALL_MAX = 30
TRACE_PROCESSOR_URL = "https://get.perfetto.dev/trace_processor"


def fields(buf):
    """[(field number, value)] of a protobuf message: ints or bytes."""
    out, i = [], 0

    def varint():
        nonlocal i
        v = shift = 0
        while True:
            b = buf[i]
            i += 1
            v |= (b & 0x7f) << shift
            shift += 7
            if b < 0x80:
                return v
    while i < len(buf):
        key = varint()
        wire = key & 7
        if wire == 0:
            out.append((key >> 3, varint()))
        elif wire == 2:
            n = varint()
            out.append((key >> 3, buf[i:i + n]))
            i += n
        else:
            raise ValueError("wire type %d at %d: not written by the sink" % (wire, i))
    return out


def one(fs, num, default=None):
    vals = [v for f, v in fs if f == num]
    return vals[-1] if vals else default


def read_pftrace(path):
    """Perfetto's reading of the fields the sink writes (trace_packet.proto,
    track_event/, clock_snapshot.proto, interned_data/): tracks, slices
    (name, begin, end, depth per track), instants, and problems."""
    data = open(path, "rb").read()
    seqs = {}
    tracks, slices, instants, problems = {}, [], [], []
    open_slices = collections.defaultdict(list)
    try:
        packets = fields(data)
    except (ValueError, IndexError) as e:
        return tracks, slices, instants, ["not a protobuf Trace: %s" % e]
    for num, packet in packets:
        if num != 1:
            problems.append("Trace field %d" % num)
            continue
        p = fields(packet)
        seq_id = one(p, 10, 0)
        if one(p, 13, 0) & 1:           # SEQ_INCREMENTAL_STATE_CLEARED
            seqs[seq_id] = {"names": {}, "clock": None, "defaults": []}
        seq = seqs.get(seq_id)
        if one(p, 59) is not None:
            seq["defaults"] = fields(one(p, 59))
        for interned in [v for f, v in p if f == 12]:
            if seq is None:
                problems.append("interned data before the sequence's state was cleared")
                continue
            for f, name in fields(interned):
                name = fields(name)
                seq["names"][one(name, 1)] = one(name, 2).decode()
        if one(p, 6) is not None:
            clocks = {one(c, 1): c for c in (fields(v) for f, v in fields(one(p, 6)) if f == 1)}
            if one(clocks.get(64, []), 3) != 1 or one(clocks[64], 2) != one(clocks.get(6, []), 2):
                problems.append("clock snapshot %r" % clocks)
            seq["clock"] = one(clocks[64], 2)
        if one(p, 60) is not None:
            d = fields(one(p, 60))
            proc, thread = one(d, 3), one(d, 4)
            tracks[one(d, 1)] = {
                "parent": one(d, 5),
                "name": one(d, 2, b"").decode(),
                "process": proc and (one(fields(proc), 1), one(fields(proc), 6).decode()),
                "thread": thread and (one(fields(thread), 1), one(fields(thread), 2))}
        if one(p, 11) is None:
            continue
        ev = fields(one(p, 11))
        defaults = seq["defaults"] if seq else []
        clock = one(p, 58) or one(defaults, 58)
        ts = one(p, 8)
        if clock == 64:
            seq["clock"] += ts
            ts = seq["clock"]
        elif clock != 6:
            problems.append("timestamp on clock %r" % clock)
        track = one(ev, 11) or one(one(defaults, 11) and fields(one(defaults, 11)) or [], 11)
        name = one(ev, 23)
        name = name.decode() if name is not None else seq["names"].get(one(ev, 10))
        kind = one(ev, 9)
        if kind == 1:
            open_slices[track].append((name, ts))
        elif kind == 2:
            if not open_slices[track]:
                problems.append("end without a begin on track %x" % track)
                continue
            bname, begin = open_slices[track].pop()
            slices.append((track, bname, begin, ts, len(open_slices[track])))
        elif kind == 3:
            instants.append((track, name, ts))
        else:
            problems.append("track event type %r" % kind)
    problems += ["%d slices never end on track %x" % (len(s), k)
                 for k, s in open_slices.items() if s]
    return tracks, slices, instants, problems


def json_slices(doc):
    """The JSON's spans as (tid, name, begin ns, end ns, depth), and its instants."""
    origin = doc["otherData"]["origin_ns"]
    stacks, out, inst = collections.defaultdict(list), [], 0
    for e in doc["traceEvents"]:
        ns = origin + round(e.get("ts", 0) * 1000)
        if e["ph"] == "B":
            stacks[e["tid"]].append((e["name"], ns))
        elif e["ph"] == "E":
            name, begin = stacks[e["tid"]].pop()
            out.append((e["tid"], name, begin, ns, len(stacks[e["tid"]])))
        elif e["ph"] == "i":
            inst += 1
    return out, inst


def trace_processor(where):
    """Perfetto's trace_processor: on PATH, else fetched now; None when
    neither works (this machine may not reach get.perfetto.dev)."""
    found = shutil.which("trace_processor_shell") or shutil.which("trace_processor")
    if found:
        return found
    path = os.path.join(where, "trace_processor")
    try:
        with urllib.request.urlopen(TRACE_PROCESSOR_URL, timeout=20) as r, \
                open(path, "wb") as f:
            f.write(r.read())
    except OSError as e:
        t.diag("trace_processor not fetched from %s (%s): the file was read by this "
               "test's reader only" % (TRACE_PROCESSOR_URL, e))
        return None
    os.chmod(path, 0o755)
    return path


t = Tap()
ws = Workspace()
pftrace = os.path.join(ws.root, "calls.pftrace")
res = ws.usttrace(["-m", "ust_func:*", "-m", "ust_statedump:*", "-c", "vtid",
                   "--perfetto", pftrace, app("func_calls"), LIB])
t.eq(res.returncode, 0, "usttrace --perfetto calls.pftrace traces func_calls")
if res.returncode:
    t.diag(res.stderr)
dirs = ws.trace_dirs()
tracks, slices, instants, problems = read_pftrace(pftrace)
t.eq(problems, [], "the file reads as Perfetto reads it; every slice begins and ends")
t.eq(dict(collections.Counter(s[1] for s in slices)), CALLS,
     "one slice per call of the program, named after its function (C++ demangled)")
procs = [d["process"] for d in tracks.values() if d["process"]]
t.eq([n for _, n in procs], ["func_calls"], "one process track, named after the program")
threads = {u: d["thread"] for u, d in tracks.items() if d["thread"]}
t.eq(len(threads), 2, "one track per thread")
t.ok(threads and all(th[0] == procs[0][0] for th in threads.values()), "of that process",
     threads)

# The same trace as JSON: the same spans, times and nesting per thread.
out_json = os.path.join(ws.root, "calls.json")
res = bt2_sink(dirs, "sink.ust.perfetto", 'path="%s",format="json"' % out_json)
t.ok(res.returncode == 0, "format=\"json\" writes JSON, whatever the path's extension", res.stderr)
jslices, jinstants = json_slices(json.load(open(out_json)))
mine = sorted((threads[s[0]][1], s[1], s[2], s[3], s[4]) for s in slices)
t.eq(mine, sorted(jslices), "the JSON of the trace has the same slices: thread, name, "
     "begin and end to the nanosecond, depth")
t.eq(len(instants), jinstants, "and as many instants (the statedump's events)")

# Long runs: bytes per call (entry and exit).
loop_out = os.path.join(ws.root, "loop.pftrace")
res = ws.usttrace(["-o", os.path.join(ws.root, "loop"), "-m", "ust_func:*", "--perfetto",
                   loop_out, app("func_calls"), "loop", str(LOOP)])
t.ok(res.returncode == 0, "usttrace traces %d loops of func_calls" % LOOP, res.stderr)
_, lslices, _, lproblems = read_pftrace(loop_out)
calls = collections.Counter(s[1] for s in lslices)
# Should a call be missing, what usttrace and ustd said (a rescue, a
# loss) and the CTF trace's own count of exits tell where it went.
loop_exits = subprocess.run(["babeltrace2", os.path.join(ws.root, "loop")],
                            capture_output=True, text=True).stdout.count("ust_func:exit")
t.ok((lproblems, calls["middle"], calls["leaf"]) == ([], LOOP, 2 * LOOP),
     "every call is a slice",
     "got %r; the CTF trace holds %d exits of %d; usttrace said:\n%s"
     % ((lproblems, calls["middle"], calls["leaf"]), loop_exits, 3 * LOOP + 1, res.stderr))
per_call = os.path.getsize(loop_out) / max(len(lslices), 1)
t.ok(per_call <= BYTES_PER_CALL_MAX, "%.1f bytes per call (at most %d)"
     % (per_call, BYTES_PER_CALL_MAX))

res = bt2_sink(dirs, "sink.ust.perfetto", 'path="%s",format="xml"' % pftrace)
t.ok(res.returncode != 0 and 'parameter `format`: "xml" is neither "json" nor "proto"'
     in res.stderr, "an unknown format is refused, saying which ones exist", res.stderr)

tp = trace_processor(ws.root)
if tp:
    q = subprocess.run([tp, "-Q", "select name, count(*) as n from slice group by name", pftrace],
                       capture_output=True, text=True, timeout=300)
    got = {}
    for line in q.stdout.splitlines()[1:]:
        name, _, n = line.rpartition(",")
        got[name.strip('"')] = int(n)
    t.ok(got == CALLS, "trace_processor: slices per name, in SQL, are the program's calls",
         (got, q.stderr))
t.done()
