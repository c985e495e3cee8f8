/* SPDX-License-Identifier: GPL-2.0-only */
/* usttrace: usttrace -p PID (attach.c). */
#ifndef USTTRACE_ATTACH_H
#define USTTRACE_ATTACH_H

#include "usttrace/state.h"

int usttrace_attach(struct usttrace *ut);

#endif
