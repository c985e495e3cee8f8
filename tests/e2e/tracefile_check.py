# SPDX-License-Identifier: GPL-2.0-only
"""Checks of a trace cut into bounded files (--tracefile-size and
--tracefile-count): what a stream holds on disk, how its files are named,
and that the events left are the newest ones, none missing or doubled."""

import os
import re
import subprocess

import ustest

# <channel>_<cpu>_<k>, as LTTng names the files of a bounded stream.
FILE_RE = re.compile(r"^(?P<stream>[A-Za-z_][A-Za-z0-9_]*_\d+)_(?P<k>\d+)$")


def stream_files(trace):
    """{stream: {k: size}} of the stream files of trace; files whose
    names are not <channel>_<cpu>_<k> go under None."""
    found = {}
    for f in os.listdir(trace):
        path = os.path.join(trace, f)
        if not os.path.isfile(path) or f == "metadata":
            continue
        m = FILE_RE.match(f)
        try:
            size = os.path.getsize(path)
        except FileNotFoundError:
            # Replaced by the next file between listdir and stat.
            continue
        key = m.group("stream") if m else None
        found.setdefault(key, {})[int(m.group("k")) if m else f] = size
    return found


def disk_problems(trace, size, count, packet):
    """What breaks the bound: more than count files for a stream, or more
    than count * size bytes plus one packet of packet bytes."""
    bad = []
    for stream, files in stream_files(trace).items():
        if stream is None:
            bad.append("stream files not named <channel>_<cpu>_<k>: %r" % sorted(files))
            continue
        if count and (len(files) > count or max(files) >= count):
            bad.append("%s: %d files numbered up to %d, expected at most %d numbered below %d"
                       % (stream, len(files), max(files), count, count))
        total = sum(files.values())
        if count and total > count * size + packet:
            bad.append("%s: %d bytes on disk, over %d * %d + one packet (%d)"
                       % (stream, total, count, size, packet))
    return bad


def suffix_problems(events, field, last):
    """The events of one numbering (field) must be last-n+1 .. last in
    order: a contiguous suffix, nothing lost, nothing doubled."""
    seqs = [e.fields[field] for e in events]
    if not seqs:
        return ["no events"]
    want = list(range(last - len(seqs) + 1, last + 1))
    if seqs == want:
        return []
    first_bad = next(i for i, (a, b) in enumerate(zip(seqs, want)) if a != b) \
        if len(seqs) == len(want) else 0
    return ["%d events, not the suffix ending at %d: from index %d got %r, want %r"
            % (len(seqs), last, first_bad, seqs[first_bad:first_bad + 5],
               want[first_bad:first_bad + 5])]


def babeltrace_ok(trace):
    """babeltrace2 (the command) reads the whole trace without error."""
    res = subprocess.run([ustest.BABELTRACE2, trace], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    return res.returncode == 0, res.stderr.decode(errors="replace")[-2000:]
