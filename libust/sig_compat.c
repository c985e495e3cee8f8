/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * sigaction() and signal() of LIBUST_1.2, for programs linked against
 * libust 2.0, which bound their calls to them: libust once stood in
 * front of glibc's to see which threads ran signal handlers. It no longer
 * does (the write path counts open events instead, ring_buffer.h), and a
 * library in the program must not change what the program's own calls
 * do, so these are compatibility versions only: nothing links to them any
 * more, and they hand every call to glibc unchanged.
 */
#include <signal.h>

__attribute__((visibility("default")))
int ust_compat_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	return sigaction(sig, act, old);
}

__attribute__((visibility("default")))
void (*ust_compat_signal(int sig, void (*handler)(int)))(int)
{
	return signal(sig, handler);
}

__asm__(".symver ust_compat_sigaction, sigaction@LIBUST_1.2");
__asm__(".symver ust_compat_signal, signal@LIBUST_1.2");
