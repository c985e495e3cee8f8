# SPDX-License-Identifier: GPL-2.0-only
"""dlclose while tracing. (a) Threads fire markers, a tracepoint whose probe
is in a library, and the library's own marker, typed event and tracepoint,
while the main thread unloads and reloads the library hundreds of times and
controllers list the markers and add enable rules all along: no crash, the
program's numbered events complete, babeltrace2 reads the trace. (b) A
library loaded after the trace reached the disk: its event descriptions are
appended to the metadata file, whose earlier bytes stay as they were."""

import os
import signal
import threading

from ustest import (TOP_BUILD, Tap, Workspace, babeltrace_check, ctl_call, ctl_request,
                    read_trace, wait_for)

LIB = os.path.join(TOP_BUILD, "tests", "apps", ".libs", "libprobe.so")
THREADS = 3
CYCLES = 300
# Big enough that nothing is discarded on a slow, shared machine.
BUFS = dict(UST_SUBBUF_SIZE="1M", UST_SUBBUF_NUM="8")

t = Tap()


def hammer(ws, pid, done, seen):
    """Controllers racing with the unloads: list-markers over the raw
    protocol and through ustctl, enable and disable rules."""
    sock = ws.app_socket(pid)
    n = 0
    while not done.is_set():
        n += 1
        try:
            reply = ctl_call(sock, ctl_request("list-markers"), timeout=5)
            if reply and reply[0] == 0:
                seen["lists"] += 1
                strings = reply[1]
                for i in range(0, len(strings) - 6, 7):
                    if strings[i] == "libprobe:work" and strings[i + 4].endswith("libprobe.so"):
                        seen["loaded"] += 1
            toggle = "disable-marker" if n % 2 else "enable-marker"
            reply = ctl_call(sock, ctl_request(toggle, "", "libprobe:probe"), timeout=5)
            if reply and reply[0] == 0:
                seen["rules"] += 1
            ctl_call(sock, ctl_request("enable-marker", "", "libprobe*:*", "main:*"), timeout=5)
        except OSError:
            # The program exited between two calls.
            pass
        if n % 25 == 0:
            ws.ustctl(["list-markers", pid], timeout=10)
    # Leave libprobe:probe enabled, as it started.
    try:
        ctl_call(sock, ctl_request("enable-marker", "", "libprobe:probe"), timeout=5)
    except OSError:
        pass


def cycles_under_load(ws):
    ws.start_ustd()
    proc = ws.start_app("dlclose_main", [LIB, THREADS, CYCLES], UST_TRACE=1,
                        UST_AUTOPROBE="main:*,libprobe*:*", **BUFS)
    done = threading.Event()
    seen = {"lists": 0, "loaded": 0, "rules": 0}
    th = threading.Thread(target=hammer, args=(ws, proc.pid, done, seen))
    th.start()
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        done.set()
        th.join()
    t.eq(proc.returncode, 0, "%d unload/reload cycles under load: the program exits normally"
         % CYCLES)
    t.diag("list-markers answered %d times (%d with the library loaded), %d rules applied"
           % (seen["lists"], seen["loaded"], seen["rules"]))
    lines = out.split("\n")
    t.ok("unloaded %d" % CYCLES in lines, "the library was really unmapped every time", out + err)
    t.ok(seen["lists"] >= 20 and seen["loaded"] > 0 and seen["rules"] >= 20,
         "list-markers and enable rules raced with the unloads", seen)
    emitted = {}
    for line in lines:
        if line.startswith("emitted "):
            _, th_id, count = line.split()
            emitted[int(th_id)] = int(count)
    dirs = ws.trace_dirs()
    t.eq(len(dirs), 1, "one trace directory")
    if not dirs:
        return
    ok, msg = babeltrace_check(dirs[0])
    t.ok(ok, "babeltrace2 reads the trace", msg)
    events, discarded = read_trace(dirs[0])
    t.eq(discarded, 0, "nothing discarded")
    seqs = {}
    names = {}
    for e in events:
        names[e.name] = names.get(e.name, 0) + 1
        if e.name == "main:seq":
            seqs.setdefault(e.fields["thread"], []).append(e.fields["seq"])
    t.diag("events: %r" % sorted(names.items()))
    t.ok(len(emitted) == THREADS and
         all(sorted(seqs.get(i, [])) == list(range(emitted[i])) for i in emitted),
         "every main:seq event of every thread is in the trace, once",
         {i: (len(seqs.get(i, [])), emitted.get(i)) for i in range(THREADS)})
    t.ok(all(names.get(n, 0) > 0 for n in ("libprobe:work", "libprobe_ev:work",
                                           "main:lib_tp", "libprobe:probe")),
         "the library's marker, typed event, tracepoint and probe all recorded", names)



def size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def metadata_appended(ws):
    ws.start_ustd()
    proc = ws.start_app("dlopen_late", [LIB], UST_TRACE=1, UST_AUTOPROBE="main:*")
    sock = ws.app_socket(proc.pid)
    # Enabled before the library exists: the rule waits for it.
    reply = ctl_call(sock, ctl_request("enable-marker", "", "libprobe*:*"))
    t.eq(reply and reply[0], 0, "enable-marker libprobe*:* before the library is loaded")
    reply = ctl_call(sock, ctl_request("force-switch", ""))
    t.eq(reply and reply[0], 0, "force-switch")
    dirs = []
    on_disk = wait_for(lambda: dirs.extend(d for d in ws.trace_dirs() if d not in dirs) or
                       (dirs and any(size(os.path.join(dirs[0], f)) > 0
                                     for f in os.listdir(dirs[0]) if f.startswith("main_"))),
                       timeout=20)
    t.ok(on_disk, "the first events reach the disk")
    if not dirs:
        ws.stop_app(proc)
        return
    meta_path = os.path.join(dirs[0], "metadata")
    before = open(meta_path, "rb").read()
    stat_before = os.stat(meta_path)
    proc.send_signal(signal.SIGUSR1)
    t.eq(proc.stdout.readline().strip(), "loaded", "the library is loaded and fired")
    # Its events are described before any of them is written.
    wait_for(lambda: b"libprobe_ev:work" in open(meta_path, "rb").read(), timeout=20)
    out, err = ws.stop_app(proc)
    t.eq(proc.returncode, 0, "the program exits normally", )
    after = open(meta_path, "rb").read()
    stat_after = os.stat(meta_path)
    t.ok(after.startswith(before) and len(after) > len(before),
         "the metadata grew, its first %d bytes unchanged" % len(before))
    t.eq(stat_after.st_ino, stat_before.st_ino, "the same metadata file, not a new one")
    added = after[len(before):].decode()
    t.ok(all('name = "%s";' % n in added for n in ("libprobe:work", "libprobe_ev:work")) and
         "libprobe:work" not in before.decode(),
         "the library's events are declared in the appended part", added)
    ok, msg = babeltrace_check(dirs[0])
    t.ok(ok, "babeltrace2 reads the trace", msg)
    events, _ = read_trace(dirs[0])
    got = [(e.name, e.fields) for e in events]
    t.eq([g for g in got if g[0] == "main:before"], [("main:before", {"seq": i}) for i in range(100)],
         "the events written before the load read back")
    t.eq([g for g in got if not g[0].startswith("main:before")],
         [("libprobe:work", {"thread": 7, "seq": 42}),
          ("libprobe_ev:work", {"thread": 7, "seq": 42}),
          ("main:after", {"seq": 0})],
         "and so do the library's events and the later ones")


cycles_under_load(Workspace())
metadata_appended(Workspace())
t.done()
