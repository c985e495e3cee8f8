/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Reading the vDSO's kvm-clock page (pvclock.h).
 *
 * Where: Linux 6.13 and later map it as the first page of "[vvar_vclock]";
 * earlier kernels as the second of the four pages of "[vvar]". The kernel
 * backs that page only while the vDSO uses kvm-clock; otherwise a load from
 * it raises SIGBUS. So it is never loaded from directly: it is copied by
 * the kernel, through a pipe, and a page that is absent makes write() fail
 * with EFAULT instead of killing the process. What was found is trusted
 * only if it looks like a pvclock record (even version, read twice alike, a
 * non-zero multiplier and a sane shift); the caller also compares the
 * frequency with the kernel's TSC frequency.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "libustcomm/pvclock.h"

#define PVCLOCK_TSC_STABLE_BIT	0x01
#define PAGE_BYTES		4096ul
#define MAPS_PATH		"/proc/self/maps"

/* struct pvclock_vcpu_time_info, the kernel's ABI with the host. */
struct pvclock_record {
	uint32_t version;		/* odd while the host updates it */
	uint32_t pad0;
	uint64_t tsc_timestamp;
	uint64_t system_time;
	uint32_t tsc_to_system_mul;	/* ns = (ticks << shift) * mul >> 32 */
	int8_t tsc_shift;
	uint8_t flags;
	uint8_t pad[2];
};

/*
 * The address of the kvm-clock page from one line of /proc/self/maps, or 0
 * when the line is not a mapping that holds it.
 */
static unsigned long maps_line_pvclock(const char *line)
{
	unsigned long start, end;
	char *p;

	start = strtoul(line, &p, 16);
	if (*p != '-')
		return 0;
	end = strtoul(p + 1, &p, 16);
	if (strstr(p, "[vvar_vclock]"))
		return start;
	/* Before 6.13: vvar data, pvclock, hvclock, time namespace. */
	if (strstr(p, "[vvar]") && end - start == 4 * PAGE_BYTES)
		return start + PAGE_BYTES;
	return 0;
}

/* Scans /proc/self/maps; a "[vvar_vclock]" line wins over an old "[vvar]". */
static unsigned long pvclock_page_address(void)
{
	char buf[4096];
	size_t have = 0;
	unsigned long found = 0;
	ssize_t n;
	int fd;

	fd = open(MAPS_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	for (;;) {
		char *line = buf, *nl;

		do {
			n = read(fd, buf + have, sizeof(buf) - 1 - have);
		} while (n < 0 && errno == EINTR);
		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		while ((nl = strchr(line, '\n'))) {
			unsigned long addr;

			*nl = '\0';
			addr = maps_line_pvclock(line);
			if (addr && (!found || strstr(line, "[vvar_vclock]")))
				found = addr;
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		/* A line longer than the buffer (a long path): drop it. */
		if (have == sizeof(buf) - 1)
			have = 0;
	}
	close(fd);
	return found;
}

/* Copies the record at addr through a pipe: EFAULT when the page is absent. */
static int pvclock_copy(unsigned long addr, struct pvclock_record *rec)
{
	int fds[2], ret = 0;
	ssize_t n;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	/* Fewer bytes than PIPE_BUF into an empty pipe: all or nothing. */
	n = write(fds[1], (const void *)addr, sizeof(*rec));
	if (n < 0)
		ret = -errno;
	else if (n != (ssize_t)sizeof(*rec) ||
		 read(fds[0], rec, sizeof(*rec)) != (ssize_t)sizeof(*rec))
		ret = -EIO;
	close(fds[0]);
	close(fds[1]);
	return ret;
}

int ustcomm_pvclock_stable_hz(uint64_t *hz)
{
	struct pvclock_record a, b;
	unsigned long addr;
	unsigned __int128 f;
	int ret, tries;

	addr = pvclock_page_address();
	if (!addr)
		return -ENOTSUP;
	for (tries = 0; tries < 3; tries++) {
		ret = pvclock_copy(addr, &a);
		if (ret == 0)
			ret = pvclock_copy(addr, &b);
		if (ret < 0)
			return ret == -EFAULT ? -ENOTSUP : ret;
		if (!(a.version & 1) && a.version == b.version)
			break;
	}
	if (tries == 3 || !(a.flags & PVCLOCK_TSC_STABLE_BIT) || !a.tsc_to_system_mul ||
	    a.tsc_shift < -31 || a.tsc_shift > 31)
		return -ENOTSUP;
	/* ticks per second = 1e9 * 2^32 / mul, then undo the shift. */
	f = ((unsigned __int128)1000000000u << 32) / a.tsc_to_system_mul;
	*hz = (uint64_t)(a.tsc_shift < 0 ? f << -a.tsc_shift : f >> a.tsc_shift);
	return 0;
}
