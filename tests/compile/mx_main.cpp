// SPDX-License-Identifier: GPL-2.0-only
/*
 * The compile matrix's program, in C++: what mx_main.h does, and sites in
 * a template instantiated for two types, a lambda, a member function, a
 * namespace, a std::string passed with c_str(), and a C++ library loaded
 * with dlopen and unloaded with dlclose (argv[1]).
 * tests/compile/test_matrix.py lists the events it must record.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string>
#include <ust/ust.h>
#include "mx_main.h"

template <typename T>
static void mx_sized(T v)
{
	trace_mark(mx, tmpl, "size %zu value %d", sizeof(T), static_cast<int>(v));
}

namespace mxapp {

class Server {
public:
	explicit Server(std::string name) : name_(name) {}
	void handle(int id)
	{
		trace_mark(mx, member, "id %d name %s", id, name_.c_str());
		ust_event(mx, request, id, name_.c_str(), 2.0);
	}

private:
	std::string name_;
};

void in_namespace(int n)
{
	trace_mark(mx, ns, "n %d", n);
}

} // namespace mxapp

int main(int argc, char **argv)
{
	mx_main_common();

	mx_sized<int>(4);
	mx_sized<double>(8.0);
	auto twice = [](int x) { trace_mark(mx, lambda, "x %d", x); };
	twice(1);
	twice(2);
	mxapp::Server("srv").handle(42);
	mxapp::in_namespace(3);

	if (argc > 1) {
		mx_everywhere(1);
		void *lib = dlopen(argv[1], RTLD_NOW);
		if (!lib) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		void (*run)(int) = reinterpret_cast<void (*)(int)>(dlsym(lib, "mx_lib_run"));
		if (!run) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		run(2);
		dlclose(lib);
		trace_mark(mx, after_dlclose, "ok %d", 1);
		mx_everywhere(3);
	}
	puts("done");
	return 0;
}
