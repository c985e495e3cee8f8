/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "libustcomm/clock.h"
#include "libustcomm/rundir.h"

#define NSEC_PER_SEC		1000000000ull
#define CLOCK_SAMPLES		5
#define BOOT_ID_PATH		"/proc/sys/kernel/random/boot_id"

static int64_t timespec_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * (int64_t)NSEC_PER_SEC + ts->tv_nsec;
}

/*
 * Unix time of monotonic 0, in ns: realtime - monotonic. The realtime read is
 * bracketed by two monotonic reads; the pair closest together bounds the
 * error best, and the midpoint stands for the moment of the realtime read.
 */
static int64_t clock_sample_offset(void)
{
	int64_t best_offset = 0, best_span = INT64_MAX;
	int i;

	for (i = 0; i < CLOCK_SAMPLES; i++) {
		struct timespec m1, rt, m2;
		int64_t span;

		clock_gettime(CLOCK_MONOTONIC, &m1);
		clock_gettime(CLOCK_REALTIME, &rt);
		clock_gettime(CLOCK_MONOTONIC, &m2);
		span = timespec_ns(&m2) - timespec_ns(&m1);
		if (span < best_span) {
			best_span = span;
			best_offset = timespec_ns(&rt) -
				(timespec_ns(&m1) + span / 2);
		}
	}
	return best_offset;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parses "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (the boot id's format). */
static int uuid_parse(const char *s, size_t len, uint8_t uuid[16])
{
	size_t i, n = 0;

	for (i = 0; i < len && n < 32; i++) {
		int v;

		if (s[i] == '-')
			continue;
		v = hex_value(s[i]);
		if (v < 0)
			return -EINVAL;
		if (n % 2 == 0)
			uuid[n / 2] = (uint8_t)(v << 4);
		else
			uuid[n / 2] |= (uint8_t)v;
		n++;
	}
	return n == 32 ? 0 : -EINVAL;
}

/*
 * Every CLOCK_MONOTONIC of one boot is the same clock, so the boot id names
 * it: traces of different processes then agree on their clock's identity.
 */
static int clock_boot_uuid(uint8_t uuid[16])
{
	char text[64];
	ssize_t n;
	int fd, ret;

	fd = open(BOOT_ID_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		n = read(fd, text, sizeof(text) - 1);
	} while (n < 0 && errno == EINTR);
	ret = n < 0 ? -errno : uuid_parse(text, (size_t)n, uuid);
	close(fd);
	return ret;
}

int ustcomm_clock_describe(struct ustcomm_clock_desc *desc)
{
	int64_t offset_ns;
	int ret = 0;

	memset(desc, 0, sizeof(*desc));
	desc->name = "monotonic";
	desc->description = "Monotonic Clock";
	desc->freq = NSEC_PER_SEC;
	offset_ns = clock_sample_offset();
	desc->offset_s = offset_ns / (int64_t)NSEC_PER_SEC;
	if (offset_ns % (int64_t)NSEC_PER_SEC < 0)
		desc->offset_s--;
	desc->offset = (uint64_t)(offset_ns - desc->offset_s * (int64_t)NSEC_PER_SEC);
	if (clock_boot_uuid(desc->uuid) < 0)
		ret = ustcomm_uuid_generate(desc->uuid);
	return ret;
}
