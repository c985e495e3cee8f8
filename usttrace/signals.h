/* SPDX-License-Identifier: GPL-2.0-only */
/* usttrace: usttrace's own signals (SIGINT, SIGTERM, SIGHUP): noted, forwarded once to the program (signals.c). */
#ifndef USTTRACE_SIGNALS_H
#define USTTRACE_SIGNALS_H

#include <signal.h>
#include "usttrace/state.h"

extern volatile sig_atomic_t usttrace_got_signal;
extern volatile sig_atomic_t usttrace_program_pid;
void usttrace_install_signals(void);
void usttrace_restore_signals(void);
void usttrace_block_signals(sigset_t *old);

#endif
