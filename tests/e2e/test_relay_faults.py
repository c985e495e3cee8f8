# SPDX-License-Identifier: GPL-2.0-only
"""relayd stalls, dies or is cut off mid-trace: every committed event is
still somewhere. A program emits numbered events through usttrace --relay
to a real lttng-relayd (private ports, private output), and one fault
strikes mid-stream: relayd stopped (SIGSTOP) for 10 s, a TCP proxy in
between that stops forwarding, relayd killed (SIGKILL). Then relayd's
copy and ustd's fallback directory, each read by babeltrace2, hold every
event between them, counted exactly; babeltrace2 given both directories
reads each event once. The copies ustd keeps for relayd are bounded: past
the bound they go to the fallback while the trace stays relayed. relayd
killed during a flood at full speed, its data held back: written +
discarded = emitted."""

import os
import re
import select
import signal
import socket
import subprocess
import threading
import time

from relayd import RELAYD, Relayd
from ustest import BABELTRACE2, USTTRACE, Tap, Workspace, app, cut_to_index, stream_problems

t = Tap()
ws = Workspace()
THREADS, TICKS, INTERVAL_US = 2, 6000, 2000


class Proxy:
    """A TCP proxy for relayd's control and data ports. Forwarding stops
    per port and direction ("ctrl" or "data", "up" toward relayd or "down"
    back); a stopped direction reads nothing more, so the sender's socket
    buffers fill as with a dead link. hold_data=True instead keeps reading
    the data connection into memory without passing it on, until
    release()."""

    def __init__(self, relayd):
        self.flow = {(port, way): threading.Event() for port in ("ctrl", "data")
                     for way in ("up", "down")}
        for ev in self.flow.values():
            ev.set()
        self.hold_data = False
        self.held = 0               # bytes of data held so far
        self.socks = []
        self.listeners = {}
        for port, target in (("ctrl", relayd.ctrl), ("data", relayd.data)):
            ls = socket.socket()
            ls.bind(("127.0.0.1", 0))
            ls.listen(4)
            self.listeners[port] = ls
            threading.Thread(target=self._accept, args=(ls, port, target), daemon=True).start()
        self.url = "net://127.0.0.1:%d:%d" % (self.listeners["ctrl"].getsockname()[1],
                                              self.listeners["data"].getsockname()[1])

    def _accept(self, ls, port, target):
        while True:
            try:
                client, _ = ls.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", target))
            self.socks += [client, server]
            threading.Thread(target=self._pump, args=(client, server, port, "up"),
                             daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, port, "down"),
                             daemon=True).start()

    def _pump(self, src, dst, port, way):
        flow = self.flow[(port, way)]
        holding = port == "data" and way == "up"
        held = []
        try:
            while True:
                flow.wait()
                if holding and held and not self.hold_data:
                    dst.sendall(b"".join(held))
                    held = []
                if not select.select([src], [], [], 0.1)[0]:
                    continue
                data = src.recv(65536)
                if not data:
                    while held and self.hold_data:
                        time.sleep(0.1)
                    dst.sendall(b"".join(held))
                    dst.shutdown(socket.SHUT_WR)
                    return
                if holding and self.hold_data:
                    held.append(data)
                    self.held += len(data)
                    continue
                flow.wait()
                dst.sendall(b"".join(held) + data)
                held = []
        except OSError:
            return

    def stop(self, *which):
        for key in which:
            self.flow[key].clear()

    def hold(self):
        self.hold_data = True

    def release(self):
        self.hold_data = False

    def close(self):
        for s in list(self.listeners.values()) + self.socks:
            s.close()


def ticks_of(*dirs):
    """(thread, seq) of every ust:tick babeltrace2 prints given dirs in one
    run, the events it says the tracer discarded, and its exit status and
    errors. Its text output is read: the Python bindings take minutes for
    the 400 000 events below."""
    res = subprocess.run([BABELTRACE2] + list(dirs), capture_output=True, text=True,
                         timeout=300, env=dict(os.environ, TZ="UTC"))
    ticks = [(int(a), int(b)) for a, b in
             re.findall(r"ust:tick: .*thread = (\d+), seq = (\d+)", res.stdout)]
    discarded = sum(int(n) for n in re.findall(r"Tracer discarded (\d+) events", res.stderr))
    return ticks, discarded, res.returncode, res.stderr[-2000:]


def first_error(err):
    """The cause babeltrace2 gives last (the innermost), on one line: CI
    shows a failing check's description, not always its diagnostics."""
    causes = re.findall(r"CAUSED BY \[[^\]]*\] \([^)]*\)\n((?:  .*\n?)+)", err)
    return " ".join((causes[-1] if causes else err.strip()[-200:]).split())[:300]


def fault_start(label, url, fault, after=3.0):
    """The program through usttrace --relay url, and a thread that calls
    fault() after `after` seconds. The cases run at once: each has its own
    relayd, proxy and output directory."""
    out = os.path.join(ws.root, label + "-out")
    proc = subprocess.Popen([USTTRACE, "-o", out, "--relay", url, app("ticker"), "-t",
                             str(THREADS), "-i", str(INTERVAL_US), "-n", str(TICKS)],
                            env=ws.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    ws.daemons.append(proc)
    strike = threading.Timer(after, fault)
    strike.start()
    return label, out, proc, strike


def fault_end(run, relayd):
    """The end of a fault_start run: returns (emitted, usttrace's stderr,
    relayd's trace dirs, fallback dirs)."""
    label, out, proc, strike = run
    stdout, stderr = proc.communicate(timeout=180)
    strike.join()
    emitted = {int(a): int(b) for a, b in re.findall(r"emitted (\d+) (\d+)", stdout)}
    t.ok(proc.returncode == 0 and emitted == {th: TICKS for th in range(THREADS)},
         "%s: the program ran on unharmed and emitted its %d ticks" % (label, THREADS * TICKS),
         stdout + stderr)
    m = re.search(r"session \*-(\d+)-\*", stderr)
    prefix = "ticker-%s-" % (m.group(1) if m else "?")
    fallback = sorted(os.path.join(out, d) for d in os.listdir(out)
                      if d.startswith(prefix)) if os.path.isdir(out) else []
    return emitted, stderr, relayd.traces(prefix), fallback


def check_union(label, emitted, stderr, remote, fallback):
    """relayd's copy and the fallback hold every tick between them, and
    babeltrace2 reads both at once once relayd's files are cut at their
    last index entry, as the manual says to (9.5): relayd may keep a
    packet it never confirmed without its entry (the fallback has it), and
    babeltrace2 2.0 reads a stream file whose index falls short packet by
    packet, without the packets' sequence numbers, and takes the
    fallback's copies of them for other packets (it read them twice and
    stopped, time going back)."""
    t.ok(re.search(r"lost lttng-relayd at \S+ while streaming ticker\[\d+\] \(.+\); "
                   r"(relayd has every packet sent before, )?the rest of the trace goes to",
                   stderr), "%s: ustd says it lost relayd, why, and where the trace goes on"
         % label, stderr)
    t.ok(len(remote) == 1 and len(fallback) == 1,
         "%s: one trace at relayd and one fallback directory" % label,
         "relayd %r, fallback %r" % (remote, fallback))
    parts = {}
    for where, dirs in (("relayd", remote), ("fallback", fallback)):
        for d in dirs:
            ticks, discarded, rc, err = ticks_of(d)
            t.ok(rc == 0 and len(ticks) == len(set(ticks)) and discarded == 0,
                 "%s: babeltrace2 reads the %s part: %d ticks, none twice, none discarded"
                 % (label, where, len(ticks)), "rc %d, discarded %d; %s" % (rc, discarded, err))
            parts[where] = set(ticks)
    if fallback:
        bad = stream_problems(fallback[0], False)
        t.ok(not bad, "%s: the fallback's index entries are exactly its packets" % label,
             "\n".join(bad))
    if remote:
        t.diag("%s: relayd's files cut at their index: %d bytes" % (label, cut_to_index(remote[0])))
    want = {(th, q) for th, n in emitted.items() for q in range(n)}
    union = parts.get("relayd", set()) | parts.get("fallback", set())
    missing = want - union
    overlap = parts.get("relayd", set()) & parts.get("fallback", set())
    t.ok(want and not missing and union == want,
         "%s: relayd %d + fallback %d ticks (%d in both) hold all %d, none lost"
         % (label, len(parts.get("relayd", ())), len(parts.get("fallback", ())), len(overlap),
            len(want)), "missing %d: %r" % (len(missing), sorted(missing)[:10]))
    merged, _, rc, err = ticks_of(*(remote + fallback))
    t.ok(rc == 0 and sorted(merged) == sorted(want),
         "%s: babeltrace2 given both directories prints every tick once (%d%s)"
         % (label, len(merged), "" if rc == 0 else ", babeltrace2: " + first_error(err)),
         "rc %d, %d ticks, %d distinct; %s" % (rc, len(merged), len(set(merged)), err[-2000:]))
    return overlap


def held_flood(label, n):
    """A relayd and a proxy that holds its data back, and the program
    through usttrace --relay at full speed, n ticks per thread. Returns
    (relayd, proxy, usttrace's process, the output directory)."""
    relayd = Relayd(ws, label)
    proxy = Proxy(relayd)
    proxy.hold()
    out = os.path.join(ws.root, label + "-out")
    # 8 sub-buffers of 256 KiB (the default before 16) and a backlog of
    # 8 MiB (the default is 64): the copies' bound stays the 8 MiB the
    # cases below reckon with.
    proc = subprocess.Popen([USTTRACE, "-o", out, "--relay", proxy.url, "--subbuf-num", "8",
                             "--relay-backlog", "8M",
                             app("ticker"), "-t", str(THREADS), "-i", "0", "-n", str(n)],
                            env=ws.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    ws.daemons.append(proc)
    return relayd, proxy, proc, out


if not RELAYD:
    t.ok(False, "lttng-relayd is installed (the README's test command installs lttng-tools)")
    t.done()

# The four faults below strike at once, each on a program, a relayd (and a
# proxy) of its own; each case is then checked in turn.
#
# 1. relayd stopped for 10 s, then continued: ustd gives up on it after 5 s
#    without an answer; what relayd took before the stop and writes after
#    it, and the fallback, hold every tick.
stopped = Relayd(ws, "stopped")


def stop_relayd():
    stopped.signal(signal.SIGSTOP)
    time.sleep(10)
    stopped.signal(signal.SIGCONT)


# 2. A proxy between ustd and relayd stops forwarding in both directions
#    on both connections, as a cut link would: nothing moves, nothing
#    errs; ustd gives up after 5 s.
cut = Relayd(ws, "cut")
cut_proxy = Proxy(cut)
# 3. relayd killed mid-stream.
killed = Relayd(ws, "killed")
# 4. relayd's answers stop coming back while everything ustd sends reaches
#    it: relayd writes packets ustd never hears it confirm, so both copies
#    hold them, and babeltrace2 reads them once.
deaf = Relayd(ws, "deaf")
deaf_proxy = Proxy(deaf)
runs = [fault_start("stopped", stopped.url, stop_relayd),
        fault_start("cut", cut_proxy.url,
                    lambda: cut_proxy.stop(("ctrl", "up"), ("ctrl", "down"),
                                           ("data", "up"), ("data", "down"))),
        fault_start("killed", killed.url, killed.kill),
        fault_start("deaf", deaf_proxy.url, lambda: deaf_proxy.stop(("ctrl", "down")))]

check_union("relayd stopped 10 s", *fault_end(runs[0], stopped))
t.ok(stopped.proc.poll() is None, "relayd runs on after SIGCONT")
check_union("link cut (proxy stops forwarding)", *fault_end(runs[1], cut))
cut_proxy.close()
check_union("relayd killed", *fault_end(runs[2], killed))
overlap = check_union("relayd's answers lost", *fault_end(runs[3], deaf))
t.ok(overlap, "relayd's answers lost: some ticks are in both copies (%d)" % len(overlap))
deaf_proxy.close()

# 5. The bound: relayd takes the control connection's commands but its
#    data stays in the proxy, so nothing is confirmed. Past the bound
#    (8 MiB or more), ustd writes the copies to the fallback and keeps
#    streaming; once the data flows again relayd has all of it too.
N = 200000
relayd, proxy, proc, out = held_flood("behind", N)
deadline = time.time() + 60
spilled = []
while time.time() < deadline and not spilled and proc.poll() is None:
    time.sleep(0.1)
    spilled = os.listdir(out) if os.path.isdir(out) else []
proxy.release()
stdout, stderr = proc.communicate(timeout=180)
m = re.search(r"lttng-relayd at \S+ is behind on ticker\[\d+\]: (\d+) KiB of packets it has "
              r"not confirmed writing \(more than the (\d+) KiB kept for it\) are written to "
              r"\S+ too", stderr)
t.ok(proc.returncode == 0 and spilled and m and int(m.group(2)) >= 8192 and
     int(m.group(1)) > int(m.group(2)),
     "relayd behind by more than the bound: ustd says so and writes the copies to the "
     "fallback while the program runs", stderr)
t.ok("lost lttng-relayd" not in stderr and "did not confirm" not in stderr,
     "the trace stays relayed, and relayd confirms everything in the end", stderr)
m = re.search(r"session \*-(\d+)-\*", stderr)
remote = relayd.traces("ticker-%s-" % m.group(1)) if m else []
fallback = [os.path.join(out, d) for d in os.listdir(out)] if os.path.isdir(out) else []
emitted = {int(a): int(b) for a, b in re.findall(r"emitted (\d+) (\d+)", stdout)}
if t.ok(len(remote) == 1 and len(fallback) == 1, "one trace at relayd and one fallback",
        "%r %r" % (remote, fallback)):
    ticks, discarded, _, err = ticks_of(remote[0])
    t.ok(emitted and sorted(ticks) == sorted((th, q) for th, n in emitted.items()
                                             for q in range(n)) and discarded == 0,
         "relayd has every tick in the end (%d, %d discarded)" % (len(ticks), discarded), err)
    fb, discarded, _, err = ticks_of(fallback[0])
    t.ok(fb and set(fb) <= set(ticks) and discarded == 0,
         "the fallback holds %d of them, each also at relayd" % len(fb), err)
    bad = stream_problems(fallback[0], False)
    t.ok(not bad, "the fallback's index entries are exactly its packets", "\n".join(bad))
    merged, _, rc, err = ticks_of(*(remote + fallback))
    t.ok(rc == 0 and sorted(merged) == sorted(ticks),
         "babeltrace2 given both directories prints every tick once (%d)" % len(merged),
         "rc %d, %d ticks; %s" % (rc, len(merged), err[-2000:]))
proxy.close()

# 6. A flood at full speed whose data relayd never gets (held in the
#    proxy), then relayd killed. relayd has the index entries, not the
#    data: every "not yet" to DATA_PENDING must keep the copies, in memory
#    or, past the bound, in the fallback, so that every tick is in the
#    fallback in the end or counted as discarded by the writers while ustd
#    moved there (manual 9.4).
N = 500000
relayd, proxy, proc, out = held_flood("flood", N)
# Killed with several MiB sent and unconfirmed, fewer than the bound of 8.
deadline = time.time() + 60
while time.time() < deadline and proc.poll() is None and proxy.held < (4 << 20):
    time.sleep(0.01)
flooding = proc.poll() is None
relayd.kill()
stdout, stderr = proc.communicate(timeout=180)
proxy.close()
emitted = {int(a): int(b) for a, b in re.findall(r"emitted (\d+) (\d+)", stdout)}
t.ok(proc.returncode == 0 and flooding and emitted == {th: N for th in range(THREADS)},
     "flood: relayd killed with %d KiB it never got, while the program emitted its %d ticks "
     "at full speed" % (proxy.held >> 10, THREADS * N), stdout + stderr)
m = re.search(r"session \*-(\d+)-\*", stderr)
remote = relayd.traces("ticker-%s-" % m.group(1)) if m else []
fallback = [os.path.join(out, d) for d in os.listdir(out)] if os.path.isdir(out) else []
t.ok(re.search(r"lost lttng-relayd at \S+ while streaming ticker\[\d+\] \(.+\); the rest of the "
               r"trace goes to \S+, beginning with the \d+ packets relayd had not confirmed",
               stderr) and len(fallback) == 1,
     "flood: ustd lost relayd with packets unconfirmed; one fallback directory",
     "%s\nrelayd %r, fallback %r" % (stderr, remote, fallback))
if fallback:
    for d in remote:
        t.diag("flood: relayd's files cut at their index: %d bytes" % cut_to_index(d))
    merged, discarded, rc, err = ticks_of(*(remote + fallback))
    t.ok(rc == 0 and len(merged) == len(set(merged)) and
         len(merged) + discarded == THREADS * N and
         set(merged) <= {(th, q) for th in range(THREADS) for q in range(N)},
         "flood: relayd and the fallback hold %d ticks, each once, and %d were counted "
         "discarded: all %d accounted for" % (len(merged), discarded, THREADS * N),
         "rc %d, %d ticks (%d distinct), %d discarded; %s"
         % (rc, len(merged), len(set(merged)), discarded, err))

t.done()
