# SPDX-License-Identifier: GPL-2.0-only
"""The files around the programs: bash completion (loaded in bash, as
bash-completion does) and ustd's systemd user unit."""

import os
import shutil
import re
import subprocess

from ustest import TOP_BUILD, TOP_SRC, USTCTL, Tap, Workspace

COMPLETION = os.path.join(TOP_SRC, "doc", "bash-completion", "ustctl")
t = Tap()
ws = Workspace()
# ustctl of the build tree first in PATH, for the pids.
bindir = os.path.join(ws.root, "bin")
os.mkdir(bindir)
os.symlink(USTCTL, os.path.join(bindir, "ustctl"))
env = ws.env(PATH=bindir + os.pathsep + os.environ.get("PATH", ""))


def complete(fn, *words):
    """COMPREPLY of fn for the command line words, the last being completed."""
    script = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); '
              '%s; printf "%%s\\n" "${COMPREPLY[@]}"' % fn)
    res = subprocess.run(["bash", "-c", script, "bash", COMPLETION] + list(words),
                         capture_output=True, text=True, env=env, timeout=30)
    if res.returncode or res.stderr:
        t.diag(res.stderr)
    return [w for w in res.stdout.splitlines() if w]


got = complete("_ustctl_completion_fn", "ustctl", "sta")
t.eq(sorted(got), ["start-session", "start-trace"], "ustctl sta<TAB>: its commands")
got = complete("_ustctl_completion_fn", "ustctl", "")
t.ok(len(got) >= 37 and "list-pids" in got and "remove-trigger" in got,
     "ustctl <TAB>: every command", got)
got = complete("_ustctl_completion_fn", "ustctl", "--")
t.ok("--timeout=" in got and "--mi=" in got and "--version" in got, "ustctl's global options", got)
got = complete("_ustctl_completion_fn", "ustctl", "--timeout", "100", "dest")
t.eq(got, ["destroy-trace", "destroy-session"], "a global option's value is no command")
got = complete("_ustctl_completion_fn", "ustctl", "--mi", "")
t.eq(got, ["xml"], "--mi takes xml")

prog = ws.start_app("ticker")
got = complete("_ustctl_completion_fn", "ustctl", "start-trace", "")
t.eq(got, [str(prog.pid)], "start-trace <TAB>: the pids of ustctl list-pids")
got = complete("_ustctl_completion_fn", "ustctl", "enable-marker", "-t", "x", "")
t.eq(got, [str(prog.pid)], "after a command option and its value too")
got = complete("_ustctl_completion_fn", "ustctl", "enable-marker", str(prog.pid), "")
t.eq(got, [], "no pid for the pattern argument")
got = complete("_ustctl_completion_fn", "ustctl", "create-session", "--buf")
t.eq(got, ["--buffers-pid", "--buffers-uid"], "create-session --buf<TAB>: the buffer types")
got = complete("_ustctl_completion_fn", "ustctl", "stop-session", "")
t.eq(got, [], "no pid for a session command")
ws.stop_app(prog)

ws.start_ustd()
subprocess.run([os.path.join(TOP_BUILD, "ustctl", "ustctl"), "create-session", "web"],
               capture_output=True, env=ws.env(), timeout=60)
got = complete("_ustctl_completion_fn", "ustctl", "clear-session", "")
t.eq(got, ["web"], "clear-session <TAB>: ustd's sessions")
got = complete("_ustctl_completion_fn", "ustctl", "track", "-s", "")
t.eq(got, ["web"], "track -s <TAB>: ustd's sessions")
got = complete("_ustctl_completion_fn", "ustctl", "track", "-s", "web", "--p")
t.eq(sorted(got), ["--pid", "--procname"], "track -s web --p<TAB>: the tracker kinds")

got = complete("_usttrace_completion_fn", "usttrace", "--sub")
t.eq(sorted(got), ["--subbuf-num", "--subbuf-size"], "usttrace's options")
got = complete("_usttrace_completion_fn", "usttrace", "-")
t.ok("-p" in got and "--pid" in got and "--perfetto" in got, "usttrace -p among them", got)
got = complete("_usttrace_completion_fn", "usttrace", "--loglevel", "DEBUG_L")
t.eq(got, ["DEBUG_LINE"], "usttrace --loglevel: the levels")
got = complete("_ustd_completion_fn", "ustd", "--re")
t.eq(sorted(got), ["--ready-fd", "--realtime", "--relay", "--relay-backlog"], "ustd's options")
got = complete("_ust_summary_completion_fn", "ust-summary", "--mi", "")
t.eq(got, ["xml"], "ust-summary --mi")

# The completion names the options the programs' --help names.
for prog_name, fn in (("usttrace", "_usttrace_completion_fn"), ("ustd", "_ustd_completion_fn")):
    helptext = subprocess.run([os.path.join(TOP_BUILD, prog_name, prog_name), "--help"],
                              capture_output=True, text=True, env=ws.env()).stdout
    opts = sorted(set(re.findall(r"^\s+(?:-\S, )?(--[a-z][a-z-]*)", helptext, re.M)))
    got = complete(fn, prog_name, "--")
    t.eq([o for o in opts if o not in got], [], "%s: every long option of --help completes" % prog_name)

unit = os.path.join(TOP_BUILD, "doc", "systemd", "ustd.service")
t.ok(os.path.exists(unit), "doc/systemd/ustd.service is built")
analyze = shutil.which("systemd-analyze")
if not analyze:
    print("ok %d - # SKIP systemd-analyze not installed" % (t.n + 1))
    t.n += 1
else:
    # The unit as installed: ExecStart names the ustd of the build tree,
    # which verify checks is executable.
    text = open(unit).read()
    ustd = os.path.join(TOP_BUILD, "ustd", "ustd")
    text = re.sub(r"^ExecStart=\S+", "ExecStart=" + ustd, text, flags=re.M)
    copy = os.path.join(ws.root, "ustd.service")
    open(copy, "w").write(text)
    res = subprocess.run([analyze, "--user", "verify", "--man=no", copy], capture_output=True, text=True,
                         timeout=60, env=ws.env())
    # Without a user manager (containers, CI) --user cannot run at all:
    # then as the system's, and skip if no manager can be set up.
    if res.returncode and "Failed to initialize manager" in res.stderr:
        res = subprocess.run([analyze, "verify", "--man=no", copy], capture_output=True, text=True,
                             timeout=60, env=ws.env())
    if res.returncode and "Failed to initialize manager" in res.stderr:
        t.n += 1
        print("ok %d - # SKIP systemd-analyze verify cannot set up a manager here: %s"
              % (t.n, res.stderr.strip().splitlines()[-1]))
    else:
        problems = [l for l in res.stderr.splitlines() if "ustd.service" in l]
        t.ok(res.returncode == 0 and not problems, "systemd-analyze verify accepts ustd.service",
             res.stdout + res.stderr)
t.done()
