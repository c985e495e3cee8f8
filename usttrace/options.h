/* SPDX-License-Identifier: GPL-2.0-only */
/* usttrace: usttrace's command line, parsed and checked (options.c). */
#ifndef USTTRACE_OPTIONS_H
#define USTTRACE_OPTIONS_H

#include "usttrace/state.h"

uint32_t usttrace_u32(const char *text);
int usttrace_check_context(const char *what, const char *ctx);
int usttrace_parse(struct usttrace *ut, poptContext *pcp, int argc, const char **argv);

#endif
