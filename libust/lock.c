/* SPDX-License-Identifier: LGPL-2.1-only */
/* ust_lock(): the one lock of libust's slow paths (lock.h). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>

#include "libust/lock.h"

static pthread_mutex_t ust_mutex = PTHREAD_MUTEX_INITIALIZER;
static int lock_signal;
/* The holder's signal mask from before ust_lock(); protected by ust_mutex. */
static sigset_t lock_saved_mask;

void ust_lock_set_signal(int sig)
{
	lock_signal = sig;
}

/*
 * The holder blocks the control signal, so the control server, which takes
 * this lock from the signal handler, never interrupts the thread holding
 * it: when the handler waits here, it waits for another thread, which
 * finishes. Blocked before the mutex is taken, restored after it is given
 * back. pthread_sigmask() is async-signal-safe.
 */
void ust_lock(void)
{
	sigset_t set, old;
	int saved_errno = errno;

	sigemptyset(&set);
	if (lock_signal)
		sigaddset(&set, lock_signal);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	pthread_mutex_lock(&ust_mutex);
	lock_saved_mask = old;
	errno = saved_errno;
}

void ust_unlock(void)
{
	sigset_t old = lock_saved_mask;
	int saved_errno = errno;

	pthread_mutex_unlock(&ust_mutex);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved_errno;
}
