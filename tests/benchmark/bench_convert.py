#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Conversion throughput and peak memory of sink.ust.perfetto and
sink.ust.summary, against babeltrace2 reading the same trace into
sink.utils.dummy (its own decoding cost): `make bench-convert`.

Traces of 1 M and 10 M events are written by usttrace around bench_ust
(two-int typed events) in a private mktemp directory; each conversion
runs --runs times and the table gives the median wall time, events per
second and the peak resident memory of the babeltrace2 process. Memory
that does not grow with the trace is the sink's promise."""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def run(cmd, env):
    """Wall seconds and peak RSS (MiB) of one command."""
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - t0
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("bench_convert: %s failed:\n%s" % (" ".join(cmd), err[-2000:]))
    return wall, usage.ru_maxrss / 1024.0


def count_events(bt2, trace, env):
    res = subprocess.run([bt2, trace, "-c", "sink.utils.counter", "-p", "step=+0"], env=env,
                         capture_output=True, text=True, check=True)
    # sink.utils.counter prints "N  Event messages" among other counts.
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1:3] == ["Event", "messages"]:
            return int(parts[0].replace(",", ""))
    sys.exit("bench_convert: cannot read the event count:\n" + res.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--builddir", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", default="1000000,10000000")
    args = ap.parse_args()
    b = args.builddir
    bt2 = shutil.which("babeltrace2") or "babeltrace2"
    plugin = os.path.join(b, "bt2plugin", ".libs")
    tmp = tempfile.mkdtemp(prefix="ust-bench-convert-")
    run_dir = os.path.join(tmp, "run")
    os.mkdir(run_dir, 0o700)
    env = dict(os.environ, UST_RUNDIR=run_dir, UST_USTD=os.path.join(b, "ustd", "ustd"), TZ="UTC")
    rows = []
    try:
        for n in [int(s) for s in args.sizes.split(",")]:
            out = os.path.join(tmp, "out-%d" % n)
            subprocess.run([os.path.join(b, "usttrace", "usttrace"), "-o", out,
                            "--subbuf-size", "1M", "--subbuf-num", "32",
                            os.path.join(b, "tests", "benchmark", "bench_ust"), "ints", "1", str(n)],
                           env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            trace = os.path.join(out, os.listdir(out)[0])
            events = count_events(bt2, trace, env)
            json_path = os.path.join(tmp, "out.json")
            cases = [
                ("babeltrace2 decoding alone (sink.utils.dummy)", ["-c", "sink.utils.dummy"]),
                ("sink.ust.perfetto", ["-c", "sink.ust.perfetto", "-p", 'path="%s"' % json_path]),
                ("sink.ust.perfetto format=proto",
                 ["-c", "sink.ust.perfetto", "-p", 'path="%s"' % os.path.join(tmp, "out.pftrace")]),
                ("sink.ust.summary", ["-c", "sink.ust.summary", "-p", 'path="%s"' % os.path.join(tmp, "sum.txt")]),
            ]
            for name, extra in cases:
                walls, rss = [], []
                for _ in range(args.runs):
                    w, r = run([bt2, "--plugin-path=" + plugin, trace] + extra, env)
                    walls.append(w)
                    rss.append(r)
                wall = statistics.median(walls)
                rows.append((name, events, wall, events / wall, max(rss)))
                print("bench_convert: %s, %d events: %s s, peak %s MiB" %
                      (name, events, " ".join("%.2f" % w for w in walls),
                       " ".join("%.1f" % r for r in rss)), file=sys.stderr, flush=True)
            shutil.rmtree(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("Conversion, median of %d runs; peak RSS of the babeltrace2 process." % args.runs)
    print()
    print("| conversion | events | seconds | events/s | peak RSS MiB |")
    print("|---|---|---|---|---|")
    for name, events, wall, rate, rss in rows:
        print("| %s | %d | %.2f | %.2f M | %.1f |" % (name, events, wall, rate / 1e6, rss))


if __name__ == "__main__":
    main()
