#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The README's five-minute tour runs as written: every command of its
code blocks, read from the README itself, in order, with only the
placeholders a reader fills in replaced (the program, the pid, the trace
directory's name, /var/tmp/traces) and the programs of the build tree
first on PATH. Each exits 0, and what the tour says it makes is there."""

import glob
import os
import re
import signal
import subprocess

from ustest import TOP_BUILD, TOP_SRC, Tap, Workspace, app, wait_for

t = Tap()
ws = Workspace()
home = os.path.join(ws.root, "home")
os.mkdir(home)
traces = os.path.join(ws.root, "traces")
with open(os.path.join(TOP_SRC, "README")) as f:
    readme = f.read()
tour = readme.split("A five-minute tour", 1)[1].split("\nWhere to read on", 1)[0]
commands = [line[4:] for line in tour.splitlines() if line.startswith("    ")]
t.ok(len(commands) >= 15, "the tour holds %d commands" % len(commands), commands)

env = ws.env(HOME=home,
             PATH=":".join([os.path.join(TOP_BUILD, d) for d in
                            ("usttrace", "ustctl", "ustd", "bt2plugin")] +
                           [os.environ.get("PATH", "/usr/bin:/bin")]))
env.pop("UST_USTD", None)
# The running programs the tour attaches to and traces as a service.
ticker = ws.start_app("ticker", ["-i", 200])
server = ws.start_app("webish", ["0"])
made = {}


def fill(cmd):
    """The command as a reader would type it here; None for what is not
    a command (the elided middle, C code)."""
    cmd = re.sub(r"\s+#.*$", "", cmd).strip()
    if cmd in ("...", "") or cmd.startswith("trace_mark("):
        return None
    cmd = cmd.replace("./myprogram arg1 arg2", app("hello") + " 3")
    cmd = cmd.replace("./myprogram", app("hello") + " 3")
    cmd = cmd.replace("./server", app("webish") + " 50")
    cmd = cmd.replace("PID", str(ticker.pid))
    cmd = cmd.replace("/var/tmp/traces", traces)
    cmd = cmd.replace("trace.json", os.path.join(ws.root, "trace.json"))
    if "myprogram-12345-20261121-101500" in cmd:
        cmd = cmd.replace("~/ust-traces/myprogram-12345-20261121-101500", made["first"])
    return cmd


daemons = []
for raw in commands:
    cmd = fill(raw)
    if cmd is None:
        continue
    if cmd.endswith("&"):
        # ustd &: once per user; stopped by its pid at the end.
        proc = subprocess.Popen(["bash", "-c", "exec " + cmd[:-1]], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        ws.daemons.append(proc)
        daemons.append(proc)
        t.ok(wait_for(lambda: os.path.exists(os.path.join(ws.rundir, "ustd")), 10),
             "%s: ustd listens" % raw.strip())
        continue
    res = subprocess.run(["bash", "-c", cmd], env=env, capture_output=True, text=True,
                         timeout=120)
    t.ok(res.returncode == 0, "README: %s" % raw.strip(),
         "as run: %s\n%s%s" % (cmd, res.stdout[-1500:], res.stderr[-1500:]))
    if cmd.startswith("babeltrace2 " + traces):
        made["service"] = res.stdout
    if "first" not in made:
        found = sorted(glob.glob(os.path.join(home, "ust-traces", "hello-*")))
        if found:
            made["first"] = found[0]
t.ok("first" in made, "usttrace wrote under ~/ust-traces, as the tour says")
t.ok(os.path.exists(os.path.join(ws.root, "trace.json")), "--perfetto wrote its file")
t.ok(glob.glob(os.path.join(traces, "web-*")), "the session's directory is under its -o")
t.ok("http:request" in made.get("service", "") and "db:query" in made.get("service", ""),
     "the running server joined the session: its http and db events are read back")
for proc in daemons:
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
ws.stop_app(ticker)
ws.stop_app(server)
t.done()
