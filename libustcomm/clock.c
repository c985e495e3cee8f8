/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Choosing and describing the trace clock.
 *
 * The TSC costs a third of a vDSO clock_gettime() per event, but mapping
 * its ticks to time needs a frequency and an anchor (a TSC value and the
 * Unix time at that moment), and these must be the same in every process,
 * or traces of different processes would not merge in the right order:
 *  - the frequency is the kernel's own TSC frequency, which /proc/cpuinfo
 *    shows to the kHz as "cpu MHz" when the TSC is invariant and the CPU
 *    has no APERF/MPERF (virtual machines). It is checked against
 *    CLOCK_MONOTONIC_RAW, the kernel's unslewed conversion of the same TSC,
 *    so a frequency display that means something else (the current
 *    frequency of a real CPU) is refused instead of trusted;
 *  - the anchor is shared by the processes of a user in a file, sampled
 *    again only when the system clock was set (clock_anchor.c).
 * Whenever any of that is unavailable, CLOCK_MONOTONIC is the clock.
 *
 * The choice is made when the first trace is allocated, and the anchor
 * checked whenever a trace starts, which may be in libust's control
 * handler, so it is async-signal-safe: system calls, clock_anchor.c, strtoull (AS-safe in glibc), ustcomm_format, and a
 * pthread_once that libust only reaches under ust_lock (with the control
 * signal blocked), so the handler never interrupts the once-routine.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "libustcomm/clock.h"
#include "libustcomm/clock_anchor.h"
#include "libustcomm/format.h"
#include "libustcomm/hex.h"
#include "libustcomm/pvclock.h"
#include "libustcomm/rundir.h"

#define NSEC_PER_SEC		1000000000ull
#define BOOT_ID_PATH		"/proc/sys/kernel/random/boot_id"
#define CPUINFO_PATH		"/proc/cpuinfo"
#define CLOCKSOURCE_PATH	"/sys/devices/system/clocksource/clocksource0/current_clocksource"
/* How long the frequency check measures, and how far it may be off. */
#define CHECK_NS		2000000
#define CHECK_PPM		500
/* How far kvm-clock's TSC frequency may be from the kernel's tsc_khz. */
#define PVCLOCK_PPM		10

USTCOMM_API int ustcomm_clock_use_tsc;

static pthread_once_t clock_once = PTHREAD_ONCE_INIT;
/* Set once by clock_choose(); a stale anchor is renewed in a copy. */
static struct ustcomm_clock_anchor tsc_clock;

/* Parses "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (the boot id's format). */
static int uuid_parse(const char *s, size_t len, uint8_t uuid[16])
{
	size_t i, n = 0;

	for (i = 0; i < len && n < 32; i++) {
		int v;

		if (s[i] == '-')
			continue;
		v = ustcomm_hex_digit(s[i]);
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

/* Reads up to len - 1 bytes of a small file, NUL-terminated. */
static ssize_t read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		n = read(fd, buf, len - 1);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

static int has_flag(const char *flags, const char *flag)
{
	size_t len = strlen(flag);
	const char *p;

	for (p = strstr(flags, flag); p; p = strstr(p + 1, flag))
		if (p[-1] == ' ' && (p[len] == ' ' || p[len] == '\n' || !p[len]))
			return 1;
	return 0;
}

/*
 * The first CPU's entry of /proc/cpuinfo: invariant TSC flags, and "cpu MHz"
 * as kHz ("2596.142"). Returns the kHz, or 0 when the TSC is not usable.
 */
static uint64_t cpuinfo_tsc_khz(void)
{
	char text[8192], *flags, *mhz, *end;
	uint64_t khz = 0;
	unsigned long whole;
	int i;

	if (read_text(CPUINFO_PATH, text, sizeof(text)) <= 0)
		return 0;
	flags = strstr(text, "\nflags");
	mhz = strstr(text, "\ncpu MHz");
	if (!flags || !mhz || !(flags = strchr(flags, ':')) || !(mhz = strchr(mhz, ':')))
		return 0;
	end = strchr(flags, '\n');
	if (end)
		*end = '\0';
	if (!has_flag(flags, "constant_tsc") || !has_flag(flags, "nonstop_tsc"))
		return 0;
	whole = strtoul(mhz + 1, &end, 10);
	if (*end != '.')
		return 0;
	khz = (uint64_t)whole * 1000;
	for (i = 0, end++; i < 3; i++, end++) {
		if (*end < '0' || *end > '9')
			return 0;
		khz += (uint64_t)(*end - '0') * (i == 0 ? 100 : i == 1 ? 10 : 1);
	}
	return khz;
}

/*
 * Does the kernel keep time with the TSC, one TSC for all CPUs, at khz?
 * Either its clocksource is tsc (the kernel checked that the CPUs' TSCs
 * agree, or it would have switched away), or it is kvm-clock marked stable
 * by the host, which is the TSC too: scaled, identically on every vCPU
 * (pvclock.h). Under kvm-clock, the kernel's own tsc clocksource may be
 * missing or marked unstable (tsc=unstable, as Firecracker boots its guests)
 * although kvm-clock reads that same TSC; the stable bit is what says
 * whether the vCPUs agree. Its frequency must also be the one khz names.
 */
static int kernel_clock_is_tsc(uint64_t khz)
{
	char text[64];
	uint64_t hz, want = khz * 1000;

	if (read_text(CLOCKSOURCE_PATH, text, sizeof(text)) <= 0)
		return 0;
	if (!strcmp(text, "tsc\n"))
		return 1;
	if (strcmp(text, "kvm-clock\n") || ustcomm_pvclock_stable_hz(&hz) < 0)
		return 0;
	return (hz > want ? hz - want : want - hz) <= want / 1000000 * PVCLOCK_PPM;
}

/* Does the TSC tick at khz, as seen through CLOCK_MONOTONIC_RAW? */
static int tsc_khz_checks(uint64_t khz)
{
	int64_t ns0, ns1;
	uint64_t t0, t1, expect;
	double ppm;

	ns0 = ustcomm_clock_ns(CLOCK_MONOTONIC_RAW);
	t0 = ustcomm_tsc_read_ordered();
	do {
		ns1 = ustcomm_clock_ns(CLOCK_MONOTONIC_RAW);
		t1 = ustcomm_tsc_read_ordered();
	} while (ns1 - ns0 < CHECK_NS);
	expect = (uint64_t)(ns1 - ns0) * khz / 1000000;
	ppm = ((double)t1 - (double)t0 - (double)expect) * 1e6 / (double)expect;
	return ppm < CHECK_PPM && ppm > -CHECK_PPM;
}

/* The boot's anchor file, when the TSC may be the clock. */
static int tsc_anchor_path(char *path, size_t len)
{
	uint8_t boot[16];
	int ret;

	ret = clock_boot_uuid(boot);
	if (ret < 0)
		return ret;
	return ustcomm_clock_anchor_path(path, len, boot);
}

static int tsc_clock_setup(struct ustcomm_clock_anchor *c)
{
	char path[USTCOMM_CLOCK_ANCHOR_PATH_MAX];
	const char *env = getenv("UST_CLOCK");
	int ret;

	if (env && !strcmp(env, "monotonic"))
		return -ENOTSUP;
	c->khz = cpuinfo_tsc_khz();
	if (!c->khz || !kernel_clock_is_tsc(c->khz))
		return -ENOTSUP;
	ret = tsc_anchor_path(path, sizeof(path));
	if (ret < 0)
		return ret;
	if (ustcomm_clock_anchor_load(path, c) == 0)
		return 0;
	if (!tsc_khz_checks(c->khz))
		return -ENOTSUP;
	return ustcomm_clock_anchor_renew(path, c);
}

/*
 * The anchor for a trace starting now: this process's, unless the system
 * clock was set or slewed away from it since (clock_anchor.c); then the
 * shared file's, renewed if nobody did yet. Once the TSC is chosen it stays
 * the clock, so a file that cannot be written still leaves a fresh anchor.
 */
static void tsc_current(struct ustcomm_clock_anchor *c)
{
	char path[USTCOMM_CLOCK_ANCHOR_PATH_MAX];

	*c = tsc_clock;
	if (!ustcomm_clock_anchor_stale(c) || tsc_anchor_path(path, sizeof(path)) < 0)
		return;
	if (ustcomm_clock_anchor_load(path, c) < 0)
		ustcomm_clock_anchor_renew(path, c);
}

static void clock_choose(void)
{
#if defined(__x86_64__)
	if (tsc_clock_setup(&tsc_clock) == 0)
		__atomic_store_n(&ustcomm_clock_use_tsc, 1, __ATOMIC_RELEASE);
#endif
}

/* Unix time of tick 0, as whole seconds and ticks: from the shared anchor only. */
static void tsc_describe(struct ustcomm_clock_desc *desc, const struct ustcomm_clock_anchor *c)
{
	__int128 freq = (__int128)c->khz * 1000;
	__int128 origin = (__int128)c->epoch_ref_ns * (__int128)c->khz / 1000000 -
		(__int128)c->tsc_ref;
	__int128 secs = origin / freq;

	if (origin % freq < 0)
		secs--;
	desc->name = "tsc";
	desc->description = "TSC, invariant, kernel frequency, anchored per boot and clock step";
	desc->freq = (uint64_t)freq;
	desc->offset_s = (int64_t)secs;
	desc->offset = (uint64_t)(origin - secs * freq);
}

int ustcomm_clock_describe(struct ustcomm_clock_desc *desc)
{
	int64_t offset_ns;
	int ret = 0;

	memset(desc, 0, sizeof(*desc));
	pthread_once(&clock_once, clock_choose);
	if (__atomic_load_n(&ustcomm_clock_use_tsc, __ATOMIC_ACQUIRE)) {
		struct ustcomm_clock_anchor anchor;

		tsc_current(&anchor);
		tsc_describe(desc, &anchor);
	} else {
		desc->name = "monotonic";
		desc->description = "Monotonic Clock";
		desc->freq = NSEC_PER_SEC;
		offset_ns = ustcomm_clock_wall_offset();
		desc->offset_s = offset_ns / (int64_t)NSEC_PER_SEC;
		if (offset_ns % (int64_t)NSEC_PER_SEC < 0)
			desc->offset_s--;
		desc->offset = (uint64_t)(offset_ns - desc->offset_s * (int64_t)NSEC_PER_SEC);
	}
	if (clock_boot_uuid(desc->uuid) < 0)
		ret = ustcomm_uuid_generate(desc->uuid);
	return ret;
}
