/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Names of traced functions (ust_func:entry/exit, and LTTng-UST's
 * lttng_ust_cyg_profile events): each process's loaded objects come from
 * its statedump events (ust_statedump:bin_info, lttng_ust_statedump:
 * bin_info and build_id); an address is named by the symbol tables of the
 * object's file (elf_symbols.h), read at first use and only when its
 * build-id matches the traced one, and demangled (demangle.h); a library
 * function traced through the PLT (ust_plt:bind) by the name the program
 * bound, which the first bind of an address sets before its calls. An address
 * no symbol holds is named "OBJECT+0xOFFSET", one in no object "0xADDR".
 */
#ifndef UST_BT2_FUNC_NAMES_H
#define UST_BT2_FUNC_NAMES_H

#include <stdint.h>
#include <babeltrace2/babeltrace.h>
#include "bt2plugin/ptrmap.h"

enum ust_func_kind {
	UST_FUNC_NONE,
	UST_FUNC_ENTRY,
	UST_FUNC_EXIT,
	UST_FUNC_BIN_INFO,
	UST_FUNC_BUILD_ID,	/* LTTng-UST's, separate from its bin_info */
	UST_FUNC_PLT_BIND,	/* ust_plt:bind: a library function's name */
	UST_FUNC_PLT_ARGS,	/* ust_plt:args and ret (plt_values.h) */
	UST_FUNC_PLT_RET,
};

struct ust_func_names {
	struct ust_ptrmap procs;	/* pid key -> struct ust_fn_proc */
};

/* What an event class is to function naming, from its name. */
enum ust_func_kind ust_func_kind_of(const bt_event_class *ec);
/* Takes a statedump or ust_plt:bind event of process pid; 0 or -ENOMEM. */
int ust_func_names_add(struct ust_func_names *fn, int64_t pid, enum ust_func_kind kind,
		       const bt_field *payload);
/* The name of addr in process pid, valid until fini; NULL without memory. */
const char *ust_func_names_get(struct ust_func_names *fn, int64_t pid, uint64_t addr);
void ust_func_names_fini(struct ust_func_names *fn);

#endif
