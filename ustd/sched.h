/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ustd's place in the scheduler. Writers discard when ustd does not give a
 * sub-buffer back within one ring's time (a few ms at full speed), and with
 * every CPU busy (two writer threads on two CPUs, or a loaded machine) the
 * wait to be scheduled after a wakeup was most of that (manual 8.7). ustd
 * works little and sleeps often, so it asks to run first when woken.
 */
#ifndef USTD_SCHED_H
#define USTD_SCHED_H

#include <stdbool.h>

/* The nice value ustd asks for by default (--nice). */
#define USTD_NICE_DEFAULT	(-10)

/* True when nice is a nice value (-20 to 19). */
bool ustd_sched_nice_valid(long nice);

/*
 * Asks for nice (lowered to what RLIMIT_NICE allows when the process may
 * not have it: root and CAP_SYS_NICE may) and a short time slice, so that
 * ustd's wakeups preempt a busy writer (Linux 6.12 and later; ignored
 * before). Call before any thread is created: threads inherit it. Never
 * fails: what could not be had is said with -v (verbose).
 */
void ustd_sched_setup(int nice, bool verbose);

#endif
