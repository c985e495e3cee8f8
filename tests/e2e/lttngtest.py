# SPDX-License-Identifier: GPL-2.0-only
"""LTTng-tools for the tests that read traces LTTng wrote: a private
lttng-sessiond (its own LTTNG_HOME, so that nothing touches the user's or
the system's sessiond; run as nobody when the tests run as root, since
root's sessiond would use /var/run/lttng), sessions recorded through it,
and a private lttng-relayd on free ports. Everything started here is
stopped by its PID."""

import os
import pwd
import shutil
import signal
import socket
import subprocess
import time

from ustest import app

LTTNG_APP = app("lttng_foreign")


def missing():
    """Why LTTng traces cannot be recorded here, or None."""
    for prog in ("lttng", "lttng-sessiond", "lttng-relayd"):
        if not shutil.which(prog):
            return "%s is not installed (lttng-tools)" % prog
    if not os.path.exists(LTTNG_APP):
        return "tests/apps/lttng_foreign was not built (configure found no lttng-ust)"
    return None


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


class Lttng:
    """A private lttng-sessiond under ws.root, ready when this returns."""

    def __init__(self, ws):
        self.ws = ws
        self.home = os.path.join(ws.root, "lttng-home")
        os.mkdir(self.home, 0o700)
        self.prefix = []
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            self.uid, self.gid = nobody.pw_uid, nobody.pw_gid
            os.chmod(ws.root, 0o755)
            os.chown(self.home, self.uid, self.gid)
            self.prefix = ["setpriv", "--reuid=%d" % self.uid, "--regid=%d" % self.gid,
                           "--clear-groups", "--"]
        else:
            self.uid, self.gid = os.getuid(), os.getgid()
        self.proc = subprocess.Popen(self.prefix + ["lttng-sessiond", "--no-kernel"],
                                     env=self.env(), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        ws.daemons.append(self.proc)
        for _ in range(200):
            if self.run(["list"], check=False).returncode == 0:
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError("lttng-sessiond did not start: %s" % self.proc.stderr.read())

    def env(self, **extra):
        env = dict(os.environ, LTTNG_HOME=self.home, HOME=self.home)
        for var in ("LTTNG_UST_REGISTER_TIMEOUT", "LD_PRELOAD"):
            env.pop(var, None)
        env.update(extra)
        return env

    def mkdir(self, path):
        """A directory the sessiond's user can write."""
        os.makedirs(path, exist_ok=True)
        os.chown(path, self.uid, self.gid)
        return path

    def run(self, args, check=True, **extra):
        res = subprocess.run(self.prefix + ["lttng"] + list(args), env=self.env(**extra),
                             capture_output=True, text=True, timeout=120)
        if check and res.returncode != 0:
            raise RuntimeError("lttng %s: %s%s" % (" ".join(args), res.stdout, res.stderr))
        return res

    def record(self, name, programs, output=None, url=None, buffers="uid", subbuf=None,
               contexts=("vpid", "vtid", "procname")):
        """One session: a channel in discard mode with the buffering asked,
        the contexts, every foreign:* event; runs each of programs (argv
        lists, started together) to its end, then stops and destroys the
        session, which waits until every event is on disk."""
        self.run(["create", name] + (["--set-url=" + url] if url else ["--output=" + output]))
        chan = ["enable-channel", "-u", "-s", name, "--discard", "--buffers-" + buffers]
        if subbuf:
            chan += ["--subbuf-size", str(subbuf[0]), "--num-subbuf", str(subbuf[1])]
        self.run(chan + ["chan"])
        if contexts:
            self.run(["add-context", "-u", "-s", name, "-c", "chan"] +
                     [a for c in contexts for a in ("-t", c)])
        self.run(["enable-event", "-u", "-s", name, "-c", "chan", "foreign:*"])
        self.run(["start", name])
        procs = [subprocess.Popen(self.prefix + list(argv), env=self.env(),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for argv in programs]
        self.ws.daemons.extend(procs)
        for p, argv in zip(procs, programs):
            out, err = p.communicate(timeout=300)
            if p.returncode != 0:
                raise RuntimeError("%s exited %d: %s" % (argv[0], p.returncode, err))
        self.run(["stop", name])
        self.run(["destroy", name])

    def stop(self):
        if self.proc.poll() is None:
            # setpriv execs sessiond: this PID is sessiond's.
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=60)


class Relayd:
    """A private lttng-relayd on free ports, writing under out."""

    def __init__(self, ws, out):
        ctrl, data, live = free_ports(3)
        self.out = out
        self.url = "net://127.0.0.1:%d:%d" % (ctrl, data)
        home = os.path.join(ws.root, "relayd-home")
        os.mkdir(home, 0o700)
        self.proc = subprocess.Popen(
            ["lttng-relayd", "-C", "tcp://127.0.0.1:%d" % ctrl, "-D", "tcp://127.0.0.1:%d" % data,
             "-L", "tcp://127.0.0.1:%d" % live, "-o", out],
            env=dict(os.environ, LTTNG_HOME=home), stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True)
        ws.daemons.append(self.proc)
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", ctrl), timeout=1).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.05)
        raise RuntimeError("lttng-relayd did not start: %s" % self.proc.stderr.read())

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=60)
