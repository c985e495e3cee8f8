# SPDX-License-Identifier: GPL-2.0-only
"""The conventions every program keeps (--version, -h, --help, a bad option
exiting with the usage status) and the agreement of each --help with its man
page: every long option --help lists is documented in the page, every option
the page documents is in --help, and ustctl's commands likewise; so that the
two cannot drift apart again (issue 33)."""

import os
import re
import subprocess

from ustest import (BABELTRACE2, BT2_PLUGIN_PATH, TOP_SRC, UST_SUMMARY, USTCTL, USTD, USTTRACE,
                    Tap)

MAN = os.path.join(TOP_SRC, "doc", "man")

# name -> (path in the build tree, exit status of a bad option). usttrace's
# own failures exit 125 so as not to be taken for the traced program's 2.
PROGRAMS = {
    "usttrace": (USTTRACE, 125),
    "ustd": (USTD, 2),
    "ustctl": (USTCTL, 2),
    "ust-summary": (UST_SUMMARY, 2),
}

t = Tap()


def run(args):
    return subprocess.run(args, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def help_options(text):
    """The long options of a --help: those that start an option line (popt's
    '  -o, --output=DIR' and the shell script's '  --mi xml'), not the ones
    the descriptions mention."""
    found = {}
    for line in text.splitlines():
        m = re.match(r"^\s+(?:-(\S)(?:, |\s+))?--([a-z][a-z0-9-]*)", line)
        if m:
            found[m.group(2)] = m.group(1)
    return found


def man_read(name):
    with open(os.path.join(MAN, name + ".1")) as f:
        return f.read()


def man_tags(page):
    """(section, tag line) of every .TP entry of a man page."""
    section, tags, lines = "", [], page.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(".SH "):
            section = line[4:].strip().strip('"')
        if line.startswith(".TP") and i + 1 < len(lines):
            tags.append((section, lines[i + 1]))
    return tags


def man_options(page):
    """The long options the entries of a man page document (\\-\\-name in a
    .TP tag), and every one it mentions anywhere."""
    documented = set()
    for _, tag in man_tags(page):
        documented |= set(re.findall(r"\\-\\-([a-z][a-z0-9]*(?:\\-[a-z0-9]+)*)", tag))
    mentioned = set(re.findall(r"\\-\\-([a-z][a-z0-9]*(?:\\-[a-z0-9]+)*)", page))
    unescape = lambda names: {n.replace("\\-", "-") for n in names}
    return unescape(documented), unescape(mentioned)


# --- (a) --version, -h, --help, a bad option.
for name, (path, bad_status) in PROGRAMS.items():
    for opt in ("--version", "-V", "-h", "--help"):
        res = run([path, opt])
        t.ok(res.returncode == 0 and name in res.stdout and not res.stderr,
             "%s %s: exit 0 on stdout, naming the program" % (name, opt),
             "exit %d\nstdout: %s\nstderr: %s" % (res.returncode, res.stdout[:400], res.stderr))
    res = run([path, "--no-such-option"])
    t.ok(res.returncode == bad_status and "no-such-option" in res.stderr,
         "%s --no-such-option: exit %d, naming it" % (name, bad_status),
         "exit %d\nstderr: %s" % (res.returncode, res.stderr))

res = run([USTCTL, "help"])
t.ok(res.returncode == 0 and "Commands" in res.stdout and "start-trace" in res.stdout,
     "ustctl help: the global help with the commands", res.stdout + res.stderr)
res = run([USTCTL, "help", "start-trace"])
t.ok(res.returncode == 0 and "ustctl start-trace" in res.stdout,
     "ustctl help start-trace: the command's help", res.stdout + res.stderr)
res = run([USTCTL, "help", "no-such-command"])
t.ok(res.returncode == 2 and "no-such-command" in res.stderr,
     "ustctl help no-such-command: usage error naming it", res.stderr)

# --- (b) --help against the man page.
helps = {name: run([path, "--help"]).stdout for name, (path, _) in PROGRAMS.items()}

# ustctl: the commands of --help, and the options of each command's --help.
ustctl_help = helps["ustctl"]
commands = set()
in_commands = False
for line in ustctl_help.splitlines():
    if line.startswith("Commands"):
        in_commands = True
    elif in_commands and not line.strip():
        break
    elif in_commands:
        commands.add(line.split()[0])
t.ok(len(commands) > 20, "ustctl --help lists the commands (%d)" % len(commands), ustctl_help)
command_options = {}
for command in sorted(commands - {"help"}):
    res = run([USTCTL, command, "--help"])
    if not t.ok(res.returncode == 0, "ustctl %s --help: exit 0" % command, res.stderr):
        continue
    command_options.update(help_options(res.stdout))

for name in PROGRAMS:
    page = man_read(name)
    documented, mentioned = man_options(page)
    listed = help_options(helps[name])
    if name == "ustctl":
        listed.update(command_options)
    t.ok(listed, "%s --help lists options" % name, helps[name])
    missing = sorted(set(listed) - mentioned)
    t.ok(not missing, "%s: every option of --help is in %s.1" % (name, name),
         "not in the man page: " + ", ".join("--" + o for o in missing))
    extra = sorted(documented - set(listed))
    t.ok(not extra, "%s: every option %s.1 documents is in --help" % (name, name),
         "not in --help: " + ", ".join("--" + o for o in extra))
    synopsis = page.split(".SH SYNOPSIS", 1)[1].split(".SH ", 1)[0]
    if name != "ustctl":
        # ustctl's command options are in its COMMANDS, not its synopsis.
        # An option is there by its long name or by its short one.
        absent = sorted(o for o, short in listed.items()
                        if "\\-\\-" + o.replace("-", "\\-") not in synopsis and
                        not (short and re.search(r"\\-%s\b" % re.escape(short), synopsis)))
        t.ok(not absent, "%s: the SYNOPSIS of %s.1 names every option" % (name, name),
             "not in the SYNOPSIS: " + ", ".join("--" + o for o in absent))

# ustctl's commands: --help against the entries of ustctl.1.
page = man_read("ustctl")
man_commands = set()
for section, tag in man_tags(page):
    if section in ("COMMANDS", "SESSIONS", "TRIGGERS"):
        m = re.match(r'^\.B[IR]?\s+"?([a-z][a-z\\-]*)', tag)
        if m:
            man_commands.add(m.group(1).replace("\\-", "-"))
t.eq(sorted(commands - man_commands), [], "every command of ustctl --help has an entry in ustctl.1")
t.eq(sorted(man_commands - commands), [], "every command ustctl.1 describes is in ustctl --help")

# --- (c) Pages that render as written, and cite what exists.
pages = sorted(os.listdir(MAN))
for f in pages:
    with open(os.path.join(MAN, f)) as fp:
        text = fp.read()
    # A request glued to the end of a sentence ("why..TP") is printed, and
    # the entry it began is lost.
    glued = [l for l in text.splitlines()
             if not l.startswith(".") and re.search(r"\S\.(TP|PP|SH|SS|IP|RS|RE)\s*$", l)]
    t.eq(glued, [], "%s: no request glued to the text before it" % f)
    th = [l for l in text.splitlines() if l.startswith(".TH ")]
    t.ok(len(th) == 1 and re.match(r'^\.TH \S+ [13] \d{4}-\d\d-\d\d "ust [0-9.]+" "UST user-space tracer"$', th[0]),
         "%s: .TH as the other pages (NAME SECTION YYYY-MM-DD \"ust VERSION\" \"UST user-space tracer\")" % f,
         th)

for name, text in helps.items():
    for ref, section in re.findall(r"\b(ust[a-z-]*)\((\d)\)", text):
        t.ok("%s.%s" % (ref, section) in pages, "%s --help cites %s(%s), a page that exists" % (name, ref, section))
t.eq([f for f in pages if "/.ust\\-traces" in open(os.path.join(MAN, f)).read()], [],
     "no page shows ~/.ust-traces (the default is ~/ust-traces)")

# babeltrace2 help sink.ust.NAME describes every parameter the sink takes
# (its allowed[] list in the source).
for sink in ("perfetto", "summary"):
    with open(os.path.join(TOP_SRC, "bt2plugin", "%s_sink.c" % sink)) as f:
        m = re.search(r"allowed\[\] = \{([^}]*)\}", f.read())
    params = re.findall(r'"([^"]+)"', m.group(1)) if m else []
    res = subprocess.run([BABELTRACE2, "--plugin-path=" + BT2_PLUGIN_PATH, "help",
                          "sink.ust." + sink], capture_output=True, text=True)
    missing = [p for p in params if not re.search(r"^\s+%s \(" % re.escape(p), res.stdout, re.M)]
    t.ok(res.returncode == 0 and params and not missing,
         "babeltrace2 help sink.ust.%s describes its parameters %s" % (sink, params),
         "missing %s\n%s" % (missing, res.stdout + res.stderr))
t.done()
