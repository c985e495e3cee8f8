/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What makes libust's control path safe in a signal handler: the lock that
 * blocks the control signal in its holder, and the mmap allocator.
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include "libust/lock.h"
#include "libust/registry.h"
#include "libust/sigsafe_alloc.h"
#include "tests/unit/tap.h"

static int blocked(int sig)
{
	sigset_t cur;

	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	return sigismember(&cur, sig);
}

static int all_zero(const unsigned char *p, size_t n)
{
	while (n--)
		if (*p++)
			return 0;
	return 1;
}

int main(void)
{
	unsigned char *a, *b, *c, *big;
	sigset_t set;
	char *s;

	ust_lock_set_signal(SIGUSR2);
	ust_lock();
	tap_ok(blocked(SIGUSR2), "the holder of ust_lock has the control signal blocked");
	ust_unlock();
	tap_ok(!blocked(SIGUSR2), "ust_unlock gives the signal back");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	ust_lock();
	ust_unlock();
	tap_ok(blocked(SIGUSR2), "a signal the program blocked itself stays blocked");
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);

	a = ust_zalloc(100);
	b = ust_zalloc(100);
	tap_ok(a && b && a != b && all_zero(a, 100) && ((uintptr_t)a & 15) == 0,
	       "blocks are distinct, zeroed and 16-byte aligned");
	memset(a, 0xff, 100);
	memset(b, 0xee, 100);
	ust_free(a);
	c = ust_zalloc(90);
	tap_ok(c == a && all_zero(c, 90), "a freed block of the class is reused, zeroed again");
	tap_ok(b[0] == 0xee && b[99] == 0xee, "its neighbour is untouched");
	big = ust_zalloc(100000);
	tap_ok(big && all_zero(big, 100000), "a large block has a mapping of its own");
	memset(big, 1, 100000);
	ust_free(big);
	s = ust_strdup("pattern:*");
	tap_ok(s && !strcmp(s, "pattern:*"), "ust_strdup copies");
	ust_free(s);
	ust_free(b);
	ust_free(c);
	ust_free(NULL);
	tap_ok(ust_zalloc(SIZE_MAX) == NULL, "an impossible size is refused");
	tap_plan(tap_count);
	return tap_done();
}
