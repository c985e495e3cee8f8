# SPDX-License-Identifier: GPL-2.0-only
"""The offline viewer (doc/viewer/ust-timeline.html) in headless Chromium:
it loads what usttrace --perfetto wrote, draws every event, span, counter
and loss, and says so in the page; a missing file is reported, not drawn.
The screenshot it takes is the README's picture (doc/timeline.png)."""

import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading

from ustest import TOP_BUILD, TOP_SRC, Tap, Workspace, app, bt2_sink, flood_trace

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--virtual-time-budget=15000"]

t = Tap()
ws = Workspace()
site = os.path.join(ws.root, "site")
os.mkdir(site)
shutil.copy(os.path.join(TOP_SRC, "doc", "viewer", "ust-timeline.html"), site)

os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
res = ws.usttrace(["--perfetto", os.path.join(site, "trace.json"), app("timeline"), "12"])
t.ok(res.returncode == 0, "usttrace --perfetto writes the timeline", res.stderr)
# Small buffers flooded while ustd is stopped, so that they overflow
# however fast ustd drains.
flood_trace(t, ws, "losses", 1, 20000, True, UST_SUBBUF_SIZE=4096, UST_SUBBUF_NUM=2)
lossy = [d for d, _, files in os.walk(os.path.join(ws.root, "losses")) if "metadata" in files]
r = bt2_sink(lossy, "sink.ust.perfetto", 'path="%s"' % os.path.join(site, "loss.json"))
t.ok(r.returncode == 0, "and one with losses", r.stderr)
doc = json.load(open(os.path.join(site, "trace.json")))
evs = doc["traceEvents"]

handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=site)
handler.log_message = lambda *a: None
httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
threading.Thread(target=httpd.serve_forever, daemon=True).start()
base = "http://127.0.0.1:%d/ust-timeline.html" % httpd.server_address[1]


def chromium(args, url):
    profile = tempfile.mkdtemp(dir=ws.root)
    return subprocess.run([CHROMIUM] + FLAGS + ["--user-data-dir=" + profile] + args + [url],
                          capture_output=True, text=True, timeout=120)


def body_data(dom):
    m = re.search(r"<body([^>]*)>", dom)
    return dict(re.findall(r'data-(\w+)="([^"]*)"', m.group(1))) if m else {}


if not t.ok(os.access(CHROMIUM, os.X_OK), "chromium is installed (quickstart.sh installs it)"):
    t.done()

r = chromium(["--dump-dom"], base + "?trace=trace.json")
data = body_data(r.stdout)
t.ok(data.get("status") == "ok", "the viewer loads and draws the timeline", r.stderr[-500:])
shown = [e for e in evs if e["ph"] in ("i", "B", "E")]
t.eq(int(data.get("events", -1)), len(shown), "it counts every event of the file")
t.eq(int(data.get("spans", -1)), sum(1 for e in evs if e["ph"] == "E"), "every span")
t.eq(int(data.get("counters", -1)), sum(1 for e in evs if e["ph"] == "C"), "every counter sample")
t.eq(data.get("unclosed"), "0", "no span left open")

r = chromium(["--dump-dom"], base + "?trace=loss.json")
data = body_data(r.stdout)
t.ok(data.get("status") == "ok" and int(data.get("discarded", 0)) > 0,
     "discarded ranges are drawn", data)

r = chromium(["--dump-dom"], base + "?trace=missing.json")
t.eq(body_data(r.stdout).get("status"), "error", "a missing file is reported as an error")

shot = os.path.join(TOP_BUILD, "tests", "e2e", "timeline.png")
if os.path.exists(shot):
    os.unlink(shot)
r = chromium(["--screenshot=" + shot, "--window-size=1100,420"], base + "?trace=trace.json")
png = open(shot, "rb").read() if os.path.exists(shot) else b""
t.ok(png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000, "a screenshot is taken (%s)" % shot,
     r.stderr[-500:])
httpd.shutdown()
t.done()
