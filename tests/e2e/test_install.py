# SPDX-License-Identifier: GPL-2.0-only
"""What a user gets from `make install`: headers, libust with its soname,
ust.pc, the programs and man pages; a program written from the README and
built with pkg-config is traced by the installed usttrace, which finds the
installed ustd beside itself."""

import os
import re
import subprocess
import tempfile

from functrace import func_calls
from ustest import TOP_BUILD, Tap, Workspace, read_trace

PROGRAM = r'''
#include <pthread.h>
#include <string.h>
#include <ust/ust.h>

DECLARE_TRACE(hello_tptest, TP_PROTO(int anint), TP_ARGS(anint));
DEFINE_TRACE(hello_tptest);

#define UST_CREATE_PROBES
TRACE_EVENT(myprovider, request_done,
	TP_ARGS(int, status, const char *, path, size_t, len),
	TP_FIELDS(
		ctf_integer(int, status, status)
		ctf_integer_hex(size_t, len, len)
		ctf_string(path, path)))

static void probe(void *data, int anint)
{
	(void)data;
	trace_mark(ust, tp_probe, "anint %d", anint);
}

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 100; i++) {
		trace_mark(ust, search_event, "dn %s count %d", "cn=x", i);
		trace_hello_tptest(i);
		trace_myprovider_request_done(200, "/index", strlen("/index"));
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	int i;

	register_trace_hello_tptest(probe, NULL);
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	unregister_trace_hello_tptest(probe, NULL);
	return 0;
}
'''

t = Tap()
ws = Workspace()
dest = os.path.join(ws.root, "dest")
res = subprocess.run(["make", "-s", "-C", TOP_BUILD, "install", "DESTDIR=" + dest],
                     capture_output=True, text=True, timeout=300)
t.eq(res.returncode, 0, "make install succeeds")
prefix = None
for dirpath, dirs, files in os.walk(dest):
    if "ust.pc" in files:
        prefix = os.path.dirname(os.path.dirname(dirpath))
t.ok(prefix is not None, "ust.pc installed", res.stderr)
prefix = prefix or dest
lib = os.path.join(prefix, "lib")
want = ["bin/ustd", "bin/usttrace", "include/ust/ust.h", "include/ust/marker.h",
        "include/ust/tracepoint.h", "include/ust/tracepoint_event.h", "include/ust/version.h",
        "lib/libust.so.1", "share/man/man3/ust.3", "share/man/man1/usttrace.1",
        "share/man/man1/ustd.1", "include/ust/span.h", "bin/ust-summary",
        "lib/babeltrace2/plugins/babeltrace-plugin-ust.so", "share/ust/xml/ust-summary.xsd",
        "share/ust/viewer/ust-timeline.html", "share/man/man1/ust-summary.1",
        "share/doc/ust/manual.md", "share/bash-completion/completions/ustctl",
        "share/bash-completion/completions/usttrace", "share/bash-completion/completions/ustd",
        "share/bash-completion/completions/ust-summary", "lib/systemd/user/ustd.service"]
t.eq([w for w in want if not os.path.exists(os.path.join(prefix, w))], [],
     "headers, versioned library, programs, man pages, manual, bash completion and systemd unit installed")
soname = subprocess.run(["readelf", "-d", os.path.join(lib, "libust.so")],
                        capture_output=True, text=True).stdout
t.ok("[libust.so.1]" in soname, "libust has a versioned soname", soname)

env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(lib, "pkgconfig"),
           PKG_CONFIG_SYSROOT_DIR=dest)
flags = subprocess.run(["pkg-config", "--define-prefix", "--cflags", "--libs", "ust"],
                       capture_output=True, text=True, env=dict(env, PKG_CONFIG_SYSROOT_DIR=""))
t.ok(flags.returncode == 0 and "-lust" in flags.stdout, "pkg-config knows ust", flags.stderr)
src = os.path.join(ws.root, "readme.c")
exe = os.path.join(ws.root, "readme")
open(src, "w").write(PROGRAM)
# In a sanitizer build libust needs the sanitizer runtimes linked in first.
cc = os.environ.get("CC", "cc").split() + os.environ.get("SANITIZE_CFLAGS", "").split()
build = subprocess.run(cc + ["-Wall", "-Wextra", "-Werror", src, "-o", exe, "-pthread",
                             "-Wl,-rpath-link," + lib] + flags.stdout.split(),
                       capture_output=True, text=True)
t.eq(build.returncode, 0, "a program written from the README builds with pkg-config" + 
     ("" if not build.stderr else ": " + build.stderr[:300]))

run_env = ws.env(LD_LIBRARY_PATH=lib)
del run_env["UST_USTD"]
# Installed under DESTDIR, the plugin is not where usttrace was told it
# would be: point it there, so that the installed .so is the one loaded.
run_env["UST_BT2_PLUGIN_PATH"] = os.path.join(lib, "babeltrace2", "plugins")
res = subprocess.run([os.path.join(prefix, "bin", "usttrace"), "--summary", "-o", ws.out, exe],
                     env=run_env, capture_output=True, text=True, timeout=120)
t.eq(res.returncode, 0, "the installed usttrace finds the installed ustd and traces it" + (": " + res.stderr[-300:] if res.returncode else ""))
dirs = ws.trace_dirs()
events, discarded = read_trace(dirs[0]) if dirs else ([], 0)
counts = {}
for e in events:
    counts[e.name] = counts.get(e.name, 0) + 1
t.eq(counts, {"ust:search_event": 300, "ust:tp_probe": 300, "myprovider:request_done": 300},
     "every event of every thread recorded")
t.eq(discarded, 0, "nothing discarded")
t.ok(re.search(r"^ust:search_event\s+300\s", res.stderr, re.M),
     "the installed babeltrace2 plugin works under the installed usttrace --summary", res.stderr[-500:])

# usttrace --plt finds the installed audit library and libust-func beside
# itself (lib/ next to bin/), where configure builds them.
if os.path.exists(os.path.join(TOP_BUILD, ".libs", "libust-plt.so")):
    out = os.path.join(ws.root, "plt")
    res = subprocess.run([os.path.join(prefix, "bin", "usttrace"), "--plt", "-o", out, exe],
                         env=run_env, capture_output=True, text=True, timeout=120)
    dirs = [d for d, _, f in os.walk(out) if "metadata" in f]
    events = read_trace(dirs[0])[0] if len(dirs) == 1 else []
    binds = {e.fields["addr"]: e.fields["name"] for e in events if e.name == "ust_plt:bind"}
    called = {}
    for ev in func_calls(events):
        if ev.kind == "entry":
            called[binds.get(ev.addr)] = called.get(binds.get(ev.addr), 0) + 1
    t.ok(res.returncode == 0 and called.get("pthread_create") == 3 and
         called.get("pthread_join") == 3,
         "the installed usttrace --plt traces the program's library calls", (called, res.stderr[-300:]))
t.done()
