/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * How the kernel leaves a thread's context when a handler interrupts a
 * system call (x86-64, arch/x86/kernel/signal.c): a call that returns
 * EINTR to handlers (poll, select, epoll_wait, nanosleep, pause,
 * sigsuspend, waits with a timeout) has rax = -EINTR and rip just past its
 * `syscall` instruction; a call restarted under SA_RESTART (reads,
 * accept, waitpid, futex waits without a timeout) has rax = its number
 * again and rip on the `syscall` instruction. Only the first kind and the
 * restarted calls listed below count: a futex wait may be the C library
 * waiting for one of its own locks while it holds another, so it does not.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <ucontext.h>

#include "libust/interrupted_wait.h"

#if defined(__x86_64__)

#define PAGE_MASK_LOW	4095u

/* The restarted calls that wait for another process, never for a lock. */
static int restarted_wait(long long nr)
{
	switch (nr) {
	case SYS_read:
	case SYS_readv:
	case SYS_recvfrom:
	case SYS_recvmsg:
	case SYS_accept:
	case SYS_accept4:
	case SYS_wait4:
	case SYS_waitid:
	case SYS_msgrcv:
		return 1;
	default:
		return 0;
	}
}

static int is_syscall_insn(const unsigned char *p)
{
	return p[0] == 0x0f && p[1] == 0x05;
}

int ust_interrupted_wait(const void *ucv)
{
	const ucontext_t *uc = ucv;
	uintptr_t ip;
	long long ax;

	if (!uc)
		return 0;
	ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	ax = uc->uc_mcontext.gregs[REG_RAX];
	/*
	 * The bytes read are on the page of rip, which is mapped: it was
	 * executing. Code on the page before may not be mapped, so a rip in
	 * the first two bytes of a page, or the last one, is not looked at.
	 */
	if (ax == -EINTR && (ip & PAGE_MASK_LOW) >= 2)
		return is_syscall_insn((const unsigned char *)ip - 2);
	if ((ip & PAGE_MASK_LOW) <= PAGE_MASK_LOW - 1 && restarted_wait(ax))
		return is_syscall_insn((const unsigned char *)ip);
	return 0;
}

#else

/* Not known here: the control server keeps answering from the handler. */
int ust_interrupted_wait(const void *uc)
{
	(void)uc;
	return 0;
}

#endif
