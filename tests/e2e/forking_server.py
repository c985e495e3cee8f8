# SPDX-License-Identifier: GPL-2.0-only
"""tests/apps/forking_server N WORKERS driven through its standard input,
for the session tests: started (its N svc:start events and its workers'
done when it says ready), told to go (N more svc:tick events each time,
counted in gone), ended."""

import select
import subprocess

from ustest import app


class Service:
    def __init__(self, ws, n, workers=0):
        self.proc = subprocess.Popen([app("forking_server"), str(n), str(workers)], env=ws.env(),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        ws.daemons.append(self.proc)
        self.pid = self.proc.pid
        self.gone = 0
        self.expect("ready")

    def expect(self, word, timeout=30):
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if ready else "(nothing in %ds)" % timeout
        if line.strip() != word:
            raise RuntimeError("forking_server %d: %r instead of %r: %s" %
                               (self.pid, line, word, self.proc.stderr.read()))

    def go(self):
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        self.expect("done")
        self.gone += 1

    def end(self):
        self.proc.stdin.close()
        return self.proc.wait(timeout=30)
