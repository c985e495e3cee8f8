# SPDX-License-Identifier: GPL-2.0-only
"""ustctl load-session of files written by LTTng's own "lttng save"
(manual 4.4, "Session files of LTTng").

A real lttng-sessiond (lttng-tools 2.13; user space only, --no-kernel,
run as nobody with a private LTTNG_HOME so that it shares nothing with
another on the machine) makes the sessions with lttng's commands and
saves them. UST loads what it honours (name, output, sub-buffers,
tracefile limits, rotation, events with filters and exclusions, contexts
UST has, snapshot mode, PER_UID buffers as per-user buffers), names
each thing it does not in one warning (a context UST lacks, the JUL
domain, a kernel domain, PER_UID buffers in a snapshot session, which
keeps per-process ones), and the session traces a real program, read
back with babeltrace2. A session saved with --buffers-pid channels loads
with per-process buffers, nothing said. A
vpid tracker (lttng track -u --vpid) becomes a pid tracker: of two
programs running, the loaded session traces the tracked one only; a vgid
tracker is named as not honoured. A file with nothing for user space is
refused (exit 2). This lttng-sessiond
cannot make kernel events (no kernel modules here): the kernel domain is
added by the test to a copy of a saved file, in the same format."""

import os
import re
import shutil
import signal
import subprocess
import time

import forking_server
import ustest
from service_app import command, quit_service, start_service
from ustest import Tap, Workspace, babeltrace_check, read_trace

t = Tap()
N = 100
LTTNG = shutil.which("lttng")
SESSIOND = shutil.which("lttng-sessiond")

if not LTTNG or not SESSIOND:
    t.ok(False, "lttng and lttng-sessiond are installed (quickstart.sh installs lttng-tools)")
    t.done()

ws = Workspace()
home = os.path.join(ws.root, "lttng-home")
saved = os.path.join(home, "saved")
os.makedirs(saved)
os.chmod(ws.root, 0o755)
shutil.chown(home, "nobody")
shutil.chown(saved, "nobody")
AS_NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
             "env", "HOME=" + home, "LTTNG_HOME=" + home]
sessiond = subprocess.Popen(AS_NOBODY + [SESSIOND, "--no-kernel"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
ws.daemons.append(sessiond)


def lttng(*args):
    res = subprocess.run(AS_NOBODY + [LTTNG] + list(args), capture_output=True, text=True,
                         timeout=60)
    t.ok(res.returncode == 0, "lttng " + " ".join(args), res.stdout + res.stderr)
    return res


for _ in range(200):
    if subprocess.run(AS_NOBODY + [LTTNG, "list"], capture_output=True).returncode == 0:
        break
    time.sleep(0.1)
lttng_out = os.path.join(ws.root, "lttng-out")
lttng("create", "shop", "-o", lttng_out)
lttng("enable-channel", "-u", "--subbuf-size", "64k", "--num-subbuf", "8",
      "--tracefile-size", "1M", "--tracefile-count", "4", "chan1")
lttng("enable-event", "-u", "-c", "chan1", "svc:*", "-x", "svc:work", "--filter", "seq >= 10")
lttng("add-context", "-u", "-c", "chan1", "-t", "vtid", "-t", "procname", "-t", "cgroup_ns")
lttng("enable-event", "-j", "org.shop.*")
lttng("enable-rotation", "--timer", "10m")
lttng("save", "shop", "--output-path", saved)
lttng("create", "java", "-o", lttng_out)
lttng("enable-event", "-j", "org.shop.*")
lttng("save", "java", "--output-path", saved)
lttng("create", "recorder", "--snapshot", "-o", lttng_out)
lttng("enable-event", "-u", "svc:*")
lttng("save", "recorder", "--output-path", saved)
# Two programs of ours, running: LTTng's tracker names one by its pid.
picked, other = start_service(ws), start_service(ws)
lttng("create", "bypid", "-o", lttng_out)
lttng("enable-channel", "-u", "--buffers-pid", "chan")
lttng("enable-event", "-u", "-c", "chan", "app:*")
lttng("save", "bypid", "--output-path", saved)
lttng("create", "picky", "-o", lttng_out)
lttng("enable-event", "-u", "app:*")
lttng("track", "-u", "--vpid", str(picked.pid))
lttng("save", "picky", "--output-path", saved)
lttng("create", "groups", "-o", lttng_out)
lttng("enable-event", "-u", "app:*")
lttng("track", "-u", "--vgid", "0")
lttng("save", "groups", "--output-path", saved)
sessiond.send_signal(signal.SIGTERM)
sessiond.wait(timeout=60)
ws.daemons.remove(sessiond)

ws.start_ustd()
shop = os.path.join(saved, "shop.lttng")
res = ws.ustctl(["load-session", shop])
t.ok(res.returncode == 0, "load-session of lttng save's shop.lttng", res.stdout + res.stderr)
t.ok(re.search(r"^session shop created from %s" % re.escape(shop), res.stdout, re.M),
     "it says the session it created", res.stdout)
for what in (r"context CGROUP_NS", r"the JUL domain's 1 event"):
    found = re.findall(r"^ustctl: warning: %s:\d+: not honoured: %s" % (re.escape(shop), what),
                       res.stderr, re.M)
    t.eq(len(found), 1, "one warning names what is not honoured: " + what)
t.ok(len(res.stderr.splitlines()) == 2, "and nothing else is said on stderr (PER_UID is honoured)",
     res.stderr)
with open(shop) as f:
    t.ok("<buffer_type>PER_UID</buffer_type>" in f.read(), "lttng save wrote PER_UID buffers")
res = ws.ustctl(["list-sessions", "shop"])
t.ok("\n  buffers: per-uid\n" in res.stdout, "the loaded shop has per-user buffers", res.stdout)

ours = os.path.join(ws.root, "shop.xml")
res = ws.ustctl(["save-session", "-s", "shop", ours])
t.ok(res.returncode == 0, "save-session -s shop", res.stdout + res.stderr)
with open(ours) as f:
    text = f.read()
t.ok(re.search(r'<channel name="\*" subbuf-size="64k" subbuf-num="8" tracefile-size="1M" '
               r'tracefile-count="4">\s*<context name="vtid"/>\s*<context name="procname"/>\s*'
               r'</channel>', text),
     "sub-buffers, tracefile limits and contexts honoured", text)
t.ok(re.search(r'<enable pattern="svc:\*" filter="seq &gt;= 10"/>\s*'
               r'<disable pattern="svc:work"/>', text),
     "the event with its filter, its exclusion a disable rule after it", text)
t.ok('<rotation every="10m"/>' in text and "<output>%s</output>" % lttng_out in text,
     "the rotation schedule and the output path honoured", text)

ok = ws.ustctl(["start-session", "shop"])
t.ok(ok.returncode == 0, "start-session shop", ok.stderr)
svc = forking_server.Service(ws, N, 2)
svc.go()
t.eq(svc.end(), 0, "a forking server traced by the loaded session ends well")
ok = ws.ustctl(["destroy-session", "shop"])
t.ok(ok.returncode == 0, "destroy-session shop", ok.stderr)
sdir = ustest.session_dir(lttng_out, "shop")
good, msg = babeltrace_check(sdir or "/nonexistent")
t.ok(good, "babeltrace2 reads the session's directory under the file's output", msg)
events, _ = read_trace(sdir) if good else ([], 0)
t.eq(sorted(e.fields["seq"] for e in events if e.name == "svc:start"), list(range(10, N)),
     "svc:start events as the filter selects them")
t.eq(sorted(e.fields["seq"] for e in events if e.name == "svc:tick"), list(range(10, N)),
     "svc:tick events as the filter selects them")
t.eq([e for e in events if e.name == "svc:work"], [], "no svc:work: excluded")
t.ok(events and all("vtid" in e.context and "procname" in e.context for e in events),
     "every event carries vtid and procname", events[:1] and events[0].context)

recorder = os.path.join(saved, "recorder.lttng")
res = ws.ustctl(["load-session", recorder])
t.ok(res.returncode == 0, "load-session of a snapshot session's file", res.stdout + res.stderr)
res = ws.ustctl(["list-sessions"])
t.ok(re.search(r"^recorder\tcreated\t.*\(flight recorder\)\n\tbuffers: per-uid$", res.stdout,
               re.M), "a snapshot session is a flight recorder, with per-user buffers (PER_UID)",
     res.stdout)
res = ws.ustctl(["load-session", "-s", "recorder2", recorder])
t.ok(res.returncode == 0 and "PER_UID" not in res.stderr,
     "its PER_UID buffers are honoured, nothing said", res.stderr)
bypid = os.path.join(saved, "bypid.lttng")
with open(bypid) as f:
    t.ok("<buffer_type>PER_PID</buffer_type>" in f.read(), "lttng save wrote PER_PID buffers")
res = ws.ustctl(["load-session", bypid])
t.ok(res.returncode == 0 and not res.stderr, "load-session of a PER_PID file: nothing said",
     res.stdout + res.stderr)
res = ws.ustctl(["list-sessions", "bypid"])
t.ok("\n  buffers: per-pid\n" in res.stdout, "its buffers are per process", res.stdout)

picky = os.path.join(saved, "picky.lttng")
with open(picky) as f:
    text = f.read()
t.ok(re.search(r"<vpid_process_attr_tracker>\s*<process_attr_values>\s*<vpid>\s*<id>%d</id>"
               % picked.pid, text), "lttng save wrote the vpid tracker", text)
res = ws.ustctl(["load-session", picky])
t.ok(res.returncode == 0 and not res.stderr,
     "load-session of a file with a vpid tracker: loaded, nothing left out",
     res.stdout + res.stderr)
res = ws.ustctl(["list-sessions", "picky"])
t.ok("  tracking: pid %d; every procname; every uid\n" % picked.pid in res.stdout,
     "the vpid tracker is a pid tracker", res.stdout)
res = ws.ustctl(["start-session", "picky"])
t.ok(res.returncode == 0 and "(1 running program trace it now)" in res.stdout,
     "start-session picky: of the 2 programs running, the tracked one only",
     res.stdout + res.stderr)
for seq, p in enumerate((picked, other)):
    command(p, "warn %d" % seq)
for p in (picked, other):
    t.eq(quit_service(p), 0, "service %d ends normally" % p.pid)
ws.ustctl(["destroy-session", "picky"])
pdir = ustest.session_dir(lttng_out, "picky") or "/nonexistent"
# LTTng's default, PER_UID: one trace for the processes of the uid.
d = os.path.join(pdir, "uid-%d" % os.getuid())
t.eq(sorted(os.listdir(pdir)) if os.path.isdir(pdir) else [], ["uid-%d" % os.getuid()],
     "picky's buffers are per user: one trace, uid-UID")
warns = sorted(e.fields["seq"] for e in (read_trace(d)[0] if os.path.isdir(d) else [])
               if e.name == "app:warn")
t.eq(warns, [0], "babeltrace2: the tracked program's event only (seq 0, not the other's 1)")
groups = os.path.join(saved, "groups.lttng")
res = ws.ustctl(["load-session", groups])
t.ok(res.returncode == 0 and
     re.search(r"^ustctl: warning: %s:\d+: not honoured: the vgid tracker \(1 value\(s\)\): "
               r"UST tracks processes by pid, procname and uid; the session takes processes "
               r"of every group$" % re.escape(groups), res.stderr, re.M),
     "a vgid tracker: the session loads, the tracker is named as not honoured",
     res.stdout + res.stderr)
res = ws.ustctl(["list-sessions", "groups"])
t.ok("  tracking: every pid; every procname; every uid\n" in res.stdout,
     "and the session tracks every process", res.stdout)

java = os.path.join(saved, "java.lttng")
res = ws.ustctl(["load-session", java])
t.eq(res.returncode, 2, "a file with nothing for user space is refused, exit 2")
t.ok(re.search(r"%s:\d+: LTTng session java enables no event in the user-space \(UST\) domain"
               % re.escape(java), res.stderr), "and says why", res.stderr)
t.ok("java" not in ws.ustctl(["list-sessions"]).stdout, "no session java was made")

# The kernel domain, in lttng save's format (this sessiond cannot make one).
with open(shop) as f:
    doc = f.read()
kernel = ("<domain><type>KERNEL</type><buffer_type>GLOBAL</buffer_type><channels><channel>"
          "<name>k</name><enabled>true</enabled><overwrite_mode>DISCARD</overwrite_mode>"
          "<subbuffer_size>262144</subbuffer_size><subbuffer_count>4</subbuffer_count>"
          "<events><event><name>sched_switch</name><enabled>true</enabled>"
          "<type>TRACEPOINT</type><loglevel_type>ALL</loglevel_type></event></events>"
          "</channel></channels></domain>")
with_kernel = os.path.join(ws.root, "kernel.lttng")
with open(with_kernel, "w") as f:
    f.write(doc.replace("<domains>", "<domains>" + kernel, 1).replace("<name>shop</name>",
                                                                      "<name>both</name>", 1))
res = ws.ustctl(["load-session", with_kernel])
t.ok(res.returncode == 0 and
     re.search(r"not honoured: the KERNEL domain's 1 event\(s\)", res.stderr),
     "a kernel domain is named and the user-space part loaded", res.stdout + res.stderr)
t.done()
