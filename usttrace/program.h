/* SPDX-License-Identifier: GPL-2.0-only */
/* usttrace: the traced program: run, waited for, its status told (program.c). */
#ifndef USTTRACE_PROGRAM_H
#define USTTRACE_PROGRAM_H

#include "usttrace/state.h"

int usttrace_exit_code(int status);
void usttrace_describe_status(char *buf, size_t len, int status);
pid_t usttrace_wait(pid_t pid, int *status);
int usttrace_only_ustd_left(const struct usttrace *ut);
int usttrace_run_program(struct usttrace *ut, pid_t *pid, int *status);

#endif
