#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""libust harmless in a program nobody here wrote: Debian's nginx, with
libust preloaded, a master that daemonizes, forks two workers (which
switch to user nobody), reloads on SIGHUP and uses signals of its own.
Under a stream of requests: 20 ustctl list-pids, ustd started and stopped
twice, ustctl info on the master and each worker, a reload. Every request
answered 200, no process of nginx killed by a signal (its error log), the
master and workers answer ustctl, and a listener thread serves each one
that was asked twice."""

import atexit
import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.request

from ustest import TOP_BUILD, Tap, Workspace, wait_for

t = Tap()
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
if not os.path.exists(NGINX):
    print("1..0 # SKIP nginx is not installed (quickstart.sh installs nginx-light)")
    raise SystemExit(0)
LIBUST = os.path.join(TOP_BUILD, ".libs", "libust.so.1")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


ws = Workspace()
prefix = os.path.join(ws.root, "nginx")
os.makedirs(os.path.join(prefix, "logs"))
os.makedirs(os.path.join(prefix, "html"))
with open(os.path.join(prefix, "html", "index.html"), "w") as f:
    f.write("hello\n")
# Run as root, nginx's workers serve as user nobody: the page must reach them.
os.chmod(ws.root, 0o711)
os.chmod(prefix, 0o711)
os.chmod(os.path.join(prefix, "html"), 0o755)
os.chmod(os.path.join(prefix, "html", "index.html"), 0o644)
port = free_port()
conf = os.path.join(prefix, "nginx.conf")
with open(conf, "w") as f:
    f.write("""worker_processes 2;
pid %(p)s/nginx.pid;
error_log %(p)s/logs/error.log info;
events { worker_connections 64; }
http {
  access_log off;
  server { listen 127.0.0.1:%(port)d; root %(p)s/html; }
}
""" % {"p": prefix, "port": port})
pidfile = os.path.join(prefix, "nginx.pid")
env = ws.env(LD_PRELOAD=LIBUST)
res = subprocess.run([NGINX, "-p", prefix, "-c", conf], env=env,
                                   capture_output=True, text=True, timeout=30)
t.ok(res.returncode == 0 and wait_for(lambda: os.path.exists(pidfile), 10),
     "nginx starts, daemonized, with libust preloaded", res.stderr)
master = int(open(pidfile).read()) if os.path.exists(pidfile) else 0


def stop_nginx():
    """nginx is not our child (it daemonizes): stopped by its pid file's
    number, its workers with it, if the test ends early."""
    if master and os.path.exists(pidfile):
        try:
            os.kill(master, signal.SIGTERM)
        except ProcessLookupError:
            pass


atexit.register(stop_nginx)


def workers():
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open("/proc/%s/status" % pid) as f:
                    st = f.read()
                with open("/proc/%s/cmdline" % pid) as f:
                    cmd = f.read()
            except OSError:
                continue
            if re.search(r"^PPid:\s+%d$" % master, st, re.M) and "worker process" in cmd:
                found.append(int(pid))
    return sorted(found)


t.ok(master and wait_for(lambda: len(workers()) == 2, 10), "a master and two workers",
     workers())
codes, stop = [], threading.Event()


def load():
    while not stop.is_set():
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/" % port, timeout=10) as r:
                codes.append(r.status)
        except Exception as e:  # every failure counts against the test
            codes.append(repr(e))


loader = threading.Thread(target=load)
loader.start()
listed = 0
for _ in range(20):
    out = ws.ustctl_fast(["list-pids"]).stdout.split()
    listed += str(master) in out and all(str(w) in out for w in workers())
t.eq(listed, 20, "list-pids lists nginx's master and workers, 20 times")
for _ in range(2):
    ustd = ws.start_ustd()
    time.sleep(0.3)
    ustd.send_signal(signal.SIGTERM)
    ustd.wait(timeout=30)
# A request served while the process computes leaves it in signal mode;
# the first that finds it waiting hands over. Ten are plenty for processes
# that mostly wait in epoll_wait().
answers, asked = {}, 0
for pid in [master] + workers():
    for _ in range(10):
        answers[pid] = ws.ustctl_fast(["info", pid])
        asked += 1
        if "control:  listener thread" in answers[pid].stdout:
            break
t.ok(all(r.returncode == 0 and "procname: nginx" in r.stdout for r in answers.values()),
     "ustctl info answers for the master and each worker",
     "\n".join(r.stdout + r.stderr for r in answers.values()))
t.ok(all("control:  listener thread" in r.stdout for r in answers.values()),
     "a listener thread serves each of the three after %d requests in all" % asked,
     "\n".join(r.stdout for r in answers.values()))
old = workers()
os.kill(master, signal.SIGHUP)
t.ok(wait_for(lambda: workers() and not set(workers()) & set(old), 15),
     "a reload (SIGHUP) replaces both workers", (old, workers()))
time.sleep(0.5)
stop.set()
loader.join()
bad = [c for c in codes if c != 200]
t.ok(len(codes) > 50 and not bad, "%d requests, every one answered 200" % len(codes), bad[:5])
os.kill(master, signal.SIGQUIT)
t.ok(wait_for(lambda: not os.path.exists(pidfile), 15), "nginx quits on SIGQUIT")
with open(os.path.join(prefix, "logs", "error.log")) as f:
    log = f.read()
killed = re.findall(r".*exited on signal.*", log)
t.eq(killed, [], "no process of nginx was killed by a signal (error.log)")
t.done()
