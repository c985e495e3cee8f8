# SPDX-License-Identifier: GPL-2.0-only
"""tests/apps/service driven through its standard input, for the trigger
tests: started, sent commands, ended."""

import os
import subprocess

from ustest import app, wait_for


def start_service(ws, exe=None, **env):
    """service with a request every millisecond, once its control socket is
    up; exe: another path to it (a link: another process name)."""
    proc = subprocess.Popen([exe or app("service"), "1000"], env=ws.env(**env),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    ws.daemons.append(proc)
    line = proc.stdout.readline()
    if line.strip() != "ready":
        raise RuntimeError("service did not start: %r %s" % (line, proc.stderr.read()))
    sock = ws.app_socket(proc.pid)
    wait_for(lambda: os.path.exists(sock))
    return proc


def command(proc, text):
    """Sends a command to the service; returns once the event is committed."""
    proc.stdin.write(text + "\n")
    proc.stdin.flush()
    return proc.stdout.readline().strip() == "done"


def quit_service(proc):
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    proc.communicate(timeout=30)
    return proc.returncode
