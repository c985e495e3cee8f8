/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include "libustcomm/log.h"
#include "ustd/sched.h"

/*
 * The slice ustd asks for: under EEVDF a task's deadline is its slice
 * ahead, and a woken task whose deadline is earlier than the running one's
 * preempts it. A drain takes tens of microseconds per packet; 100 us is
 * the shortest slice the kernel accepts.
 */
#define USTD_SLICE_NS	100000u

#ifndef SCHED_FLAG_RESET_ON_FORK
#define SCHED_FLAG_RESET_ON_FORK	0x01
#endif

/* struct sched_attr of sched_setattr(2), which glibc does not declare. */
struct ustd_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

/* The one shape of every option's check: the value said as given. */
static int sched_expect(bool valid, const char *option, const char *value,
			const char *expected)
{
	if (valid)
		return 0;
	ustcomm_err("%s %s: expected %s", option, value, expected);
	return -EINVAL;
}

int ustd_sched_options(int nice, const char *rt_arg, int *rt_prio)
{
	char value[16];
	long prio = *rt_prio;
	char *end;
	int ret;

	snprintf(value, sizeof(value), "%d", nice);
	ret = sched_expect(nice >= -20 && nice <= 19, "--nice", value,
			   "a nice value from -20 to 19");
	if (ret < 0)
		return ret;
	if (rt_arg && rt_arg[0]) {
		errno = 0;
		prio = strtol(rt_arg, &end, 10);
		if (errno || *end)
			prio = -1;
	}
	ret = sched_expect(prio >= 0 && prio <= 99, "--realtime", rt_arg,
			   "a priority from 1 to 99, or 0 for none");
	if (ret == 0)
		*rt_prio = (int)prio;
	return ret;
}

static int sched_set(uint32_t policy, uint32_t prio, int nice, uint64_t slice)
{
	struct ustd_sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = policy,
		/* A child (none today) must not inherit a real-time policy. */
		.sched_flags = SCHED_FLAG_RESET_ON_FORK,
		.sched_nice = nice,
		.sched_priority = prio,
		.sched_runtime = slice,
	};

	return syscall(SYS_sched_setattr, 0, &attr, 0) < 0 ? -errno : 0;
}

/* The lowest nice RLIMIT_NICE lets an unprivileged process take. */
static int sched_nice_floor(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NICE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return -20;
	return rl.rlim_cur >= 40 ? -20 : 20 - (int)rl.rlim_cur;
}

/*
 * SCHED_FIFO: ustd runs as soon as a writer wakes it, whatever else is
 * runnable. It cannot take a CPU for itself: it sleeps in epoll_wait()
 * between wakeups, its work per wakeup is bounded (one ring per stream),
 * and the kernel's real-time throttling leaves 5 % of every CPU to the
 * others in any case.
 */
static bool sched_try_fifo(int rt_prio)
{
	return rt_prio > 0 && sched_set(SCHED_FIFO, (uint32_t)rt_prio, 0, 0) == 0;
}

void ustd_sched_setup(int rt_prio, int nice, bool verbose)
{
	uint64_t slice = USTD_SLICE_NS;
	int cur, floor, want, ret;

	if (sched_try_fifo(rt_prio)) {
		if (verbose)
			fprintf(stderr, "ustd: scheduling: SCHED_FIFO, priority %d\n", rt_prio);
		return;
	}
	errno = 0;
	cur = getpriority(PRIO_PROCESS, 0);
	if (errno)
		cur = 0;
	/* Never lower the priority ustd was started with. */
	want = nice < cur ? nice : cur;
	ret = sched_set(SCHED_OTHER, 0, want, slice);
	if (ret == -EPERM && want < cur) {
		floor = sched_nice_floor();
		want = floor > cur ? cur : floor;
		ret = sched_set(SCHED_OTHER, 0, want, slice);
	}
	/* A kernel that refuses the slice (before 6.12 it is ignored). */
	if (ret == -EINVAL) {
		slice = 0;
		ret = sched_set(SCHED_OTHER, 0, want, slice);
	}
	if (ret < 0) {
		ustcomm_dbg("sched_setattr: %s", strerror(-ret));
		want = cur;
		slice = 0;
	}
	if (!verbose)
		return;
	fprintf(stderr, "ustd: scheduling: nice %d%s\n", want, slice ? ", 100 us slices" : "");
	if (rt_prio > 0 || want > nice)
		fprintf(stderr, "ustd: %s not allowed (root, CAP_SYS_NICE, RLIMIT_RTPRIO or RLIMIT_NICE needed): on a busy machine writers may discard more (manual 10.7)\n",
			rt_prio > 0 ? "SCHED_FIFO" : "a lower nice value");
}
