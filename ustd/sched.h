/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ustd's place in the scheduler. Writers discard when ustd does not give a
 * sub-buffer back within one ring's time (a few ms at full speed), and with
 * every CPU busy (two writer threads on two CPUs, a loaded machine) the
 * wait to be scheduled after a wakeup was most of that (manual 10.7). ustd
 * works little per wakeup and sleeps often, so it asks to run first.
 */
#ifndef USTD_SCHED_H
#define USTD_SCHED_H

#include <stdbool.h>

/*
 * What ustd asks for: no real-time policy unless --realtime asks for it
 * (priority 1 when it names none), as a real-time ustd that spins (a
 * bug, a hostile client) would take its CPU from everything else; and
 * nice -10 (--nice).
 */
#define USTD_RT_PRIO_DEFAULT	0
#define USTD_RT_PRIO_ASKED	1
#define USTD_NICE_DEFAULT	(-10)

/*
 * --nice's value and --realtime's text (NULL: not given; "": given
 * without a priority, *rt_prio is then the one asked for), checked: a
 * nice value from -20 to 19, a SCHED_FIFO priority from 1 to 99 or 0 for
 * none, to *rt_prio. 0, or -EINVAL (said, naming the option).
 */
int ustd_sched_options(int nice, const char *rt_arg, int *rt_prio);

/*
 * Asks for SCHED_FIFO at rt_prio (0: not), where the process may have it
 * (root, CAP_SYS_NICE, RLIMIT_RTPRIO); else for the normal policy at nice
 * (or the lowest RLIMIT_NICE allows) with a short time slice, so that
 * ustd's wakeups preempt a busy writer (Linux 6.12 and later; ignored
 * before). Call before any thread is created: threads inherit it. Never
 * fails: -v (verbose) says what was had.
 */
void ustd_sched_setup(int rt_prio, int nice, bool verbose);

#endif
