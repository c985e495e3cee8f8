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
 *  - the anchor is sampled once per boot and user by the first process that
 *    needs it and shared through a file in /dev/shm named after the uid and
 *    the boot id: every later process maps the TSC with the same numbers.
 * Whenever any of that is unavailable, CLOCK_MONOTONIC is the clock.
 *
 * The choice is made when the first trace is allocated, which may be in
 * libust's control handler, so it is async-signal-safe: open/read/write/
 * link system calls, strtoull (AS-safe in glibc), ustcomm_format, and a
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
#include "libustcomm/format.h"
#include "libustcomm/hex.h"
#include "libustcomm/pvclock.h"
#include "libustcomm/rundir.h"

#define NSEC_PER_SEC		1000000000ull
#define CLOCK_SAMPLES		5
#define BOOT_ID_PATH		"/proc/sys/kernel/random/boot_id"
#define CPUINFO_PATH		"/proc/cpuinfo"
#define CLOCKSOURCE_PATH	"/sys/devices/system/clocksource/clocksource0/current_clocksource"
#define ANCHOR_DIR		"/dev/shm"
/* How long the frequency check measures, and how far it may be off. */
#define CHECK_NS		2000000
#define CHECK_PPM		500
/* How far kvm-clock's TSC frequency may be from the kernel's tsc_khz. */
#define PVCLOCK_PPM		10

USTCOMM_API int ustcomm_clock_use_tsc;

struct tsc_clock {
	uint64_t khz;			/* ticks per millisecond */
	uint64_t tsc_ref;		/* a TSC value ... */
	int64_t epoch_ref_ns;		/* ... and the Unix time then */
};

static pthread_once_t clock_once = PTHREAD_ONCE_INIT;
static struct tsc_clock tsc_clock;

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

static uint64_t tsc_read(void)
{
#if defined(__x86_64__)
	__builtin_ia32_lfence();
	return __builtin_ia32_rdtsc();
#else
	return 0;
#endif
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return timespec_ns(&ts);
}

/* Does the TSC tick at khz, as seen through CLOCK_MONOTONIC_RAW? */
static int tsc_khz_checks(uint64_t khz)
{
	int64_t ns0, ns1;
	uint64_t t0, t1, expect;
	double ppm;

	ns0 = clock_ns(CLOCK_MONOTONIC_RAW);
	t0 = tsc_read();
	do {
		ns1 = clock_ns(CLOCK_MONOTONIC_RAW);
		t1 = tsc_read();
	} while (ns1 - ns0 < CHECK_NS);
	expect = (uint64_t)(ns1 - ns0) * khz / 1000000;
	ppm = ((double)t1 - (double)t0 - (double)expect) * 1e6 / (double)expect;
	return ppm < CHECK_PPM && ppm > -CHECK_PPM;
}

/* The TSC value at the moment of a realtime read: the tightest of a few brackets. */
static void tsc_sample_anchor(struct tsc_clock *c)
{
	uint64_t best_span = UINT64_MAX;
	int i;

	for (i = 0; i < CLOCK_SAMPLES; i++) {
		uint64_t t1, t2;
		int64_t rt;

		t1 = tsc_read();
		rt = clock_ns(CLOCK_REALTIME);
		t2 = tsc_read();
		if (t2 - t1 < best_span) {
			best_span = t2 - t1;
			c->tsc_ref = t1 + (t2 - t1) / 2;
			c->epoch_ref_ns = rt;
		}
	}
}

static int anchor_path(char *buf, size_t len)
{
	uint8_t boot[16];
	char uuid[37];
	int ret;

	ret = clock_boot_uuid(boot);
	if (ret < 0)
		return ret;
	ustcomm_uuid_format(boot, uuid);
	ret = ustcomm_format(buf, len, ANCHOR_DIR "/ust-clock-%u-%s", (unsigned)geteuid(), uuid);
	return ret < 0 || (size_t)ret >= len ? -ENAMETOOLONG : 0;
}

/*
 * Reads the shared anchor. It must be ours (owner, not writable by others,
 * a regular file, not reached through a symlink) and name the same kHz.
 */
static int anchor_load(const char *path, struct tsc_clock *c)
{
	unsigned long long khz, tsc_ref;
	long long epoch_ref;
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
	n = read(fd, text, sizeof(text) - 1);
	if (n <= 0)
		goto end;
	text[n] = '\0';
	if (strncmp(text, "ust-clock 1 ", 12))
		goto end;
	khz = strtoull(text + 12, &p, 10);
	if (*p != ' ')
		goto end;
	tsc_ref = strtoull(p + 1, &p, 10);
	if (*p != ' ')
		goto end;
	epoch_ref = strtoll(p + 1, &p, 10);
	if (*p != '\n' || khz != c->khz)
		goto end;
	c->tsc_ref = tsc_ref;
	c->epoch_ref_ns = epoch_ref;
	ret = 0;
end:
	close(fd);
	return ret;
}

/*
 * Publishes our anchor under path unless another process was first, in
 * which case its anchor wins: written to a private name, then linked, so
 * that no reader ever sees a partial file.
 */
static int anchor_publish(const char *path, struct tsc_clock *c)
{
	char tmp[160], text[128];
	int fd, len, ret = 0;

	ustcomm_format(tmp, sizeof(tmp), "%s.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	len = ustcomm_format(text, sizeof(text), "ust-clock 1 %" PRIu64 " %" PRIu64 " %" PRId64 "\n",
		       c->khz, c->tsc_ref, c->epoch_ref_ns);
	if (write(fd, text, (size_t)len) != len)
		ret = -EIO;
	close(fd);
	if (ret == 0 && link(tmp, path) < 0)
		ret = errno == EEXIST ? anchor_load(path, c) : -errno;
	unlink(tmp);
	return ret;
}

static int tsc_clock_setup(struct tsc_clock *c)
{
	char path[128];
	const char *env = getenv("UST_CLOCK");
	int ret;

	if (env && !strcmp(env, "monotonic"))
		return -ENOTSUP;
	c->khz = cpuinfo_tsc_khz();
	if (!c->khz || !kernel_clock_is_tsc(c->khz))
		return -ENOTSUP;
	ret = anchor_path(path, sizeof(path));
	if (ret < 0)
		return ret;
	if (anchor_load(path, c) == 0)
		return 0;
	if (!tsc_khz_checks(c->khz))
		return -ENOTSUP;
	tsc_sample_anchor(c);
	return anchor_publish(path, c);
}

static void clock_choose(void)
{
#if defined(__x86_64__)
	if (tsc_clock_setup(&tsc_clock) == 0)
		__atomic_store_n(&ustcomm_clock_use_tsc, 1, __ATOMIC_RELEASE);
#endif
}

/* Unix time of tick 0, as whole seconds and ticks: from the shared anchor only. */
static void tsc_describe(struct ustcomm_clock_desc *desc, const struct tsc_clock *c)
{
	__int128 freq = (__int128)c->khz * 1000;
	__int128 origin = (__int128)c->epoch_ref_ns * (__int128)c->khz / 1000000 -
		(__int128)c->tsc_ref;
	__int128 secs = origin / freq;

	if (origin % freq < 0)
		secs--;
	desc->name = "tsc";
	desc->description = "TSC, invariant, kernel frequency, anchored once per boot";
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
		tsc_describe(desc, &tsc_clock);
	} else {
		desc->name = "monotonic";
		desc->description = "Monotonic Clock";
		desc->freq = NSEC_PER_SEC;
		offset_ns = clock_sample_offset();
		desc->offset_s = offset_ns / (int64_t)NSEC_PER_SEC;
		if (offset_ns % (int64_t)NSEC_PER_SEC < 0)
			desc->offset_s--;
		desc->offset = (uint64_t)(offset_ns - desc->offset_s * (int64_t)NSEC_PER_SEC);
	}
	if (clock_boot_uuid(desc->uuid) < 0)
		ret = ustcomm_uuid_generate(desc->uuid);
	return ret;
}
