/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * sigaction() and signal() for the program: the handler asked for is kept
 * here and the kernel is given a trampoline that marks the thread as being
 * in a handler while it runs (sig_context.h).
 *
 * The mark is the trampoline's frame address, saved and restored around
 * the handler, so nesting unwinds, and a handler left by siglongjmp() is
 * not taken for one still running: code runs inside a handler exactly when
 * its frame is below the trampoline's (stacks grow down on every
 * architecture Linux runs this on). A handler that runs on the alternate
 * stack (SA_ONSTACK) is on another stack altogether; there the kernel
 * answers, through sigaltstack(). After a siglongjmp() out of a handler,
 * code that goes deeper than the abandoned frame is taken for a handler:
 * it discards instead of waiting, the safe side.
 *
 * Async-signal-safe, like the functions it replaces: atomic loads and
 * stores of the table, thread-local stores, and __sigaction().
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>

#include "libust/sig_context.h"

/* glibc's own sigaction(), which ours stands in front of. */
extern int __sigaction(int sig, const struct sigaction *act, struct sigaction *old);

struct sig_user {
	/* At most one is set; neither: the signal's handler is not ours. */
	void (*info)(int, siginfo_t *, void *);	/* SA_SIGINFO */
	void (*plain)(int);
	int flags;				/* the program's sa_flags */
};

static struct sig_user users[_NSIG];

/*
 * sigaction() here stands in front of every caller's, the sanitizers'
 * runtimes included, which install their handlers before they are ready
 * to see instrumented code (ThreadSanitizer crashed in __tsan_func_entry
 * from here during its own start): nothing in this file is instrumented.
 */
#define SIG_CONTEXT_UNINSTRUMENTED __attribute__((no_sanitize("thread", "address", "undefined")))

static __thread uintptr_t frame __attribute__((tls_model("initial-exec")));
static __thread int onstack __attribute__((tls_model("initial-exec")));

SIG_CONTEXT_UNINSTRUMENTED
static void trampoline(int sig, siginfo_t *si, void *uc)
{
	void (*info)(int, siginfo_t *, void *) =
		__atomic_load_n(&users[sig].info, __ATOMIC_ACQUIRE);
	void (*plain)(int) = __atomic_load_n(&users[sig].plain, __ATOMIC_ACQUIRE);
	uintptr_t saved_frame = frame;
	int saved_onstack = onstack;

	if (!info && !plain)
		return;
	frame = (uintptr_t)__builtin_frame_address(0);
	onstack = __atomic_load_n(&users[sig].flags, __ATOMIC_RELAXED) & SA_ONSTACK;
	/* Compiler barriers: the marks are in place before the handler runs
	 * and stay until it returns (a signal in between sees either). */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (info)
		info(sig, si, uc);
	else
		plain(sig);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	frame = saved_frame;
	onstack = saved_onstack;
}

SIG_CONTEXT_UNINSTRUMENTED
int ust_sig_in_handler(void)
{
	stack_t ss;

	if (!frame)
		return 0;
	if (onstack)
		return sigaltstack(NULL, &ss) < 0 || (ss.ss_flags & SS_ONSTACK);
	return (uintptr_t)__builtin_frame_address(0) < frame;
}

SIG_CONTEXT_UNINSTRUMENTED
static void sig_user_set(int sig, int flags, void (*info)(int, siginfo_t *, void *),
			 void (*plain)(int))
{
	__atomic_store_n(&users[sig].flags, flags, __ATOMIC_RELAXED);
	__atomic_store_n(&users[sig].info, info, __ATOMIC_RELEASE);
	__atomic_store_n(&users[sig].plain, plain, __ATOMIC_RELEASE);
}

SIG_CONTEXT_UNINSTRUMENTED
static int sig_is_handler(const struct sigaction *sa)
{
	return (sa->sa_flags & SA_SIGINFO) ? sa->sa_sigaction != NULL :
		sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN;
}

__attribute__((visibility("default"))) SIG_CONTEXT_UNINSTRUMENTED
int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sig_user prev;
	struct sigaction wrapped;
	int ret;

	if (sig <= 0 || sig >= _NSIG)
		return __sigaction(sig, act, old);
	prev.info = __atomic_load_n(&users[sig].info, __ATOMIC_ACQUIRE);
	prev.plain = __atomic_load_n(&users[sig].plain, __ATOMIC_ACQUIRE);
	prev.flags = __atomic_load_n(&users[sig].flags, __ATOMIC_RELAXED);
	if (act && sig_is_handler(act)) {
		wrapped = *act;
		wrapped.sa_sigaction = trampoline;
		wrapped.sa_flags |= SA_SIGINFO;
		/* The handler before the kernel sees the trampoline: a
		 * delivery in between calls the new handler or the old one. */
		sig_user_set(sig, act->sa_flags,
			     (act->sa_flags & SA_SIGINFO) ? act->sa_sigaction : NULL,
			     (act->sa_flags & SA_SIGINFO) ? NULL : act->sa_handler);
		act = &wrapped;
	}
	ret = __sigaction(sig, act, old);
	if (ret < 0 && act == &wrapped)
		sig_user_set(sig, prev.flags, prev.info, prev.plain);
	if (ret == 0 && act && act != &wrapped)
		sig_user_set(sig, 0, NULL, NULL);
	/* What the program installed, not our trampoline. */
	if (ret == 0 && old && (old->sa_flags & SA_SIGINFO) && old->sa_sigaction == trampoline &&
	    (prev.info || prev.plain)) {
		old->sa_flags = prev.flags;
		if (prev.info)
			old->sa_sigaction = prev.info;
		else
			old->sa_handler = prev.plain;
	}
	return ret;
}

/* signal() with glibc's BSD semantics: restarted calls, the signal
 * blocked while its handler runs. */
__attribute__((visibility("default"))) SIG_CONTEXT_UNINSTRUMENTED
void (*signal(int sig, void (*handler)(int)))(int)
{
	struct sigaction sa = { .sa_handler = handler, .sa_flags = SA_RESTART }, old;

	sigemptyset(&sa.sa_mask);
	if (sig > 0 && sig < _NSIG)
		sigaddset(&sa.sa_mask, sig);
	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}
