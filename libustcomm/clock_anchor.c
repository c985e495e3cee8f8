/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The TSC's anchor. If each process sampled its own, traces of different
 * processes would disagree by the sampling error and by how far the wall
 * clock moved between their starts, and would not merge in exact order. So
 * the first process of a user that needs it samples one and shares it
 * through a file named after the uid and the boot id; later processes read
 * it and map the TSC with the same numbers.
 *
 * An anchor is good for as long as it tells the wall-clock time. It stops
 * when:
 *  - the system clock is set (clock_settime, an NTP or chrony step, a leap
 *    second, a virtual machine resumed with its clock moved on): then
 *    CLOCK_REALTIME - CLOCK_MONOTONIC, constant otherwise, changes. A step
 *    above ANCHOR_STEP_NS counts;
 *  - NTP's slewing, which the TSC's nominal frequency does not follow, has
 *    taken the wall clock ANCHOR_DRIFT_NS away from the anchor's
 *    prediction (a few ppm: days).
 * The process that finds it stale samples a new one and renames it over the
 * old, so the processes that start tracing after the step agree again with
 * each other and with the wall clock. A trace already running keeps the
 * anchor its metadata gave.
 *
 * Async-signal-safe, as clock.c requires: open/read/write/link/rename/
 * unlink system calls, clock_gettime, strtoull/strtoll, ustcomm_format.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "libustcomm/clock_anchor.h"
#include "libustcomm/format.h"
#include "libustcomm/rundir.h"

#define ANCHOR_DIR		"/dev/shm"
#define ANCHOR_MAGIC		"ust-clock 2 "
#define ANCHOR_SAMPLES		5
/* Far above the sampling error (tens of ns), far below a visible step. */
#define ANCHOR_STEP_NS		1000000
#define ANCHOR_DRIFT_NS		100000000

/*
 * The realtime read is bracketed by two monotonic reads; the pair closest
 * together bounds the error best, and the midpoint stands for the moment
 * of the realtime read.
 */
int64_t ustcomm_clock_wall_offset(void)
{
	int64_t best_offset = 0, best_span = INT64_MAX;
	int i;

	for (i = 0; i < ANCHOR_SAMPLES; i++) {
		int64_t m1, rt, m2;

		m1 = ustcomm_clock_ns(CLOCK_MONOTONIC);
		rt = ustcomm_clock_ns(CLOCK_REALTIME);
		m2 = ustcomm_clock_ns(CLOCK_MONOTONIC);
		if (m2 - m1 < best_span) {
			best_span = m2 - m1;
			best_offset = rt - (m1 + (m2 - m1) / 2);
		}
	}
	return best_offset;
}

/* The TSC value at the moment of a realtime read: the tightest of a few brackets. */
static void anchor_sample(struct ustcomm_clock_anchor *a)
{
	uint64_t best_span = UINT64_MAX;
	int i;

	for (i = 0; i < ANCHOR_SAMPLES; i++) {
		uint64_t t1, t2;
		int64_t rt;

		t1 = ustcomm_tsc_read_ordered();
		rt = ustcomm_clock_ns(CLOCK_REALTIME);
		t2 = ustcomm_tsc_read_ordered();
		if (t2 - t1 < best_span) {
			best_span = t2 - t1;
			a->tsc_ref = t1 + (t2 - t1) / 2;
			a->epoch_ref_ns = rt;
		}
	}
	a->wall_to_mono_ns = ustcomm_clock_wall_offset();
}

int ustcomm_clock_anchor_stale(const struct ustcomm_clock_anchor *a)
{
	int64_t step, now, predicted;
	uint64_t tsc;

	step = ustcomm_clock_wall_offset() - a->wall_to_mono_ns;
	tsc = ustcomm_tsc_read_ordered();
	now = ustcomm_clock_ns(CLOCK_REALTIME);
	predicted = a->epoch_ref_ns +
		(int64_t)((__int128)(int64_t)(tsc - a->tsc_ref) * 1000000 / (__int128)a->khz);
	return llabs(step) > ANCHOR_STEP_NS || llabs(predicted - now) > ANCHOR_DRIFT_NS;
}

/* UST_CLOCK_ANCHOR_DIR lets processes share an anchor elsewhere (a test's own). */
int ustcomm_clock_anchor_path(char *buf, size_t len, const uint8_t boot[16])
{
	const char *dir = getenv("UST_CLOCK_ANCHOR_DIR");
	char uuid[37];
	int ret;

	ustcomm_uuid_format(boot, uuid);
	ret = ustcomm_format(buf, len, "%s/ust-clock-%u-%s", dir && *dir ? dir : ANCHOR_DIR,
			     (unsigned)geteuid(), uuid);
	return ret < 0 || (size_t)ret >= len ? -ENAMETOOLONG : 0;
}

/*
 * The file must be ours (owner, not writable by others, a regular file,
 * not reached through a symlink) and name the same kHz.
 */
int ustcomm_clock_anchor_load(const char *path, struct ustcomm_clock_anchor *a)
{
	struct ustcomm_clock_anchor got = { .khz = a->khz };
	char text[128], *p;
	struct stat st;
	ssize_t n;
	int fd, ret = -EINVAL;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022))
		goto end;
	do {
		n = read(fd, text, sizeof(text) - 1);
	} while (n < 0 && errno == EINTR);
	if (n <= 0)
		goto end;
	text[n] = '\0';
	if (strncmp(text, ANCHOR_MAGIC, strlen(ANCHOR_MAGIC)))
		goto end;
	p = text + strlen(ANCHOR_MAGIC);
	if (strtoull(p, &p, 10) != a->khz || *p != ' ')
		goto end;
	got.tsc_ref = strtoull(p + 1, &p, 10);
	if (*p != ' ')
		goto end;
	got.epoch_ref_ns = strtoll(p + 1, &p, 10);
	if (*p != ' ')
		goto end;
	got.wall_to_mono_ns = strtoll(p + 1, &p, 10);
	if (*p != '\n')
		goto end;
	if (ustcomm_clock_anchor_stale(&got)) {
		ret = -ESTALE;
		goto end;
	}
	*a = got;
	ret = 0;
end:
	close(fd);
	return ret;
}

/*
 * Written under a private name, then linked (no anchor yet) or renamed over
 * the old one, so that no reader ever sees a partial file. Two processes
 * that renew at once both rename; each then reads the file back, so that
 * both end with the one that stayed unless the second rename came after the
 * first process's read (they then differ by the sampling error only).
 */
int ustcomm_clock_anchor_renew(const char *path, struct ustcomm_clock_anchor *a)
{
	char tmp[USTCOMM_CLOCK_ANCHOR_PATH_MAX + 24], text[128];
	int fd, len, ret = 0;

	anchor_sample(a);
	ret = ustcomm_format(tmp, sizeof(tmp), "%s.%ld", path, (long)getpid());
	if (ret < 0 || (size_t)ret >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	len = ustcomm_format(text, sizeof(text), ANCHOR_MAGIC "%" PRIu64 " %" PRIu64 " %" PRId64
			     " %" PRId64 "\n", a->khz, a->tsc_ref, a->epoch_ref_ns,
			     a->wall_to_mono_ns);
	ret = write(fd, text, (size_t)len) == len ? 0 : -EIO;
	close(fd);
	if (ret < 0)
		goto end;
	if (link(tmp, path) == 0)
		goto end;
	if (errno != EEXIST) {
		ret = -errno;
		goto end;
	}
	/* Another process may have put a current one there since we looked. */
	if (ustcomm_clock_anchor_load(path, a) == 0)
		goto end;
	if (rename(tmp, path) < 0) {
		ret = -errno;
		goto end;
	}
	ustcomm_clock_anchor_load(path, a);
end:
	unlink(tmp);
	return ret;
}
