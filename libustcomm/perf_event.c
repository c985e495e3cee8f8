/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libustcomm/event_context.h"
#include "libustcomm/format.h"
#include "libustcomm/perf_event.h"

static const struct {
	uint32_t type;
	uint64_t config;
} perf_events[USTCOMM_CTX_PERF_NR] = {
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
};

int ustcomm_perf_open(int id)
{
	struct perf_event_attr attr;
	int fd;

	if (id < USTCOMM_CTX_PERF_FIRST || id >= USTCOMM_CTX_NR)
		return -EINVAL;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = perf_events[id - USTCOMM_CTX_PERF_FIRST].type;
	attr.config = perf_events[id - USTCOMM_CTX_PERF_FIRST].config;
	/* User space only: what the traced code costs, and what
	 * perf_event_paranoid 2 (the usual default) allows. */
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* kernel.perf_event_paranoid, or PARANOID_UNKNOWN. */
#define PARANOID_UNKNOWN	(-100)
static int paranoid_level(void)
{
	char buf[16] = "";
	int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	const char *c = buf;
	int sign = 1, v = 0;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return PARANOID_UNKNOWN;
	buf[n] = '\0';
	/* Not strtol(): it may consult the locale, not safe in a handler. */
	if (*c == '-') {
		sign = -1;
		c++;
	}
	while (*c >= '0' && *c <= '9')
		v = v * 10 + (*c++ - '0');
	return sign * v;
}

int ustcomm_perf_check(int id, char *why, size_t why_size)
{
	const char *name = ustcomm_ctx_name(id);
	int fd = ustcomm_perf_open(id), err;

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	err = fd;
	if (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV || err == -EINVAL)
		ustcomm_format(why, why_size,
			       "this machine has no hardware counter for %s (perf_event_open: %s); virtual machines often have none (see /sys/bus/event_source/devices/cpu)",
			       name, ustcomm_strerror(-err));
	else if ((err == -EACCES || err == -EPERM) && paranoid_level() != PARANOID_UNKNOWN)
		ustcomm_format(why, why_size,
			       "not allowed to count %s (perf_event_open: %s): kernel.perf_event_paranoid is %d; trace as root or set it to 2 or less",
			       name, ustcomm_strerror(-err), paranoid_level());
	else if (err == -EACCES || err == -EPERM)
		ustcomm_format(why, why_size,
			       "not allowed to count %s (perf_event_open: %s); trace as root",
			       name, ustcomm_strerror(-err));
	else if (err == -ENOSYS)
		ustcomm_format(why, why_size, "this kernel has no perf events, so no %s", name);
	else
		ustcomm_format(why, why_size, "cannot count %s (perf_event_open: %s)", name,
			       ustcomm_strerror(-err));
	return err;
}

