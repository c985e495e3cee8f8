/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Linked into the test programs that fork: in a sanitizer build,
 * LeakSanitizer's check at the exit of a fork() child is turned off (the
 * runtime asks __lsan_is_turned_off(), when the program defines it; other
 * builds never call it). GCC 12's sanitizer runtime takes no lock around
 * fork(): a child forked while another thread of its parent held the
 * allocator's lock (libust's listener thread, or the program's own,
 * allocating) waits for ever in that check at exit, and its test with it
 * (CI hung 80 minutes on one). The process that started the program keeps
 * its check, and so does a child once it execs.
 */
#include <unistd.h>

static pid_t started_as;

static __attribute__((constructor)) void note_pid(void)
{
	started_as = getpid();
}

int __lsan_is_turned_off(void);

int __lsan_is_turned_off(void)
{
	return getpid() != started_as;
}
