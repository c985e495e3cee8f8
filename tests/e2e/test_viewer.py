# SPDX-License-Identifier: GPL-2.0-only
"""The offline viewer (doc/viewer/ust-timeline.html) in headless Chromium:
it loads what usttrace --perfetto wrote, draws every event, span, counter
and loss, and says so in the page; a missing file is reported, not drawn.
It draws a time axis with units, and the mouse wheel, the +/- buttons and
a drag change the range it shows (a page of the test drives it in a frame
and reads the range the viewer publishes).
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
    return dict(re.findall(r'data-([\w-]+)="([^"]*)"', m.group(1))) if m else {}


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

# The time axis and the range shown: the whole file at first.
timed = [e for e in evs if e["ph"] != "M"]
t0, t1 = min(e["ts"] for e in timed), max(e["ts"] + e.get("dur", 0) for e in timed)
t.ok(abs(float(data.get("view-start", "nan")) - t0) < 0.002 and
     abs(float(data.get("view-end", "nan")) - t1) < 0.002,
     "it shows the whole file at first (%.3f to %.3f us)" % (t0, t1), data)
labels = data.get("axis-labels", "").split("|")
unit = data.get("axis-unit")
t.ok(unit in ("ns", "\u00b5s", "ms", "s") and int(data.get("axis-ticks", 0)) >= 3 and
     len(labels) == int(data.get("axis-ticks", 0)) and all(l.endswith(" " + unit) for l in labels),
     "a time axis is drawn, ticks labelled with their unit", data)
nums = [float(l.split()[0]) for l in labels] if labels[0] else []
t.ok(len(nums) >= 3 and all(b > a for a, b in zip(nums, nums[1:])) and
     len({round(b - a, 9) for a, b in zip(nums, nums[1:])}) == 1,
     "its ticks increase by one step", labels)

# Zoom and pan, driven as a user would: a page of the test holds the viewer
# in a frame, dispatches a wheel event over the canvas, clicks + and -,
# drags, clicks "all", and copies the range after each onto its own <body>.
open(os.path.join(site, "drive.html"), "w").write("""<!DOCTYPE html>
<html><body data-status="loading">
<iframe id="f" src="ust-timeline.html?trace=trace.json" width="1100" height="400"></iframe>
<script>
const f = document.getElementById("f"), out = document.body.dataset;
function range(tag) {
  const b = f.contentDocument.body.dataset;
  out[tag] = b.viewStart + " " + b.viewEnd + " " + b.axisTicks + " " + b.drawn;
}
function poll() {
  const d = f.contentDocument, w = f.contentWindow;
  if (!d || !d.body || d.body.dataset.status !== "ok") return setTimeout(poll, 50);
  const c = d.getElementById("view"), r = c.getBoundingClientRect();
  const at = x => ({ clientX: r.left + x, clientY: r.top + 40, bubbles: true, cancelable: true });
  range("start");
  c.dispatchEvent(new w.WheelEvent("wheel", Object.assign(at(400), { deltaY: -400 })));
  range("wheel");
  d.getElementById("zoom-in").click();
  range("plus");
  d.getElementById("zoom-out").click();
  range("minus");
  c.dispatchEvent(new w.MouseEvent("mousedown", Object.assign(at(600), { button: 0 })));
  w.dispatchEvent(new w.MouseEvent("mousemove", at(300)));
  w.dispatchEvent(new w.MouseEvent("mouseup", at(300)));
  range("drag");
  d.getElementById("zoom-reset").click();
  range("reset");
  out.status = "done";
}
poll();
</script></body></html>
""")
r = chromium(["--dump-dom", "--window-size=1200,500"], base.replace("ust-timeline.html", "drive.html"))
dd = body_data(r.stdout)
t.ok(dd.get("status") == "done", "the test page drives the viewer", r.stderr[-500:])


def rng(tag):
    v = dd.get(tag, "nan nan 0 0").split()
    return float(v[0]), float(v[1]), int(v[2]), int(v[3])


s0, s1, _, drawn0 = rng("start")
w0, w1, wt, wdrawn = rng("wheel")
full = s1 - s0
# 1100 px frame: the canvas is 1100 wide, its plot from x 170 to 1088; x
# 400 is a quarter of the way.
pointer = s0 + (400 - 170) / (1100 - 170 - 12) * full
t.ok(s0 <= w0 < w1 <= s1 and (w1 - w0) < 0.6 * full,
     "the wheel zooms in (%.3f-%.3f of %.3f-%.3f)" % (w0, w1, s0, s1), dd)
t.ok(abs((pointer - w0) / (w1 - w0) - (pointer - s0) / full) < 0.01,
     "about the pointer: the time under it stays under it", (pointer, dd))
t.ok(wt >= 3 and wdrawn < drawn0, "the axis is redrawn for the range, fewer elements drawn (%d of %d)"
     % (wdrawn, drawn0))
p0, p1, _, _ = rng("plus")
t.ok(abs((p1 - p0) / (w1 - w0) - 0.5) < 0.01 and abs((p0 + p1) - (w0 + w1)) < 0.01,
     "+ halves the range about its centre", dd)
m0, m1, _, _ = rng("minus")
t.ok(abs(m0 - w0) < 0.01 and abs(m1 - w1) < 0.01, "- undoes it", dd)
d0, d1, _, _ = rng("drag")
t.ok(d0 > m0 and abs((d1 - d0) - (m1 - m0)) < 0.01 and
     abs((d0 - m0) / (m1 - m0) - 300 / (1100 - 170 - 12)) < 0.01,
     "a drag to the left pans later by as much, the span unchanged", dd)
r0, r1, _, rdrawn = rng("reset")
t.ok(abs(r0 - s0) < 0.002 and abs(r1 - s1) < 0.002 and rdrawn == drawn0, "all shows the whole file again", dd)

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
