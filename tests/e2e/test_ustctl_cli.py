# SPDX-License-Identifier: GPL-2.0-only
"""ustctl as a command: usage errors, --help, --mi xml output validated
against doc/xml/ustctl-mi.xsd for every command (errors too), every command
against a running ticker served by a real ustd, snapshots of a
flight-recorder ticker read back with babeltrace2, and usttrace --session."""

import os
import re
import signal
import subprocess
import time
import xml.etree.ElementTree as ET

from ustest import (TOP_BUILD, TOP_SRC, USTD, USTTRACE, Tap, Workspace, app, babeltrace_check,
                    read_trace)

USTCTL = os.path.join(TOP_BUILD, "ustctl", "ustctl")
XSD = os.path.join(TOP_SRC, "doc", "xml", "ustctl-mi.xsd")

COMMANDS = {
    "list-pids": "", "list-markers": "PID",
    "enable-marker": "[-t TRACE] [--filter EXPR] [--loglevel[-only] LEVEL] PID PATTERN... | "
                     "-s NAME [--filter EXPR] [--loglevel[-only] LEVEL] PATTERN...",
    "disable-marker": "[-t TRACE] PID PATTERN... | -s NAME PATTERN...",
    "create-trace": "[-t TRACE] [-o DIR | -r URL] PID...", "alloc-trace": "[-t TRACE] PID...",
    "start-trace": "[-t TRACE] PID...", "stop-trace": "[-t TRACE] PID...",
    "destroy-trace": "[-t TRACE] PID...", "force-switch": "[-t TRACE] PID...",
    "set-subbuf-size": "[-t TRACE] PID CHANNEL/BYTES", "set-subbuf-num": "[-t TRACE] PID CHANNEL/N",
    "get-subbuf-size": "[-t TRACE] PID CHANNEL", "get-subbuf-num": "[-t TRACE] PID CHANNEL",
    "set-sock-path": "PID PATH", "get-sock-path": "PID",
    "save-session": "[-t TRACE] PID FILE.xml | -s NAME FILE.xml",
    "load-session": "[-t TRACE] PID FILE.xml | [-s NAME] FILE.xml",
    "info": "PID", "snapshot": "[-o DIR] [-t TRACE] PID...",
    "create-session": "[-o DIR | -r URL] [--overwrite] [--buffers-pid | --buffers-uid] [--subbuf-size BYTES] [--subbuf-num N] "
                      "[--tracefile-size BYTES [--tracefile-count N]] "
                      "[--rotate-every DURATION] [--rotate-size BYTES] "
                      "[--on-rotate CMD [--on-rotate-timeout DURATION]] NAME",
    "start-session": "NAME", "stop-session": "NAME", "destroy-session": "NAME",
    "rotate-session": "NAME", "list-sessions": "",
    "enable-rotation": "-s NAME [--every DURATION] [--size BYTES] "
                       "[--on-rotate CMD [--on-rotate-timeout DURATION]]",
    "disable-rotation": "-s NAME",
}
mi_seen = set()

t = Tap()
ws = Workspace()


def ustctl(*args, env=None, cwd=None):
    return subprocess.run([USTCTL] + list(args), env=env or ws.env(), capture_output=True,
                          text=True, timeout=60, cwd=cwd)


def schema_check(text):
    res = subprocess.run(["xmllint", "--noout", "--schema", XSD, "-"], input=text,
                         capture_output=True, text=True, timeout=60)
    return res.returncode == 0, res.stderr


def mi(*args, env=None, cwd=None):
    """ustctl --mi xml ARGS: (result, root element or None); the document is
    checked against the schema and its success flag against the exit status
    as one more test."""
    res = ustctl("--mi", "xml", *args, env=env, cwd=cwd)
    valid, diag = schema_check(res.stdout)
    root = None
    try:
        root = ET.fromstring(res.stdout)
    except ET.ParseError as e:
        diag += "\n%s" % e
    ok = valid and root is not None and \
        root.get("success") == ("true" if res.returncode == 0 else "false")
    if ok and root.get("command") in args:
        mi_seen.add(root.get("command"))
    t.ok(ok, "--mi xml %s: valid against ustctl-mi.xsd, success flag = exit %d" %
         (" ".join(args), res.returncode), diag + "\n" + res.stdout + res.stderr)
    return res, root


def usage_error(args, message, desc, usage_of=None):
    res = ustctl(*args)
    want = "usage: ustctl [--mi xml] %s %s" % (usage_of, COMMANDS[usage_of]) if usage_of \
        else "usage: ustctl"
    t.ok(res.returncode == 2 and message in res.stderr and want in res.stderr
         and res.stdout == "", desc + ": exit 2, says so, shows the usage",
         "exit %d\n%s" % (res.returncode, res.stderr))
    res, root = mi(*args)
    errors = [e.text for e in root.iter("error")] if root is not None else []
    t.ok(res.returncode == 2 and any(message in (e or "") for e in errors),
         desc + ": the error is in the XML too", res.stdout)


# ------------------------------------------------------------ usage errors
usage_error([], "no command given", "no command")
usage_error(["frobnicate", "1"], "unknown command 'frobnicate'", "unknown command")
usage_error(["--mi-typo", "list-pids"], "--mi-typo", "unknown global option")
res = ustctl("--mi", "json", "list-pids")
t.ok(res.returncode == 2 and "xml" in res.stderr, "--mi json is refused, naming xml", res.stderr)
usage_error(["--timeout", "0", "list-pids"], "--timeout 0", "a zero timeout")
usage_error(["list-markers", "abc"], "'abc' is not a process ID", "a PID that is a word",
            "list-markers")
usage_error(["info", "0"], "'0' is not a process ID", "PID 0", "info")
usage_error(["info", "12x"], "'12x' is not a process ID", "a PID with a suffix", "info")
usage_error(["info", "99999999999999"], "'99999999999999' is not a process ID",
            "a PID beyond pid_t", "info")
usage_error(["create-trace", "1", "x2"], "'x2' is not a process ID",
            "a bad PID after a good one", "create-trace")
usage_error(["list-markers"], "missing arguments", "list-markers without PID", "list-markers")
usage_error(["enable-marker", "1"], "missing arguments", "enable-marker without a pattern",
            "enable-marker")
usage_error(["enable-marker", "1", ""], "empty pattern", "an empty pattern", "enable-marker")
usage_error(["enable-marker", "--filter", "value >= (3", "1", "ust:*"],
            "filter, column 12: expected ')' to close the '(' at column 10",
            "a filter with a syntax error (the column named)", "enable-marker")
usage_error(["enable-marker", "--filter", "path < \"x*y\"", "1", "ust:*"],
            "column 6: a glob pattern compares with == and != only",
            "a filter ordering a string by a glob pattern whose '*' does not end it",
            "enable-marker")
usage_error(["enable-marker", "--filter", "", "1", "ust:*"], "the filter is empty",
            "an empty filter", "enable-marker")
usage_error(["enable-marker", "--loglevel", "LOUD", "1", "ust:*"], "unknown log level 'LOUD'",
            "an unknown log level", "enable-marker")
usage_error(["enable-marker", "--loglevel", "ERR", "--loglevel-only", "4", "1", "ust:*"],
            "not both", "--loglevel with --loglevel-only", "enable-marker")
usage_error(["disable-marker", "--filter", "a == 1", "1", "ust:*"], "--filter",
            "disable-marker takes no filter", "disable-marker")
usage_error(["start-trace"], "missing arguments", "start-trace without PID", "start-trace")
usage_error(["info", "1", "2"], "too many arguments, from '2' on", "info with two PIDs", "info")
usage_error(["get-subbuf-size", "1"], "missing arguments", "get-subbuf-size without channel",
            "get-subbuf-size")
usage_error(["set-sock-path", "1"], "missing arguments", "set-sock-path without path",
            "set-sock-path")
usage_error(["save-session", "1"], "missing arguments", "save-session without file",
            "save-session")
usage_error(["list-markers", "--bogus", "1"], "--bogus", "an unknown command option",
            "list-markers")
usage_error(["info", "-t", "x", "1"], "-t", "-t where the command takes no trace", "info")
usage_error(["snapshot"], "missing arguments", "snapshot without PID", "snapshot")
usage_error(["snapshot", "-o"], "-o: missing argument", "snapshot -o without a value",
            "snapshot")
usage_error(["snapshot", "-o", "", "1"], "-o needs a directory", "snapshot -o ''", "snapshot")
usage_error(["snapshot", "--bogus", "1"], "--bogus", "snapshot with an unknown option",
            "snapshot")
usage_error(["create-trace", "-o", "d", "-r", "net://h", "1"], "-o and -r both say where",
            "create-trace with both -o and -r", "create-trace")
usage_error(["create-trace", "-r", "", "1"], "-r needs a URL", "create-trace -r ''",
            "create-trace")
usage_error(["create-trace", "-r"], "-r: missing argument", "create-trace -r without a value",
            "create-trace")
usage_error(["snapshot", "-o", "d", "1", "x2"], "'x2' is not a process ID",
            "snapshot with a bad PID after a good one", "snapshot")
usage_error(["info", "-o", "d", "1"], "-o", "-o where the command takes no directory", "info")
for value, what in [("ust/3000", "not a power of two"), ("ust/128M", "above 64M"),
                    ("ust/2048", "below 4096"), ("ust/64q", "a bad suffix"),
                    ("ust/", "no value")]:
    usage_error(["set-subbuf-size", "1", value], "must be a power of two from 4096 to 67108864",
                "set-subbuf-size %s (%s)" % (value, what), "set-subbuf-size")
for value, what in [("ust/1", "below 2"), ("ust/512", "above 256"), ("ust/3", "not a power of two")]:
    usage_error(["set-subbuf-num", "1", value], "must be a power of two from 2 to 256",
                "set-subbuf-num %s (%s)" % (value, what), "set-subbuf-num")
usage_error(["set-subbuf-size", "1", "ust"], "'ust' is not CHANNEL/BYTES",
            "set-subbuf-size without a slash", "set-subbuf-size")
usage_error(["set-subbuf-num", "1", "/8"], "'/8' is not CHANNEL/N",
            "set-subbuf-num without a channel", "set-subbuf-num")

# ------------------------------------------------------------------ help
res = ustctl("--help")
t.ok(res.returncode == 0 and all(c in res.stdout for c in COMMANDS) and "--mi" in res.stdout,
     "ustctl --help lists every command and --mi", res.stdout)
res = ustctl("--version")
t.ok(res.returncode == 0 and res.stdout.startswith("ustctl (ust) "), "ustctl --version",
     res.stdout)
for cmd, args in COMMANDS.items():
    res = ustctl(cmd, "--help")
    t.ok(res.returncode == 0 and res.stdout.startswith("Usage: ustctl %s %s" % (cmd, args))
         and ("--trace=" in res.stdout) == ("-t TRACE" in args) and res.stderr == "",
         "ustctl %s --help" % cmd, res.stdout + res.stderr)

# ------------------------------------------------- against running programs
# pid_max itself is never handed out.
with open("/proc/sys/kernel/pid_max") as f:
    NO_PID = f.read().strip()


def start_ustd(w):
    r, wfd = os.pipe()
    proc = subprocess.Popen([USTD, "-o", w.out, "-s", os.path.join(w.rundir, "ustd"),
                             "--ready-fd", str(wfd)], pass_fds=(wfd,), env=w.env(),
                            stderr=subprocess.DEVNULL)
    os.close(wfd)
    w.daemons.append(proc)
    ready = os.read(r, 1)
    os.close(r)
    return proc if ready else None


def start_ticker(w, env):
    """A ticker, once it says it runs and its control socket exists."""
    proc = subprocess.Popen([app("ticker"), "-i", "2000"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    w.daemons.append(proc)
    ready = proc.stdout.readline().strip() == "ready"
    sock = os.path.join(w.rundir, "apps", str(proc.pid))
    deadline = time.monotonic() + 10
    while ready and not os.path.exists(sock) and time.monotonic() < deadline:
        time.sleep(0.05)
    return proc, ready and os.path.exists(sock)


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def session_of(path):
    """(rules, channels) of a session file, in order."""
    root = ET.parse(path).getroot()
    rules = [(e.tag, e.get("pattern")) for e in root if e.tag in ("enable", "disable")]
    chans = [(e.get("name"), e.get("subbuf-size"), e.get("subbuf-num"))
             for e in root if e.tag == "channel"]
    return rules, chans


def process_of(root, pid):
    return root.find("process[@pid='%d']" % pid) if root is not None else None


def live(mode):
    w = Workspace()
    extra = {"UST_CONTROL": mode} if mode else {}
    env = w.env(**extra)
    tag = "[%s] " % (mode or "sigio")
    ustd = start_ustd(w)
    t.ok(ustd is not None, tag + "ustd runs")
    tick, ok = start_ticker(w, env)
    if not t.ok(ok, tag + "ticker runs and has its control socket under $UST_RUNDIR/apps",
                tick.stderr.read() if tick.poll() is not None else "no socket"):
        stop(tick)
        return
    pid = tick.pid
    uenv = w.env()

    def run(*args):
        return ustctl(*args, env=uenv)

    def xrun(*args):
        return mi(*args, env=uenv)

    res = run("list-pids")
    t.ok(res.returncode == 0 and str(pid) in res.stdout.split(), tag + "list-pids shows it",
         res.stdout + res.stderr)
    res, root = xrun("list-pids")
    t.ok(root is not None and str(pid) in [p.text for p in root.iter("pid")],
         tag + "list-pids in XML shows it", res.stdout)

    res, root = xrun("info", str(pid))
    t.eq(root.findtext("process/info/procname") if root is not None else None, "ticker",
         tag + "info gives the process name")

    want = {"ust:tick": "thread %u seq %lu", "ust:tock": "n %d", "other:count": "n %d name %s"}
    res = run("list-markers", str(pid))
    lines = res.stdout.splitlines()
    for name, fmt in want.items():
        line = next((l for l in lines if l.split()[:1] == [name]), "")
        t.ok('"%s"' % fmt in line and "disabled" in line and "ticker" in line,
             tag + "list-markers shows %s, disabled, with its format and object" % name,
             res.stdout + res.stderr)
    res, root = xrun("list-markers", str(pid))
    got = {}
    for m in (root.iter("marker") if root is not None else []):
        fmt = m.find("format")
        got[m.findtext("name")] = (m.findtext("state"), fmt.get("kind"), fmt.text or "",
                                   [o.text for o in m.iter("object")])
    for name, fmt in want.items():
        g = got.get(name)
        t.ok(g is not None and g[:3] == ("disabled", "format", fmt)
             and any(o.endswith("/ticker") for o in g[3]),
             tag + "list-markers in XML: %s" % name, repr(g))

    res, root = xrun("enable-marker", str(pid), "ust:*")
    t.ok(res.returncode == 0 and int(root.findtext("process/matched") or 0) >= 2,
         tag + "enable-marker 'ust:*' matches ust:tick and ust:tock", res.stdout + res.stderr)
    res, root = xrun("disable-marker", str(pid), "other/count")
    t.eq(res.returncode, 0, tag + "disable-marker with the channel/name spelling")
    res = run("list-markers", str(pid))
    states = {l.split()[0]: l.split()[1] for l in res.stdout.splitlines()[1:] if l.split()}
    t.eq((states.get("ust:tick"), states.get("ust:tock"), states.get("other:count")),
         ("enabled", "enabled", "disabled"), tag + "list-markers shows the new states")

    res, root = xrun("create-trace", str(pid))
    t.eq(res.returncode, 0, tag + "create-trace")
    for cmd, arg, value, got_want in [("subbuf-size", "ust/64k", "65536", "65536"),
                                      ("subbuf-num", "ust/8", "8", "8")]:
        res, root = xrun("set-" + cmd, str(pid), arg)
        t.ok(res.returncode == 0 and root.find("process/channel").get(cmd) == value,
             tag + "set-%s %s" % (cmd, arg), res.stdout + res.stderr)
        res = run("get-" + cmd, str(pid), "ust")
        t.eq((res.returncode, res.stdout.strip()), (0, got_want), tag + "get-%s reads it back" % cmd)
        res, root = xrun("get-" + cmd, str(pid), "ust")
        t.eq(root.find("process/channel").get(cmd) if root is not None else None, got_want,
             tag + "get-%s in XML" % cmd)

    real_sock = os.path.join(w.rundir, "ustd")
    res = run("get-sock-path", str(pid))
    t.eq((res.returncode, res.stdout.strip()), (0, real_sock),
         tag + "get-sock-path: the default ustd socket")
    other = os.path.join(w.root, "elsewhere.sock")
    res, root = xrun("set-sock-path", str(pid), other)
    t.eq(res.returncode, 0, tag + "set-sock-path")
    res, root = xrun("get-sock-path", str(pid))
    t.eq(root.findtext("process/sock-path") if root is not None else None, other,
         tag + "get-sock-path reads it back")
    res = run("set-sock-path", str(pid), real_sock)
    t.eq(res.returncode, 0, tag + "set-sock-path back to the real ustd")

    saved = os.path.join(w.root, "saved.xml")
    res, root = xrun("save-session", str(pid), saved)
    t.ok(res.returncode == 0 and os.path.exists(saved), tag + "save-session writes the file",
         res.stderr)
    rules, chans = session_of(saved) if os.path.exists(saved) else ([], [])
    t.ok(("enable", "ust:*") in rules and any(c[0] == "ust" for c in chans),
         tag + "the saved session holds the rule and the channel", repr((rules, chans)))
    xrules = [(r.get("action"), r.text) for r in root.iter("rule")] if root is not None else []
    t.eq(xrules, [(a, p) for a, p in rules], tag + "save-session's XML lists the same rules")

    # The round trip: a second program gets the session, and saves the same.
    tick2, ok2 = start_ticker(w, env)
    if t.ok(ok2, tag + "a second ticker runs"):
        # Several PIDs, one of them unknown: the other one is still done.
        res, root = xrun("create-trace", str(tick2.pid), NO_PID)
        p_ok, p_bad = process_of(root, tick2.pid), process_of(root, int(NO_PID))
        t.ok(res.returncode == 1 and p_ok is not None and p_ok.get("success") == "true"
             and p_bad is not None and p_bad.get("success") == "false"
             and NO_PID in (p_bad.findtext("error") or "") and ("pid " + NO_PID) in res.stderr,
             tag + "several PIDs, one unknown: exit 1, the other done, the error names the PID",
             res.stdout + res.stderr)
        res, root = xrun("load-session", str(tick2.pid), saved)
        t.ok(res.returncode == 0, tag + "load-session into the second ticker", res.stderr)
        again = os.path.join(w.root, "again.xml")
        res = run("save-session", str(tick2.pid), again)
        t.eq(session_of(again) if res.returncode == 0 else res.stderr, (rules, chans),
             tag + "and it saves the same session back")
        res = run("get-subbuf-size", str(tick2.pid), "ust")
        t.eq(res.stdout.strip(), "65536", tag + "the loaded channel size is in effect")
    stop(tick2)

    # A process holds four traces at most: more are refused.
    made = []
    for name in ("second", "third", "fourth", "fifth", "sixth"):
        res = run("create-trace", "-t", name, str(pid))
        if res.returncode != 0:
            break
        made.append(name)
    t.ok(len(made) in (3, 4) and res.returncode == 1 and "pid %d:" % pid in res.stderr and
         "no room for trace" in res.stderr,
         tag + "traces past the fourth in one process are refused, naming the PID (%d made)"
         % len(made), res.stderr)
    for name in made:
        run("destroy-trace", "-t", name, str(pid))

    for cmd in ["alloc-trace", "start-trace"]:
        res, root = xrun(cmd, str(pid))
        t.eq(res.returncode, 0, tag + cmd)
    res, root = xrun("snapshot", "-o", w.root, str(pid))
    err = root.findtext("process/error") if root is not None else None
    t.ok(res.returncode == 1 and ("pid %d:" % pid) in res.stderr
         and "flight-recorder" in res.stderr and "flight-recorder" in (err or ""),
         tag + "snapshot of a trace written as it goes: exit 1, refused naming the PID "
         "and flight-recorder mode", res.stdout + res.stderr)
    res, root = xrun("set-subbuf-size", str(pid), "ust/8k")
    t.ok(res.returncode == 1 and str(pid) in res.stderr, tag + "set-subbuf-size after "
         "allocation is refused, naming the PID", res.stderr)
    time.sleep(0.5)
    for cmd in ["force-switch", "stop-trace", "destroy-trace"]:
        res, root = xrun(cmd, str(pid))
        t.eq(res.returncode, 0, tag + cmd)
    dirs = [d for d in w.trace_dirs() if "-%d-" % pid in d]
    events = read_trace(dirs[0])[0] if dirs else []
    names = {e.name for e in events}
    t.ok("ust:tick" in names and "ust:tock" in names and "other:count" not in names,
         tag + "the trace has the enabled events and not the disabled one", repr(names))

    for cmd in ["info", "list-markers", "get-sock-path", "get-subbuf-num"]:
        args = [cmd, NO_PID] + (["ust"] if cmd.startswith("get-subbuf") else [])
        res, root = xrun(*args)
        t.ok(res.returncode == 1 and ("pid %s:" % NO_PID) in res.stderr
             and NO_PID in (root.findtext("process/error") or ""),
             tag + "%s of an unknown PID fails naming it" % cmd, res.stderr)
    for args in [["enable-marker", NO_PID, "x"], ["disable-marker", NO_PID, "x"],
                 ["set-subbuf-size", NO_PID, "ust/4k"], ["set-subbuf-num", NO_PID, "ust/4"],
                 ["get-subbuf-size", NO_PID, "ust"], ["set-sock-path", NO_PID, "/x"],
                 ["save-session", NO_PID, os.path.join(w.root, "no.xml")],
                 ["load-session", NO_PID, saved], ["alloc-trace", NO_PID],
                 ["start-trace", NO_PID], ["stop-trace", NO_PID], ["force-switch", NO_PID],
                 ["snapshot", "-o", w.root, NO_PID]]:
        res, root = xrun(*args)
        t.ok(res.returncode == 1 and NO_PID in res.stderr, tag + "%s of an unknown PID fails"
             % args[0], res.stderr)
    bad = os.path.join(w.root, "bad.xml")
    with open(bad, "w") as f:
        f.write('<ust-session version="1">\n  <enable/>\n</ust-session>\n')
    res, root = xrun("load-session", str(pid), bad)
    t.ok(res.returncode == 2 and "bad.xml:2" in res.stderr, tag + "load-session of a bad "
         "file: exit 2 with its line", res.stderr)

    stop(tick)
    t.eq(tick.returncode, 0, tag + "ticker exits normally after all that")


def ticks(path):
    """babeltrace2's verdict on a snapshot, and the seq of its ust:tick events."""
    ok, diag = babeltrace_check(path)
    seqs = [e.fields["seq"] for e in read_trace(path)[0] if e.name == "ust:tick"] if ok else []
    return ok, diag, seqs


def flight(mode):
    """Snapshots of a ticker in flight-recorder mode, traced from its start."""
    w = Workspace()
    extra = {"UST_CONTROL": mode} if mode else {}
    tag = "[%s, flight recorder] " % (mode or "sigio")
    if not t.ok(start_ustd(w) is not None, tag + "ustd runs"):
        return
    tick, ok = start_ticker(w, w.env(UST_OVERWRITE=1, UST_TRACE=1, **extra))
    if not t.ok(ok, tag + "ticker runs with UST_OVERWRITE=1 UST_TRACE=1",
                tick.stderr.read() if tick.poll() is not None else "no socket"):
        stop(tick)
        return
    pid, uenv = tick.pid, w.env()
    time.sleep(0.5)

    # Relative to ustctl's working directory, not to the program's or ustd's.
    rel = os.path.join(w.root, "snaps", "a")
    res = ustctl("snapshot", "-o", "snaps/./a", str(pid), env=uenv, cwd=w.root)
    m = re.fullmatch(r"pid %d: trace auto: snapshot in (/.+)\n" % pid, res.stdout)
    first = m.group(1) if m else ""
    t.ok(res.returncode == 0 and first.startswith(rel + "/") and os.path.isdir(first),
         tag + "snapshot -o snaps/./a (relative): prints a new directory in %s" % rel,
         res.stdout + res.stderr)
    ok, diag, seqs1 = ticks(first) if first else (False, "no snapshot", [])
    t.ok(ok and seqs1, tag + "babeltrace2 reads the snapshot: %d ust:tick events" % len(seqs1),
         diag)

    time.sleep(0.2)
    absdir = os.path.join(w.root, "abs")
    res, root = mi("snapshot", "-o", absdir, str(pid), env=uenv)
    second = (root.findtext("process[@pid='%d']/snapshot" % pid) or "") if root is not None else ""
    t.ok(res.returncode == 0 and second.startswith(absdir + "/") and os.path.isdir(second),
         tag + "--mi xml snapshot -o ABSOLUTE: <snapshot> names a new directory in it",
         res.stdout + res.stderr)
    ok, diag, seqs2 = ticks(second) if second else (False, "no snapshot", [])
    t.ok(ok and seqs1 and seqs2 and max(seqs2) > max(seqs1),
         tag + "the trace went on recording: the second snapshot has later ticks (%s > %s)"
         % (max(seqs2) if seqs2 else None, max(seqs1) if seqs1 else None), diag)

    # Without -o: ustd's output directory. One unknown PID among them: the
    # other still gets its snapshot.
    res, root = mi("snapshot", str(pid), NO_PID, env=uenv)
    p_ok, p_bad = process_of(root, pid), process_of(root, int(NO_PID))
    third = (p_ok.findtext("snapshot") or "") if p_ok is not None else ""
    t.ok(res.returncode == 1 and third.startswith(w.out + "/") and os.path.isdir(third)
         and p_bad is not None and p_bad.get("success") == "false"
         and NO_PID in (p_bad.findtext("error") or ""),
         tag + "snapshot PID UNKNOWN without -o: exit 1, PID's snapshot in ustd's output "
         "directory, the unknown one named", res.stdout + res.stderr)
    t.ok(third and babeltrace_check(third)[0], tag + "babeltrace2 reads that one too")

    res = ustctl("snapshot", "-t", "other", str(pid), env=uenv)
    t.ok(res.returncode == 1 and ("pid %d:" % pid) in res.stderr
         and "no trace 'other'" in res.stderr,
         tag + "snapshot -t of a trace the process does not have: exit 1, says so", res.stderr)
    res = ustctl("info", str(pid), env=uenv)
    t.ok(re.search(r"state: +started", res.stdout), tag + "the trace is still started",
         res.stdout + res.stderr)
    stop(tick)
    t.eq(tick.returncode, 0, tag + "ticker exits normally after its snapshots")


live(None)
live("thread")
flight(None)
flight("thread")


def sessions():
    """The session commands' --mi xml, success and failure (test_sessions
    checks what they do)."""
    w = Workspace()
    start_ustd(w)
    env = w.env()
    res, root = mi("create-session", "-o", w.out, "mi", env=env)
    s = root.find("ustd-session") if root is not None else None
    t.ok(res.returncode == 0 and s is not None and (s.findtext("directory") or "").startswith(w.out),
         "create-session --mi: the session's directory", res.stdout)
    mi("create-session", "mi", env=env)
    mi("enable-marker", "-s", "mi", "--loglevel", "WARNING", "ust:*", env=env)
    mi("disable-marker", "-s", "mi", "ust:tick", env=env)
    mi("add-context", "-s", "mi", "*", "vtid", env=env)
    res, root = mi("start-session", "mi", env=env)
    t.ok(root is not None and root.findtext("ustd-session/processes") == "0",
         "start-session --mi: the programs tracing for it", res.stdout)
    res, root = mi("list-sessions", env=env)
    s = root.find("ustd-session") if root is not None else None
    t.ok(s is not None and s.get("state") == "active" and s.get("rules") == "2",
         "list-sessions --mi: state and rules", res.stdout)
    # Nothing traced for it yet: a failure, said in the document.
    res, root = mi("rotate-session", "mi", env=env)
    t.ok(res.returncode == 1 and root is not None and root.find("ustd-session/error") is not None,
         "rotate-session --mi of a session with nothing to archive: the error", res.stdout)
    res, root = mi("enable-rotation", "-s", "mi", "--every", "10m", env=env)
    t.ok(root is not None and root.find("ustd-session/rotation") is not None,
         "enable-rotation --mi: the schedule", res.stdout)
    mi("disable-rotation", "-s", "mi", env=env)
    mi("stop-session", "mi", env=env)
    mi("destroy-session", "mi", env=env)
    mi("destroy-session", "mi", env=env)
    w.cleanup()


sessions()
t.eq(sorted(COMMANDS.keys() - mi_seen), [], "--mi xml was validated for every command")

# ------------------------------------------ one exit status convention
# 2: the command line is wrong, nothing changed, the usage follows; 1: the
# operation failed (here: the process does not exist, or refuses), no usage.
# Every command, with an error of each kind where it has one.
wx = Workspace()
xenv = wx.env()
tick, ok = start_ticker(wx, xenv)
XPID = str(tick.pid)
good_session = os.path.join(wx.root, "good.xml")
with open(good_session, "w") as f:
    f.write('<ust-session version="1">\n  <enable pattern="ust:tock"/>\n</ust-session>\n')
long_trace = "t" * 64


def convention(args, want, desc, why=None):
    res = ustctl(*args, env=xenv)
    usage = "usage: ustctl" in res.stderr
    t.ok(res.returncode == want and usage == (want == 2) and "error:" in res.stderr
         and (why is None or why in res.stderr),
         "exit %d %s usage: %s" % (want, "with" if want == 2 else "without", desc),
         "exit %d\n%s" % (res.returncode, res.stderr))
    return res


INPUT = [
    (["list-markers", "x"], "list-markers with a bad PID"),
    (["info", XPID, "extra"], "info with too many arguments"),
    (["enable-marker", XPID, "a b"], "enable-marker of a pattern with a space"),
    (["enable-marker", "--filter", "seq >", XPID, "ust:tick"], "a filter that does not parse"),
    (["enable-marker", "--filter", 'seq == "a"', XPID, "ust:tick"],
     "a filter comparing the matched events' integer field with a string"),
    (["enable-marker", "--filter", "name == 1", XPID, "ust:tick", "other:*"],
     "a filter that fits the first pattern's events (by LTTng's rule: a field they lack) "
     "but not the second's (a type mismatch)"),
    (["disable-marker", XPID, "a,b"], "disable-marker of a pattern with a comma"),
    (["create-trace", "-t", long_trace, XPID], "a trace name of 64 bytes"),
    (["create-trace", "-r", "tcp://x", XPID], "create-trace -r with a malformed URL"),
    (["alloc-trace", "-t", long_trace, XPID], "alloc-trace with a trace name of 64 bytes"),
    (["start-trace", "-t", long_trace, XPID], "start-trace with a trace name of 64 bytes"),
    (["stop-trace", "--bogus", XPID], "stop-trace with an unknown option"),
    (["destroy-trace"], "destroy-trace without a PID"),
    (["force-switch", "-t", long_trace, XPID], "force-switch with a trace name of 64 bytes"),
    (["set-subbuf-size", XPID, "bad-name/64k"], "set-subbuf-size of an invalid channel name"),
    (["set-subbuf-num", XPID, "ust/3"], "set-subbuf-num of 3"),
    (["get-subbuf-size", XPID, "bad-name"], "get-subbuf-size of an invalid channel name"),
    (["get-subbuf-num", XPID, ""], "get-subbuf-num of an empty channel name"),
    (["add-context", XPID, "bad-name", "vtid"], "add-context to an invalid channel name"),
    (["add-context", XPID, "ust", "nosuch"], "add-context of an unknown context"),
    (["set-sock-path", XPID, "/" + "p" * 200], "set-sock-path longer than a socket path"),
    (["get-sock-path", "0"], "get-sock-path of PID 0"),
    (["save-session", XPID, ""], "save-session to an empty file name"),
    (["load-session", XPID, os.path.join(wx.root, "missing.xml")],
     "load-session of a missing file"),
    (["snapshot", "-t", long_trace, XPID], "snapshot with a trace name of 64 bytes"),
    (["list-pids", "1"], "list-pids with an argument"),
    (["enable-marker", XPID] + ["p%d:*" % i for i in range(300)],
     "more patterns than fit in one request"),
]
FAILED = [
    (["list-markers", NO_PID], "list-markers of a process that does not exist"),
    (["info", NO_PID], "info of a process that does not exist"),
    (["enable-marker", "--filter", "seq > 1", NO_PID, "ust:tick"],
     "enable-marker --filter for a process that does not exist"),
    (["disable-marker", NO_PID, "ust:*"], "disable-marker for a process that does not exist"),
    (["create-trace", "-t", "other", XPID, NO_PID], "create-trace, one process unknown"),
    (["alloc-trace", "-t", "other", XPID], "alloc-trace of a trace the process has not"),
    (["set-subbuf-size", NO_PID, "ust/64k"], "set-subbuf-size for an unknown process"),
    (["get-subbuf-num", NO_PID, "ust"], "get-subbuf-num for an unknown process"),
    (["add-context", NO_PID, "ust", "vtid"], "add-context for an unknown process"),
    (["set-sock-path", NO_PID, "/tmp/x"], "set-sock-path for an unknown process"),
    (["get-sock-path", NO_PID], "get-sock-path for an unknown process"),
    (["save-session", XPID, os.path.join(wx.root, "no", "such", "dir.xml")],
     "save-session to a directory that does not exist"),
    (["load-session", NO_PID, good_session], "load-session into an unknown process"),
    (["snapshot", XPID], "snapshot of a process without a trace"),
    (["stop-trace", NO_PID], "stop-trace for an unknown process"),
]
if t.ok(ok, "a ticker runs for the exit status convention"):
    for args, desc in INPUT:
        convention(args, 2, desc)
    for args, desc in FAILED:
        convention(args, 1, desc)
    res = ustctl("list-markers", XPID, env=xenv)
    t.ok(res.returncode == 0 and " enabled " not in res.stdout,
         "after all of them the ticker has nothing enabled: the usage errors sent nothing",
         res.stdout)
stop(tick)
res = ustctl("list-pids", env=dict(xenv, UST_RUNDIR="/proc/1/nonexistent"))
t.ok(res.returncode == 1 and "usage" not in res.stderr,
     "list-pids whose run directory cannot be used: exit 1 without usage", res.stderr)

# ------------------------------------------------------- usttrace --session
ws2 = Workspace()


def usttrace_ticker(w, session, extra=(), channel=None):
    """Runs ticker under usttrace --session for half a second; reads the
    sub-buffer geometry of channel from the running ticker with ustctl."""
    proc = subprocess.Popen([USTTRACE, "-o", w.out, "--session", session] + list(extra)
                            + ["--", app("ticker"), "-i", "2000"], env=w.env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready = proc.stdout.readline().strip() == "ready"
    geometry = None
    if ready:
        time.sleep(0.5)
        pids = ustctl("list-pids", env=w.env()).stdout.split()
        if channel and len(pids) == 1:
            geometry = tuple(ustctl("get-subbuf-" + what, pids[0], channel,
                                    env=w.env()).stdout.strip() for what in ("size", "num"))
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, ready, err, geometry


sess = os.path.join(ws2.root, "tock.xml")
with open(sess, "w") as f:
    f.write('<?xml version="1.0"?>\n<ust-session version="1">\n'
            '  <channel name="ust" subbuf-size="16k" subbuf-num="4"/>\n'
            '  <enable pattern="ust:tock"/>\n</ust-session>\n')
rc, ready, err, geometry = usttrace_ticker(ws2, sess, channel="ust")
t.ok(rc == 0 and ready, "usttrace --session runs ticker to a normal end", err)
dirs = ws2.trace_dirs()
events = read_trace(dirs[0])[0] if dirs else []
names = [e.name for e in events]
t.ok(names.count("ust:tock") > 0 and "ust:tick" not in names and "other:count" not in names,
     "a session enabling only ust:tock: ust:tock events and nothing else",
     "%d events: %r" % (len(names), sorted(set(names))))
t.eq(geometry, ("16384", "4"), "the session's channel settings are in effect in the program")

ws3 = Workspace()
sess = os.path.join(ws3.root, "most.xml")
with open(sess, "w") as f:
    f.write('<ust-session version="1">\n  <enable pattern="ust:*"/>\n'
            '  <disable pattern="ust:tick"/>\n</ust-session>\n')
rc, ready, err, _ = usttrace_ticker(ws3, sess, ["-m", "other:count"])
dirs = ws3.trace_dirs()
names = {e.name for e in read_trace(dirs[0])[0]} if dirs else set()
t.eq(sorted(names), ["other:count", "ust:tock"],
     "session rules in order (enable, then disable), then -m")

bad = os.path.join(ws3.root, "bad.xml")
with open(bad, "w") as f:
    f.write('<ust-session version="1">\n  <enable pattern="a"/>\n  <channel name="ust"/>\n'
            '</ust-session>\n')
res = ws3.usttrace(["--session", bad, app("hello")])
t.ok(res.returncode == 125 and "bad.xml:3" in res.stderr,
     "usttrace --session with a bad file: exit 125 (usttrace's own failure), with its line", res.stderr)
res = ws3.usttrace(["--session", os.path.join(ws3.root, "missing.xml"), app("hello")])
t.ok(res.returncode == 125 and "missing.xml" in res.stderr,
     "usttrace --session with a missing file: exit 125, naming it", res.stderr)
t.done()
