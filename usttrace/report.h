/* SPDX-License-Identifier: GPL-2.0-only */
/* usttrace: what usttrace says once the program is gone (report.c). */
#ifndef USTTRACE_REPORT_H
#define USTTRACE_REPORT_H

#include "usttrace/state.h"

void usttrace_finish(const struct usttrace *ut, pid_t pid, int status);

#endif
