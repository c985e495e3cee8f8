# SPDX-License-Identifier: GPL-2.0-only
"""A real, unmodified lttng-relayd for the tests: private ports on
127.0.0.1 and a private output directory under the workspace, stopped by
its PID with the workspace's other daemons."""

import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import threading
import time

from ustest import BABELTRACE2, wait_for

HOST = socket.gethostname()
RELAYD = shutil.which("lttng-relayd")


def free_ports(n):
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


class Relayd:
    """A real lttng-relayd with its own ports and output directory."""

    def __init__(self, ws, name):
        self.ctrl, self.data, self.live = free_ports(3)
        self.out = os.path.join(ws.root, name)
        home = os.path.join(ws.root, name + "-home")
        os.makedirs(home)
        self.proc = subprocess.Popen(
            [RELAYD, "-C", "tcp://127.0.0.1:%d" % self.ctrl,
             "-D", "tcp://127.0.0.1:%d" % self.data,
             "-L", "tcp://127.0.0.1:%d" % self.live, "-o", self.out],
            env=dict(os.environ, LTTNG_HOME=home), stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True)
        ws.daemons.append(self.proc)
        self.url = "net://127.0.0.1:%d:%d" % (self.ctrl, self.data)
        wait_for(self._listening, 10)

    def _listening(self):
        try:
            socket.create_connection(("127.0.0.1", self.live), timeout=1).close()
            return True
        except OSError:
            return False

    def traces(self, prefix):
        base = os.path.join(self.out, HOST)
        if not os.path.isdir(base):
            return []
        return sorted(os.path.join(base, d) for d in os.listdir(base) if d.startswith(prefix))

    def signal(self, sig):
        self.proc.send_signal(sig)

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()


class LiveViewer:
    """babeltrace2 --input-format=lttng-live on url, its output read line by
    line as it comes; stopped by its PID with the workspace's daemons."""

    def __init__(self, ws, url):
        self.proc = subprocess.Popen(["stdbuf", "-oL", BABELTRACE2, "--input-format=lttng-live",
                                      url], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=dict(os.environ, TZ="UTC"))
        ws.daemons.append(self.proc)
        self.lines = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(l) for l in self.proc.stdout],
                         daemon=True).start()

    def matches(self, pattern, seconds, enough=None):
        """The matches of pattern in the lines that come within seconds, or
        as soon as there are enough of them."""
        rx = re.compile(pattern)
        found = []
        end = time.time() + seconds
        while time.time() < end and (enough is None or len(found) < enough):
            try:
                line = self.lines.get(timeout=min(0.5, max(0.01, end - time.time())))
            except queue.Empty:
                continue
            m = rx.search(line)
            if m:
                found.append(m)
        return found

    def stop(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
