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
/*
 * Whether this thread holds the lock: a signal handler of the program
 * that traces may interrupt the holder (only the control signal is
 * blocked), and must then not wait for itself. fork() copies the forking
 * thread's value into the child, whose atfork handler unlocks.
 */
static __thread int held_here __attribute__((tls_model("initial-exec")));

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
	held_here = 1;
	errno = saved_errno;
}

int ust_lock_unless_held(void)
{
	if (held_here)
		return -EDEADLK;
	ust_lock();
	return 0;
}

void ust_unlock(void)
{
	sigset_t old = lock_saved_mask;
	int saved_errno = errno;

	held_here = 0;
	pthread_mutex_unlock(&ust_mutex);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved_errno;
}
