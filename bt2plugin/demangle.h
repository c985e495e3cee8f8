/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * C++ names demangled by the C++ runtime's __cxa_demangle, looked up in
 * libstdc++ at first use rather than linked: the plugin stays a C library
 * that babeltrace2 loads without a C++ runtime, and without libstdc++ a
 * name stays mangled instead of the plugin failing to load.
 */
#ifndef UST_BT2_DEMANGLE_H
#define UST_BT2_DEMANGLE_H

/* The demangled name (malloc'd), or NULL when name is not a C++ name or
 * no demangler is available. */
char *ust_demangle(const char *name);

#endif
