# SPDX-License-Identifier: GPL-2.0-only
"""What the tests of function tracing share: naming traced addresses with
binutils from the objects the statedump names, and reading the function
events babeltrace2 gives (their layout is known here only)."""

import re
import subprocess


def nm_symbols(path):
    """{file vaddr: demangled name} of the functions of path, by binutils."""
    res = subprocess.run(["nm", "-C", "--defined-only", path], capture_output=True, text=True)
    syms = {}
    for line in res.stdout.splitlines():
        m = re.match(r"([0-9a-f]+) [tTwW] (.*)$", line)
        if m:
            syms.setdefault(int(m.group(1), 16), m.group(2))
    return syms


def first_load(path):
    res = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True)
    for line in res.stdout.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            return int(f[2], 16)
    return 0


def namer(bin_infos):
    objs = []
    for b in bin_infos:
        objs.append((b["baddr"], b["memsz"], b["baddr"] - first_load(b["path"]),
                     nm_symbols(b["path"])))

    def name(addr):
        for lo, size, bias, syms in objs:
            if lo <= addr < lo + size:
                return syms.get(addr - bias, "?%x" % addr)
        return "?%x" % addr
    return name


def func_event(ev):
    """("entry" or "exit", the function's address) of a function event,
    else None."""
    if ev.name == "ust_func:entry":
        return "entry", ev.fields["addr"]
    if ev.name == "ust_func:exit":
        return "exit", ev.fields["addr"]
    return None


def calls_of(events, name):
    """Every call of a trace without loss, whose events carry vtid, in the
    order they ended: dicts of name, tid, start, dur (ns), child (ns spent
    in its callees) and up (its caller's dict, None for a thread's
    outermost call). Calls open at the end end at their thread's last
    function event."""
    stacks, last, done = {}, {}, []

    def close(tid, ts):
        c = stacks[tid].pop()
        c["dur"] = ts - c["start"]
        if c["up"]:
            c["up"]["child"] += c["dur"]
        done.append(c)
    for ev in events:
        fe = func_event(ev)
        if not fe:
            continue
        tid = ev.context["vtid"]
        stack = stacks.setdefault(tid, [])
        last[tid] = ev.ts
        if fe[0] == "entry":
            stack.append({"name": name(fe[1]), "tid": tid, "start": ev.ts, "child": 0,
                          "up": stack[-1] if stack else None})
        else:
            close(tid, ev.ts)
    for tid, stack in stacks.items():
        while stack:
            close(tid, last[tid])
    return done
