/* SPDX-License-Identifier: GPL-2.0-only */
/* usttrace: the private ustd and its run directory (private_ustd.c). */
#ifndef USTTRACE_PRIVATE_USTD_H
#define USTTRACE_PRIVATE_USTD_H

#include "usttrace/state.h"

void usttrace_stop_ustd(struct usttrace *ut);
void usttrace_remove_rundir(struct usttrace *ut);
int usttrace_prepare(struct usttrace *ut);

#endif
