// SPDX-License-Identifier: GPL-2.0-only
/* A C++ library with its own provider, loaded and unloaded by mx_main.cpp. */
#include <string>
#include <ust/marker.h>
#include "mx_shared.h"
#define UST_CREATE_PROBES
#include <ust/tracepoint_event.h>

TRACE_EVENT(mxlib, call, TP_ARGS(int, i, const char *, what),
	TP_FIELDS(ctf_integer(int, i, i) ctf_string(what, what)))

namespace {

template <typename T>
struct Worker {
	void work(int i, const T &what) { ust_event(mxlib, call, i, std::string(what).c_str()); }
};

} // namespace

/* Built with -fvisibility=hidden, as libraries should be: this is its API. */
extern "C" __attribute__((visibility("default"))) void mx_lib_run(int n);

extern "C" void mx_lib_run(int n)
{
	Worker<std::string> w;

	for (int i = 0; i < n; i++) {
		trace_mark(mxlib, loop, "i %d", i);
		w.work(i, "lib");
	}
	mx_everywhere(2);
	if (n < 0)
		mx_everywhere(-1);
}
