/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * usttrace's own signals: Ctrl-C and its kin stop the trace rather than
 * usttrace, and reach the program once.
 */
#include <errno.h>
#include "usttrace/signals.h"

static const int usttrace_signals[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction usttrace_orig_actions[UST_ARRAY_SIZE(usttrace_signals)];
volatile sig_atomic_t usttrace_got_signal;
volatile sig_atomic_t usttrace_program_pid;

static void usttrace_on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;

	usttrace_got_signal = sig;
	/* A signal from the terminal (SI_KERNEL) has reached the program
	 * already: it is in our process group. Forward only what was sent to
	 * usttrace alone, so that the program never gets one signal twice. */
	if (usttrace_program_pid > 0 && si->si_code != SI_KERNEL)
		kill(usttrace_program_pid, sig);
	errno = saved_errno;
}

/* A signal usttrace was started with ignored (nohup, `&` in a script) stays
 * ignored, for usttrace and for the program. */
void usttrace_install_signals(void)
{
	struct sigaction sa = { .sa_sigaction = usttrace_on_signal,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	size_t i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < UST_ARRAY_SIZE(usttrace_signals); i++) {
		sigaction(usttrace_signals[i], NULL, &usttrace_orig_actions[i]);
		if (usttrace_orig_actions[i].sa_handler != SIG_IGN)
			sigaction(usttrace_signals[i], &sa, NULL);
	}
}

/* In a child before exec: a signal must reach the new program, not a copy
 * of our handler. */
void usttrace_restore_signals(void)
{
	size_t i;

	for (i = 0; i < UST_ARRAY_SIZE(usttrace_signals); i++)
		sigaction(usttrace_signals[i], &usttrace_orig_actions[i], NULL);
}

void usttrace_block_signals(sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < UST_ARRAY_SIZE(usttrace_signals); i++)
		sigaddset(&set, usttrace_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}
