/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * What libust-func offers the audit library of library calls (libust-plt/
 * plt_audit.c): the library calls it sees, as the function events of
 * func_calls.h and the events of plt_tp.h. The audit library lives in a
 * link namespace of its own and cannot link libust-func: it finds the one
 * symbol below in the program's namespace with dlmopen(LM_ID_BASE, ...,
 * RTLD_NOLOAD) and dlsym(), and checks its version.
 *
 * Each function returns at once when called from inside another on the
 * same thread: a library call made while recording (by a library libust
 * uses) is not recorded. Async-signal-safe, as the hooks of func.c.
 */
#ifndef UST_PLT_RECORD_H
#define UST_PLT_RECORD_H

#include <stdint.h>

#define UST_PLT_RECORD_SYMBOL	"ust_plt_record_ops"
#define UST_PLT_RECORD_VERSION	1
/* The integer and pointer registers of the x86-64 calling convention. */
#define UST_PLT_ARGS_MAX	6

struct ust_plt_record_ops {
	uint32_t version;	/* UST_PLT_RECORD_VERSION */
	/* The program bound name to func (once per calling object). */
	void (*bind)(void *func, const char *name);
	/* A call of func begins, with the stack pointer sp at its PLT entry;
	 * nr_args of args were asked for (0: none). */
	void (*enter)(void *func, uintptr_t sp, const uint64_t *args, uint32_t nr_args);
	/* The call of func entered with sp returns ret (recorded if has_ret). */
	void (*exit)(void *func, uintptr_t sp, int has_ret, uint64_t ret);
};

extern const struct ust_plt_record_ops ust_plt_record_ops
	__attribute__((visibility("default")));

#endif
