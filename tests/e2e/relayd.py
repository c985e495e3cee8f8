# SPDX-License-Identifier: GPL-2.0-only
"""A real, unmodified lttng-relayd for the tests: private ports on
127.0.0.1 and a private output directory under the workspace, stopped by
its PID with the workspace's other daemons."""

import os
import shutil
import signal
import socket
import subprocess

from ustest import wait_for

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
