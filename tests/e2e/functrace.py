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


def func_calls(events):
    """Sets tid, kind ("entry" or "exit") and addr (None for an exit that
    names no function) on each function event of events, in place, as a
    reader decodes libust-func's events (bt2plugin/func_stream.h): the long
    forms entry {tid, addr} and exit {tid} start a run in their stream, the
    short forms entry_cont {addr_lo} and exit_cont {} continue it. Returns
    the function events."""
    runs, out = {}, []
    for ev in events:
        if not ev.name.startswith("ust_func:"):
            continue
        run = runs.setdefault((ev.vpid, ev.stream, ev.packet_context.get("cpu_id")),
                              {"tid": None, "high": None})
        if "tid" in ev.fields:
            run["tid"], run["high"] = ev.fields["tid"], None
        ev.tid = run["tid"]
        ev.kind = "entry" if ev.name.startswith("ust_func:entry") else "exit"
        ev.addr = None
        if "addr" in ev.fields:
            ev.addr = ev.fields["addr"]
            run["high"] = ev.addr >> 32
        elif "addr_lo" in ev.fields and run["high"] is not None:
            ev.addr = run["high"] << 32 | ev.fields["addr_lo"]
        out.append(ev)
    return out


def trees_from_events(events, name):
    """Per tid: the forest of calls, and the problems met building it. An
    exit ends the innermost open call of its thread."""
    stacks, forests, problems = {}, {}, []
    for ev in func_calls(events):
        stack = stacks.setdefault(ev.tid, [])
        if ev.kind == "entry":
            node = (name(ev.addr), [])
            (stack[-1][1] if stack else forests.setdefault(ev.tid, [])).append(node)
            stack.append(node)
        elif not stack:
            problems.append("tid %s: exit without its entry" % ev.tid)
        else:
            stack.pop()
    for tid, stack in stacks.items():
        if stack:
            problems.append("tid %d: %s entered, never exited" % (tid, [n for n, _ in stack]))
    return forests, problems


def calls_of(events, name):
    """Every call of a trace without loss, in the order they ended: dicts of name, tid, start, dur (ns), child (ns spent
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
    for ev in func_calls(events):
        tid = ev.tid
        stack = stacks.setdefault(tid, [])
        last[tid] = ev.ts
        if ev.kind == "entry":
            stack.append({"name": name(ev.addr), "tid": tid, "start": ev.ts, "child": 0,
                          "up": stack[-1] if stack else None})
        elif stack:
            close(tid, ev.ts)
    for tid, stack in stacks.items():
        while stack:
            close(tid, last[tid])
    return done
