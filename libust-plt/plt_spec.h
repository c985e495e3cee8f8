/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Which library calls libust-plt records more of, and which it leaves
 * alone. The more: read once, when the audit library is loaded, from
 * UST_PLT_RECORD, one setting a line: "A NAME N" (the first N integer or
 * pointer arguments of NAME, 1 to 6) and "R NAME" (its return value), as
 * usttrace -A and -R write them. The left alone: the functions that return
 * twice or never return normally (setjmp, vfork, longjmp, exit, throwing
 * an exception...), which a call timed from the dynamic linker's frame
 * would break or leave open, and the calls of the sanitizers'
 * instrumentation to their runtime (__asan_*...).
 */
#ifndef UST_PLT_SPEC_H
#define UST_PLT_SPEC_H

#include <stdint.h>

#define UST_PLT_HIDDEN	__attribute__((visibility("hidden")))

struct ust_plt_spec {
	uint32_t nr_args;	/* 0: none asked */
	int ret;		/* nonzero: the return value asked */
};

/* Reads UST_PLT_RECORD; 0, or -EINVAL after saying on stderr what it
 * could not read (the rest is then ignored). */
int ust_plt_spec_init(void) UST_PLT_HIDDEN;
/* What is asked for the function of that name, or NULL: nothing more. */
const struct ust_plt_spec *ust_plt_spec_find(const char *name) UST_PLT_HIDDEN;
/* Whether calls of the function of that name must not be timed. */
int ust_plt_spec_never(const char *name) UST_PLT_HIDDEN;

#endif
