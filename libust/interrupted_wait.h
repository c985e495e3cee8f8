/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Whether a signal handler interrupted its thread in a wait for the
 * outside world (poll, epoll_wait, sleeps, reads from a socket or a pipe,
 * accept, waitpid...) rather than in the middle of the program's own work.
 *
 * Why the control server asks (control.c): a thread blocked in such a
 * call holds none of the locks of the C library's allocator or thread
 * list, which are only held around short computations and the memory
 * system calls (mmap, munmap, brk, madvise), never around a wait for
 * another process. So a handler that landed there may create a thread,
 * which it may not do anywhere else (pthread_create() calls calloc() and
 * takes the thread list's lock).
 */
#ifndef UST_INTERRUPTED_WAIT_H
#define UST_INTERRUPTED_WAIT_H

/* uc: the handler's third argument. 1 when the interrupted instruction is
 * a system call of that kind that returned EINTR or is about to be
 * restarted, 0 otherwise or when the architecture is not known here.
 * Async-signal-safe: reads the context and two bytes of code. */
int ust_interrupted_wait(const void *uc);

#endif
