/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The arguments and return values of library calls (usttrace --plt -A and
 * -R: ust_plt:args {tid, addr, args[]} and ust_plt:ret {tid, addr, ret}),
 * per function: each distinct argument list and each distinct return
 * value, counted. The text lists the most frequent of each function;
 * small integers in decimal, others (pointers) in hexadecimal.
 */
#ifndef UST_BT2_PLT_VALUES_H
#define UST_BT2_PLT_VALUES_H

#include <stdbool.h>
#include <stdio.h>
#include <babeltrace2/babeltrace.h>

struct ust_plt_values {
	struct pv_func *funcs;
	size_t nr, cap;
};

/* The address of the function of an args or ret event's payload. */
uint64_t ust_plt_values_addr(const bt_field *payload);
/* The payload of an args (ret false) or ret (ret true) event of the
 * function named func; 0 or -ENOMEM. */
int ust_plt_values_event(struct ust_plt_values *pv, const char *func, bool ret,
			 const bt_field *payload);
/* The two tables, as text; nothing when no such event came. */
void ust_plt_values_print(const struct ust_plt_values *pv, FILE *f);
void ust_plt_values_fini(struct ust_plt_values *pv);

#endif
