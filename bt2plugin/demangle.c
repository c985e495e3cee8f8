/* SPDX-License-Identifier: LGPL-2.1-only */
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#include "bt2plugin/demangle.h"

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

static cxa_demangle_fn demangler(void)
{
	static int looked;
	static cxa_demangle_fn fn;
	void *lib;

	if (looked)
		return fn;
	looked = 1;
	/* Already there when babeltrace2 loaded a C++ plugin. */
	fn = (cxa_demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (fn)
		return fn;
	lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (lib)
		fn = (cxa_demangle_fn)dlsym(lib, "__cxa_demangle");
	return fn;
}

char *ust_demangle(const char *name)
{
	cxa_demangle_fn fn;
	int status = 0;
	char *out;

	/* The Itanium C++ ABI's prefix: anything else is a C name. */
	if (strncmp(name, "_Z", 2))
		return NULL;
	fn = demangler();
	if (!fn)
		return NULL;
	out = fn(name, NULL, NULL, &status);
	return status == 0 ? out : NULL;
}
