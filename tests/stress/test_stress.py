# SPDX-License-Identifier: GPL-2.0-only
"""Many at once, for STRESS_SECONDS (default 60): one program with 16
threads and 20 more traced programs, all on 2 CPUs, one private ustd. Every
event of every process is accounted for (recorded once, or reported
discarded: recorded + discarded == emitted), and no sanitizer the tree was
built with reports anything, in the programs or in ustd. Run by
`make check-stress` in a ThreadSanitizer and an AddressSanitizer build."""

import os
import re
import signal
import subprocess

from ustest import BABELTRACE2, Tap, Workspace

SECONDS = float(os.environ.get("STRESS_SECONDS") or 60)
PROCS, THREADS = 20, 16
# Paces the trace can be read back at in about as long as it ran.
RATE_PROC, RATE_THREAD = 4000, 2000
SANITIZER_REPORT = re.compile(r"ERROR: AddressSanitizer|WARNING: ThreadSanitizer|"
                              r"ERROR: LeakSanitizer|runtime error:|SUMMARY: \w+Sanitizer")
EVENT = re.compile(r"ust:stress: .*\{ thread = (\d+), seq = (\d+),")
DISCARDED = re.compile(r"Tracer discarded (\d+) events")


def two_cpus():
    cpus = sorted(os.sched_getaffinity(0))
    return set(cpus[:2])


def pin():
    os.sched_setaffinity(0, two_cpus())


def emitted_of(stdout):
    counts = {}
    for line in stdout.splitlines():
        w = line.split()
        if w[:1] == ["emitted"]:
            counts[int(w[1])] = int(w[2])
    return counts


def account(path, emitted):
    """Reads the whole trace with babeltrace2: (recorded, discarded,
    duplicates, strays, babeltrace2's errors)."""
    proc = subprocess.Popen([BABELTRACE2, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=dict(os.environ, TZ="UTC"))
    seen = {th: bytearray(n) for th, n in emitted.items()}
    recorded = dups = strays = 0
    for line in proc.stdout:
        m = EVENT.search(line)
        if not m:
            continue
        recorded += 1
        th, seq = int(m.group(1)), int(m.group(2))
        bits = seen.get(th)
        if bits is None or seq >= len(bits):
            strays += 1
        elif bits[seq]:
            dups += 1
        else:
            bits[seq] = 1
    err = proc.stderr.read()
    rc = proc.wait()
    discarded = sum(int(n) for n in DISCARDED.findall(err))
    errors = [l for l in err.splitlines() if " E " in l or l.startswith("ERROR")]
    if rc != 0:
        errors.append("babeltrace2 exited with %d" % rc)
    return recorded, discarded, dups, strays, errors


t = Tap()
ws = Workspace()
t.diag("%g seconds: %d threads in one program, %d programs, on CPUs %s"
       % (SECONDS, THREADS, PROCS, sorted(two_cpus())))
# Any report of ThreadSanitizer ends the program with status 66 at exit;
# AddressSanitizer and UBSan abort (-fno-sanitize-recover).
supp = os.path.join(os.environ.get("top_srcdir", "."), "tests", "stress", "tsan.supp")
san = {"TSAN_OPTIONS": "exitcode=66 halt_on_error=0 second_deadlock_stack=1 suppressions=" + supp,
       "ASAN_OPTIONS": "detect_leaks=1 abort_on_error=0"}
os.environ.update(san)
ustd = ws.start_ustd()
apps = [("threads", ws.start_app("stress", ["-t", THREADS, "-d", SECONDS, "-r", RATE_THREAD],
                                 preexec_fn=pin, UST_TRACE=1))]
for i in range(PROCS):
    apps.append(("proc%d" % i, ws.start_app("stress", ["-d", SECONDS, "-r", RATE_PROC],
                                            preexec_fn=pin, UST_TRACE=1)))
results = []
for name, proc in apps:
    out, err = proc.communicate(timeout=SECONDS * 20 + 300)
    results.append((name, proc, out, err))
ustd.send_signal(signal.SIGTERM)
_, ustd_err = ustd.communicate(timeout=600)
t.eq(ustd.returncode, 0, "ustd exits 0 after SIGTERM")
m = SANITIZER_REPORT.search(ustd_err)
t.ok(not m, "ustd: no sanitizer report", ustd_err[-4000:])

traces = {}
for d in os.listdir(ws.out):
    traces[int(d.split("-")[1])] = os.path.join(ws.out, d)
total_emitted = total_recorded = total_discarded = 0
for name, proc, out, err in results:
    emitted = emitted_of(out)
    want = THREADS if name == "threads" else 1
    t.ok(proc.returncode == 0 and len(emitted) == want and not SANITIZER_REPORT.search(err),
         "%s: exits 0, reports its counts, no sanitizer report" % name,
         "status %s\n%s" % (proc.returncode, err[-4000:]))
    path = traces.get(proc.pid)
    if not t.ok(path is not None, "%s: has a trace" % name):
        continue
    recorded, discarded, dups, strays, errors = account(path, emitted)
    n = sum(emitted.values())
    total_emitted += n
    total_recorded += recorded
    total_discarded += discarded
    t.ok(not errors and not dups and not strays and recorded + discarded == n,
         "%s: every event accounted for: %d recorded + %d discarded == %d emitted"
         % (name, recorded, discarded, n),
         "duplicates %d, never emitted %d\n%s" % (dups, strays, "\n".join(errors[:20])))
t.diag("in all: %d emitted, %d recorded, %d discarded"
       % (total_emitted, total_recorded, total_discarded))
t.done()
