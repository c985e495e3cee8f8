/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A marker that also exists in a library loaded later with dlopen(): one
 * event description, both sites fire; the library's own marker appears in
 * the trace although it registered after the trace started.
 * dlopen_main PATH_TO_LIBDUPMARK
 */
#include <dlfcn.h>
#include <stdio.h>
#include <ust/marker.h>

int main(int argc, char **argv)
{
	void (*fire)(void);
	void *lib;

	if (argc < 2) {
		fprintf(stderr, "usage: dlopen_main LIBRARY\n");
		return 2;
	}
	trace_mark(ust, dup, "from %s", "main");
	lib = dlopen(argv[1], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	*(void **)&fire = dlsym(lib, "dupmark_fire");
	if (!fire) {
		fprintf(stderr, "dlsym: %s\n", dlerror());
		return 1;
	}
	fire();
	dlclose(lib);
	trace_mark(ust, dup, "from %s", "main-again");
	return 0;
}
