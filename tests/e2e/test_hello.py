# SPDX-License-Identifier: GPL-2.0-only
"""usttrace on the demo program: every API style, every field value, the
count, the order, nothing discarded, and a trace babeltrace2 reads cleanly."""

import os
import re
import time

from ustest import (Tap, Workspace, app, babeltrace_check, babeltrace_text, read_trace,
                    blocks_past_end, stream_problems)

N = 5
t = Tap()
ws = Workspace()
res = ws.usttrace([app("hello"), str(N)])
t.eq(res.returncode, 0, "usttrace exits with the program's status")
t.ok("hello: %d iterations done" % N in res.stdout, "the program ran", res.stdout + res.stderr)
dirs = ws.trace_dirs()
t.eq(len(dirs), 1, "one trace directory")
path = dirs[0] if dirs else ws.out
t.ok(re.fullmatch(r"hello-\d+-\d{8}-\d{6}", os.path.basename(path)) is not None,
     "trace directory named procname-pid-timestamp", path)
t.ok(path in res.stderr, "usttrace says where the trace is", res.stderr)
files = sorted(os.listdir(path))
t.ok("metadata" in files and any(re.fullmatch(r"ust_\d+", f) for f in files)
     and any(re.fullmatch(r"myprovider_\d+", f) for f in files),
     "metadata and per-CPU stream files per channel", files)
ok, err = babeltrace_check(path)
t.ok(ok, "babeltrace2 reads the trace without error", err)

events, discarded = read_trace(path)
t.eq(discarded, 0, "nothing discarded")
t.eq(len(events), 3 * N + 4, "event count")
names = [e.name for e in events]
t.eq(names[:3], ["ust:search_event", "ust:tp_probe", "myprovider:request_done"],
     "events in program order")
search = [e for e in events if e.name == "ust:search_event"]
t.eq([e.fields for e in search],
     [{"dn": "cn=bob,dc=example", "count": i} for i in range(N)], "marker string and int fields")
probe = [e for e in events if e.name == "ust:tp_probe"]
t.eq([e.fields for e in probe], [{"anint": i, "tag": "probe-data"} for i in range(N)],
     "tracepoint probe fired once per call, data passed, none after unregister")
typed = [e for e in events if e.name == "myprovider:request_done"]
t.eq(len(typed), N, "typed events recorded")
f = typed[0].fields if typed else {}
t.eq(f.get("status"), 200, "ctf_integer")
t.eq(f.get("len"), 6, "ctf_integer_hex value")
t.eq(f.get("path"), "/index", "ctf_string")
t.eq(f.get("ratio"), 0.5, "ctf_float")
t.eq(f.get("tag"), list(b"/ind"), "ctf_array")
t.eq(f.get("bytes"), list(b"/index"), "ctf_sequence")
t.eq([e.fields.get("status") for e in typed], [200 + i for i in range(N)], "typed values in order")

allt = [e for e in events if e.name == "ust:all_types"]
a = allt[0].fields if allt else {}
t.eq(a, {"c": 65, "hh": -5, "h": -300, "i": -70000, "u": 4000000000, "x": 0xdeadbeef,
         "l": -5000000000, "ll": -1, "z": 123456789, "j": -42, "p": 0x1234, "f": 1.5,
         "lf": -2.25, "s": "hello", "hu": 250, "lx": 0xabcdef},
     "every marker conversion recorded with its value")
un = [e.fields for e in events if e.name == "ust:unnamed"]
t.eq(un, [{"arg0": -1, "arg1": 2}], "unnamed conversions are argN")
t.eq([e.fields for e in events if e.name == "ust:no_args"], [{}], "marker without arguments")
t.eq([e.fields for e in events if e.name == "ust:null_string"], [{"s": "(null)"}],
     "NULL string recorded as (null)")
ts = [e.ts for e in events]
t.ok(all(a <= b for a, b in zip(ts, ts[1:])), "timestamps non-decreasing")

rc, text, err = babeltrace_text(path)
t.eq(rc, 0, "babeltrace2 pretty-prints the trace")
pid = os.path.basename(path).split("-")[1]
t.ok(re.search(r":hello:\(%s\) ust:search_event: " % pid, text) is not None,
     "hostname, procname and vpid shown", text[:2000])
t.ok("len = 0x6" in text, "ctf_integer_hex printed in base 16", text[:2000])
t.ok("x = 0xDEADBEEF" in text, "%x printed in base 16", text[-1500:])
t.eq(text.count("\n"), 3 * N + 4, "babeltrace2 prints every event")
meta = open(os.path.join(path, "metadata")).read()
t.ok(meta.startswith("/* CTF 1.8 */"), "metadata signature at byte 0")
t.ok('tracer_name = "ust"' in meta and "procname" in meta and "vpid" in meta and "hostname" in meta,
     "env carries tracer, procname, vpid, hostname")
t.ok('name = "monotonic"' in meta or "clock {" in meta, "clock declared")
t.ok(not any(f.startswith(".") or f not in ("metadata", "index") and not re.fullmatch(r"\w+_\d+", f)
             for f in files), "no foreign files in the trace directory", files)
streams = [f for f in files if re.fullmatch(r"\w+_\d+", f)]
t.eq(sorted(os.listdir(os.path.join(path, "index"))), sorted(f + ".idx" for f in streams),
     "index/ holds one packet index per stream file")
bad = stream_problems(path, padded=True)
t.ok(not bad, "every packet is indexed and padded with zeroes to whole pages", "\n".join(bad))
# ustd's writeback thread reserves blocks ahead of each stream file on
# ext4 and gives back what the trace did not use once the file is closed;
# that thread is not waited for, so neither is it here, for a while.
deadline = time.monotonic() + 10
held = blocks_past_end(path)
while held and time.monotonic() < deadline:
    time.sleep(0.05)
    held = blocks_past_end(path)
t.ok(not held, "no stream file holds blocks past its end once the trace is complete", held)
t.done()
