"""What bench.py and its sections share: reading /proc files, the stream
files' sizes and discarded counts, waiting for a consumer to settle, the
worker's output, and interleaved runs."""

import os
import struct
import subprocess
import time

CTF_MAGIC = 0xC1FC1FC1


def usttrace_binary(builddir, env):
    """usttrace's own binary in the build tree, with env's UST_USTD and
    LD_LIBRARY_PATH set for ustd's own binary and the libraries: not
    libtool's wrapper scripts, whose shell and sed runs cost tens of
    milliseconds at each start (an installed usttrace has none). The
    wrappers when the binaries are not there (a build without shared
    libraries)."""
    libs = os.path.join(builddir, ".libs")
    usttrace = os.path.join(builddir, "usttrace", ".libs", "usttrace")
    ustd = os.path.join(builddir, "ustd", ".libs", "ustd")
    if not (os.path.exists(usttrace) and os.path.exists(ustd)):
        env["UST_USTD"] = os.path.join(builddir, "ustd", "ustd")
        return os.path.join(builddir, "usttrace", "usttrace")
    env["UST_USTD"] = ustd
    env["LD_LIBRARY_PATH"] = libs + (":" + env["LD_LIBRARY_PATH"]
                                     if env.get("LD_LIBRARY_PATH") else "")
    return usttrace


def read(path, default=""):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


def stream_stats(trace_root):
    """(bytes of stream files, events discarded) under trace_root: the
    discarded count is cumulative per stream, so the last packet of each
    stream file holds it (UST and LTTng-UST 2.13 share that packet layout:
    packet_size @56, events_discarded @72, both u64)."""
    total, discarded = 0, 0
    for dirpath, _, files in os.walk(trace_root):
        for name in files:
            if name == "metadata" or name.endswith(".idx"):
                continue
            path = os.path.join(dirpath, name)
            size = os.path.getsize(path)
            total += size
            last = 0
            with open(path, "rb") as f:
                pos = 0
                while pos + 80 <= size:
                    f.seek(pos)
                    head = f.read(80)
                    if struct.unpack_from("<I", head, 0)[0] != CTF_MAGIC:
                        break
                    psize = struct.unpack_from("<Q", head, 56)[0] // 8
                    last = struct.unpack_from("<Q", head, 72)[0]
                    if psize <= 0:
                        break
                    pos += psize
            discarded += last
    return total, discarded


def settle(trace_root, pause):
    """Waits until the stream files under trace_root stop growing: the
    consumer wrote what the last run left (at most 100 pauses)."""
    for _ in range(100):
        before = stream_stats(trace_root)[0]
        time.sleep(pause)
        if stream_stats(trace_root)[0] == before:
            return


def parse_worker(out):
    ns, elapsed, events, threads, _ = out.split()
    return float(ns), int(events), int(threads)


def parse_worker_cpu(out):
    """The writer threads' own CPU time in a worker's output, ns."""
    return int(out.split()[4])


def interleaved(items, runs, fire):
    """runs of fire(item) for each item in turn (UST, LTTng-UST, UST, ...),
    so that a figure of each comes from the same minutes of a shared
    machine whose speed drifts, and run i of one item can be paired with
    run i of another; a list of results per item."""
    out = [[] for _ in items]
    for _ in range(runs):
        for i, item in enumerate(items):
            out[i].append(fire(item))
    return out


def interleaved_rows(rows, runs, results, notes):
    """As interleaved(), for labelled rows [(label, fire)]: results[label]
    gets each run's figure; a row whose run fails is said in notes and
    dropped, not hidden, and the other rows still count."""
    rows = list(rows)
    for _ in range(runs):
        for label, fire in list(rows):
            try:
                results.setdefault(label, []).append(fire())
            except subprocess.CalledProcessError as e:
                notes.append("%s: not measured (%s)." % (label, e))
                rows.remove((label, fire))
                results.pop(label, None)
