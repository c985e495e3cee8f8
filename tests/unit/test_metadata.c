/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The metadata writer against the reference reader: a trace directory is
 * built from the generated TSDL and a hand-made packet in the layout of
 * ctf_layout.h, and babeltrace2 must print every field exactly.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "libustcomm/clock.h"
#include "libustcomm/ctf_layout.h"
#include "libustcomm/metadata.h"
#include "libustcomm/rundir.h"
#include "libustcomm/strbuf.h"
#include "tap.h"

#define NR_TESTS	34

#define TS_BEGIN	1000u
#define OFFSET_S	1700000000

static const uint8_t trace_uuid[16] = {
	0x2a, 0x64, 0x22, 0xd0, 0x6c, 0xee, 0x11, 0xe0,
	0x8c, 0x08, 0xcb, 0x07, 0xd7, 0xb3, 0xa5, 0x64,
};

static const struct ustcomm_clock_desc test_clock = {
	.name = "monotonic",
	.description = "Monotonic Clock",
	.freq = 1000000000,
	.offset_s = OFFSET_S,
	.offset = 0,
	.uuid = { 0x11, 0x11, 0x11, 0x11, 0x22, 0x22, 0x33, 0x33,
		  0x44, 0x44, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55 },
};

#define F_INT(n, sz, sg, b) { .name = n, .kind = UST_FIELD_INTEGER, .size = sz, .is_signed = sg, .base = b }

static const struct ust_field_desc ints_fields[] = {
	F_INT("s8", 1, 1, 10), F_INT("u8", 1, 0, 10),
	F_INT("s16", 2, 1, 10), F_INT("u16", 2, 0, 10),
	F_INT("s32", 4, 1, 10), F_INT("u32", 4, 0, 10),
	F_INT("s64", 8, 1, 10), F_INT("u64", 8, 0, 10),
	F_INT("hex", 4, 0, 16), F_INT("_under", 1, 0, 10),
};

/* Field names that are TSDL keywords must work too. */
static const struct ust_field_desc misc_fields[] = {
	{ .name = "f", .kind = UST_FIELD_FLOAT, .size = 4 },
	{ .name = "d", .kind = UST_FIELD_FLOAT, .size = 8 },
	{ .name = "string", .kind = UST_FIELD_STRING },
	{ .name = "arr", .kind = UST_FIELD_ARRAY, .size = 2, .base = 10, .length = 3 },
	{ .name = "event", .kind = UST_FIELD_SEQUENCE, .size = 4, .is_signed = 1,
	  .base = 10, .len_size = 1 },
	{ .name = "hseq", .kind = UST_FIELD_SEQUENCE, .size = 1, .base = 16, .len_size = 4 },
};

static const struct ust_field_desc one_u32[] = { F_INT("v", 4, 0, 10) };

struct packet {
	char buf[4096];
	size_t len;
	uint64_t prev_ts;
};

static void pkt_begin(struct packet *p, uint32_t stream_id)
{
	memset(p, 0, sizeof(*p));
	ust_put_u32(p->buf + UST_PKT_MAGIC, UST_CTF_MAGIC);
	memcpy(p->buf + UST_PKT_UUID, trace_uuid, 16);
	ust_put_u32(p->buf + UST_PKT_STREAM_ID, stream_id);
	ust_put_u64(p->buf + UST_PKT_STREAM_INSTANCE_ID, 0);
	ust_put_u64(p->buf + UST_PKT_TIMESTAMP_BEGIN, TS_BEGIN);
	ust_put_u64(p->buf + UST_PKT_SEQ_NUM, 0);
	ust_put_u64(p->buf + UST_PKT_EVENTS_DISCARDED, 0);
	ust_put_u32(p->buf + UST_PKT_CPU_ID, 0);
	p->len = UST_PKT_HEADER_SIZE;
	p->prev_ts = TS_BEGIN;
}

/* Returns whether the compact header was used. */
static int pkt_event(struct packet *p, uint32_t id, uint64_t ts)
{
	int compact = ust_event_header_is_compact(id, ts, p->prev_ts);

	p->len += ust_event_header_write(p->buf + p->len, compact, id, ts);
	p->prev_ts = ts;
	return compact;
}

static void pkt_put(struct packet *p, const void *v, size_t n)
{
	memcpy(p->buf + p->len, v, n);
	p->len += n;
}

#define PUT(p, type, v) do { type _v = (v); pkt_put(p, &_v, sizeof(_v)); } while (0)

static void pkt_end(struct packet *p)
{
	ust_put_u64(p->buf + UST_PKT_TIMESTAMP_END, p->prev_ts);
	ust_put_u64(p->buf + UST_PKT_CONTENT_SIZE, p->len * 8);
	ust_put_u64(p->buf + UST_PKT_PACKET_SIZE, p->len * 8);
}

static int write_file(const char *dir, const char *name, const char *data, size_t len,
		      int append)
{
	char path[4096];
	int fd, ret = -1;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0600);
	if (fd < 0)
		return -1;
	if (write(fd, data, len) == (ssize_t)len)
		ret = 0;
	close(fd);
	return ret;
}

/* Reads up to 64 KiB of path into one of two buffers (by slot). */
static const char *read_file(const char *path, int slot)
{
	static char bufs[2][65536];
	char *buf = bufs[slot];
	ssize_t n = -1;
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		n = read(fd, buf, sizeof(bufs[0]) - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static int count_lines(const char *text)
{
	int lines = 0;

	for (; *text; text++)
		lines += *text == '\n';
	return lines;
}

/*
 * Runs babeltrace2 on dir with TZ=UTC, its output in dir/../out and
 * dir/../err. Returns its exit code, 127 when it cannot be run, or 128 plus
 * the signal that ended it (SIGALRM after a minute: the reader hangs on some
 * malformed traces).
 */
static int run_babeltrace(const char *dir, const char *out, const char *err)
{
	const char *bt = getenv("BABELTRACE2");
	int status;
	pid_t pid;

	if (!bt || !*bt)
		bt = "babeltrace2";
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
			_exit(126);
		setenv("TZ", "UTC", 1);
		alarm(60);
		execlp(bt, bt, dir, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static int has_error_line(const char *err)
{
	return strstr(err, " E ") != NULL;
}

/* The payload part ("NAME: { cpu_id = 0 }, { ... }") of the line printing name. */
static const char *find_event(const char *out, const char *name, int nth)
{
	static char line[2048];
	char key[128];
	const char *p = out;

	snprintf(key, sizeof(key), ") %s: ", name);
	while ((p = strstr(p, key))) {
		const char *end = strchr(p, '\n');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (nth-- == 0) {
			n -= 2;
			if (n >= sizeof(line))
				n = sizeof(line) - 1;
			memcpy(line, p + 2, n);
			line[n] = '\0';
			return line;
		}
		p += strlen(key);
	}
	return "(not printed)";
}

static int check_event(const char *out, const char *name, int nth, const char *expected)
{
	const char *got = find_event(out, name, nth);
	int ok = !strcmp(got, expected);

	tap_ok(ok, "babeltrace2 prints %s #%d exactly", name, nth);
	if (!ok)
		tap_diag("expected: %s\n#      got: %s", expected, got);
	return ok;
}

static int build_metadata(struct ustcomm_strbuf *sb, const char *hostname)
{
	struct ustcomm_trace_info info = {
		.hostname = hostname,
		.procname = "app",
		.vpid = 4242,
		.trace_name = "unit",
		.clock = &test_clock,
	};
	int ret = 0;

	memcpy(info.uuid, trace_uuid, 16);
	ret |= ustcomm_metadata_trace(sb, &info);
	ret |= ustcomm_metadata_stream(sb, 0, "chan", NULL);
	ret |= ustcomm_metadata_stream(sb, 1, "chan2", NULL);
	ret |= ustcomm_metadata_event(sb, 0, 1, "prov:ints", 13, ints_fields,
				      UST_ARRAY_SIZE(ints_fields));
	ret |= ustcomm_metadata_event(sb, 0, 2, "prov:misc", 13, misc_fields,
				      UST_ARRAY_SIZE(misc_fields));
	ret |= ustcomm_metadata_event(sb, 0, 40, "prov:big_id", 13, one_u32, 1);
	ret |= ustcomm_metadata_event(sb, 0, 3, "prov:empty", 13, NULL, 0);
	ret |= ustcomm_metadata_event(sb, 1, 0, "other:ev", 13, one_u32, 1);
	return ret;
}

/* Writes chan_0 and chan2_0; returns how many events used the compact header. */
static int build_streams(const char *dir)
{
	static struct packet p;
	int compact = 0;
	float f = 1.5f;
	double d = -2.25;

	pkt_begin(&p, 0);
	compact += pkt_event(&p, 1, 1010);
	PUT(&p, int8_t, -128);
	PUT(&p, uint8_t, 255);
	PUT(&p, int16_t, -32768);
	PUT(&p, uint16_t, 65535);
	PUT(&p, int32_t, INT32_MIN);
	PUT(&p, uint32_t, 4000000000u);
	PUT(&p, int64_t, INT64_MIN);
	PUT(&p, uint64_t, UINT64_MAX);
	PUT(&p, uint32_t, 0xdeadbeefu);
	PUT(&p, uint8_t, 7);

	compact += pkt_event(&p, 2, 1020);
	pkt_put(&p, &f, 4);
	pkt_put(&p, &d, 8);
	pkt_put(&p, "h\xc3\xa9llo", 7);
	PUT(&p, uint16_t, 1);
	PUT(&p, uint16_t, 2);
	PUT(&p, uint16_t, 65535);
	PUT(&p, uint8_t, 2);
	PUT(&p, int32_t, -1);
	PUT(&p, int32_t, 123456);
	PUT(&p, uint32_t, 3);
	pkt_put(&p, "\x0a\xff\x00", 3);

	compact += pkt_event(&p, 40, 1030);
	PUT(&p, uint32_t, 40);
	compact += pkt_event(&p, 3, 1031);
	/* More than 2^27 ticks later: extended header although id <= 30. */
	compact += pkt_event(&p, 1, 1031 + (1u << 27) + 5);
	PUT(&p, int8_t, 1);
	PUT(&p, uint8_t, 2);
	PUT(&p, int16_t, 3);
	PUT(&p, uint16_t, 4);
	PUT(&p, int32_t, 5);
	PUT(&p, uint32_t, 6);
	PUT(&p, int64_t, 7);
	PUT(&p, uint64_t, 8);
	PUT(&p, uint32_t, 0);
	PUT(&p, uint8_t, 9);
	/* Declared only by the block appended after the data was written. */
	compact += pkt_event(&p, 41, p.prev_ts + 1);
	pkt_put(&p, "late", 5);
	pkt_end(&p);
	if (write_file(dir, "chan_0", p.buf, p.len, 0))
		return -1;

	pkt_begin(&p, 1);
	compact += pkt_event(&p, 0, 1500);
	PUT(&p, uint32_t, 77);
	pkt_end(&p);
	if (write_file(dir, "chan2_0", p.buf, p.len, 0))
		return -1;
	return compact;
}

static const char *expected_ints0 =
	"prov:ints: { cpu_id = 0 }, { s8 = -128, u8 = 255, s16 = -32768, u16 = 65535, "
	"s32 = -2147483648, u32 = 4000000000, s64 = -9223372036854775808, "
	"u64 = 18446744073709551615, hex = 0xDEADBEEF, _under = 7 }";
static const char *expected_ints1 =
	"prov:ints: { cpu_id = 0 }, { s8 = 1, u8 = 2, s16 = 3, u16 = 4, s32 = 5, u32 = 6, "
	"s64 = 7, u64 = 8, hex = 0x0, _under = 9 }";
static const char *expected_misc =
	"prov:misc: { cpu_id = 0 }, { f = 1.5, d = -2.25, string = \"h\xc3\xa9llo\", "
	"arr = [ [0] = 1, [1] = 2, [2] = 65535 ], _event_length = 2, "
	"event = [ [0] = -1, [1] = 123456 ], _hseq_length = 3, "
	"hseq = [ [0] = 0xA, [1] = 0xFF, [2] = 0x0 ] }";

static void test_reader(const char *tmp)
{
	struct ustcomm_strbuf sb = USTCOMM_STRBUF_INIT, late = USTCOMM_STRBUF_INIT;
	static const struct ust_field_desc late_fields[] = {
		{ .name = "s", .kind = UST_FIELD_STRING },
	};
	char dir[4096], out[4096], err[4096];
	const char *text, *errtext;
	int rc, compact;

	snprintf(dir, sizeof(dir), "%s/trace", tmp);
	snprintf(out, sizeof(out), "%s/out", tmp);
	snprintf(err, sizeof(err), "%s/err", tmp);
	mkdir(dir, 0700);

	tap_ok(build_metadata(&sb, "probe-host") == 0, "metadata generated");
	tap_ok(sb.len > 13 && !memcmp(sb.buf, "/* CTF 1.8 */", 13), "signature at byte 0");
	tap_ok(strstr(sb.buf, "\t\tinteger { size = 32; align = 8; signed = false; encoding = none; base = 16; } _hex;\n") != NULL,
	       "hex integer declared with base 16 and an underscore");
	tap_ok(strstr(sb.buf, " __event_length;\n") &&
	       strstr(sb.buf, " _event[__event_length];\n"),
	       "sequence declares its length field");
	tap_ok(strstr(sb.buf, "\ttracer_major = 0;\n\ttracer_minor = 1;\n") != NULL,
	       "tracer version from ust/version.h");
	tap_ok(write_file(dir, "metadata", sb.buf, sb.len, 0) == 0, "metadata written");
	compact = build_streams(dir);
	tap_ok(compact == 4, "stream files written, 4 compact and 3 extended headers (%d)",
	       compact);

	rc = run_babeltrace(dir, out, err);
	if (rc == 127) {
		int i;

		for (i = 0; i < 20; i++)
			tap_ok(1, "babeltrace2 check # SKIP babeltrace2 not found");
		goto end;
	}
	errtext = read_file(err, 1);
	tap_ok(rc == 1 && strstr(errtext, "event-class-id=41"),
	       "undeclared event id 41 is refused before the append (rc %d)", rc);

	tap_ok(ustcomm_metadata_event(&late, 0, 41, "prov:late", 13, late_fields, 1) == 0,
	       "late event block generated");
	tap_ok(write_file(dir, "metadata", late.buf, late.len, 1) == 0,
	       "late event block appended after the data");

	rc = run_babeltrace(dir, out, err);
	text = read_file(out, 0);
	errtext = read_file(err, 1);
	tap_ok(rc == 0, "babeltrace2 exit code 0 (%d)", rc);
	tap_ok(!has_error_line(errtext), "no error lines on stderr");
	if (has_error_line(errtext) || rc)
		tap_diag("stderr: %s", errtext);
	check_event(text, "prov:ints", 0, expected_ints0);
	check_event(text, "prov:ints", 1, expected_ints1);
	check_event(text, "prov:misc", 0, expected_misc);
	check_event(text, "prov:big_id", 0, "prov:big_id: { cpu_id = 0 }, { v = 40 }");
	check_event(text, "prov:empty", 0, "prov:empty: { cpu_id = 0 }, { }");
	check_event(text, "prov:late", 0, "prov:late: { cpu_id = 0 }, { s = \"late\" }");
	check_event(text, "other:ev", 0, "other:ev: { cpu_id = 0 }, { v = 77 }");
	tap_ok(strstr(text, "[22:13:20.000001010] (+?.????????\?) probe-host:app:(4242) prov:ints:") != NULL,
	       "first event: time from the clock offset, host, procname, vpid");
	tap_ok(strstr(text, "[22:13:20.000001500] (+0.000000469) probe-host:app:(4242) other:ev:") != NULL,
	       "second stream merged by time");
	tap_ok(strstr(text, "[22:13:20.134218764] (+0.134217264) probe-host:app:(4242) prov:ints:") != NULL,
	       "extended header after a 2^27 gap keeps the full time");
	tap_ok(strstr(text, "[22:13:20.000001030] (+0.000000010) probe-host:app:(4242) prov:big_id:") != NULL,
	       "event id above 30 through the extended header");
	tap_ok(count_lines(text) == 7, "7 events printed (%d)", count_lines(text));

	/* A quote, a backslash or a control character must not end the string. */
	ustcomm_strbuf_reset(&sb);
	tap_ok(build_metadata(&sb, "ho\"st\\x\ty") == 0 &&
	       strstr(sb.buf, "hostname = \"ho\\\"st\\\\x\\011y\";") != NULL,
	       "hostname escaped in the metadata");
	write_file(dir, "metadata", sb.buf, sb.len, 0);
	write_file(dir, "metadata", late.buf, late.len, 1);
	rc = run_babeltrace(dir, out, err);
	text = read_file(out, 0);
	errtext = read_file(err, 1);
	tap_ok(rc == 0 && strstr(text, ") ho\"st\\x\ty:app:(4242) prov:ints:") != NULL,
	       "escaped hostname read back unchanged (rc %d)", rc);
	tap_ok(!has_error_line(errtext), "no error lines with the escaped hostname");
end:
	ustcomm_strbuf_free(&sb);
	ustcomm_strbuf_free(&late);
}

static void test_rejects(void)
{
	struct ustcomm_strbuf sb = USTCOMM_STRBUF_INIT;
	struct ust_field_desc bad;
	int ok;

	tap_ok(ustcomm_metadata_valid_identifier("a") &&
	       ustcomm_metadata_valid_identifier("_x9") &&
	       ustcomm_metadata_valid_identifier("Abc_12"),
	       "valid identifiers accepted");
	tap_ok(!ustcomm_metadata_valid_identifier("") &&
	       !ustcomm_metadata_valid_identifier("9a") &&
	       !ustcomm_metadata_valid_identifier("a-b") &&
	       !ustcomm_metadata_valid_identifier("a b") &&
	       !ustcomm_metadata_valid_identifier("a:b") &&
	       !ustcomm_metadata_valid_identifier("\xc3\xa9") &&
	       !ustcomm_metadata_valid_identifier(NULL),
	       "invalid identifiers refused");

	ustcomm_strbuf_printf(&sb, "x");
	bad = (struct ust_field_desc)F_INT("bad name", 4, 0, 10);
	ok = ustcomm_metadata_event(&sb, 0, 5, "p:e", 13, &bad, 1) == -EINVAL;
	bad = (struct ust_field_desc)F_INT("n", 3, 0, 10);
	ok &= ustcomm_metadata_event(&sb, 0, 5, "p:e", 13, &bad, 1) == -EINVAL;
	bad = (struct ust_field_desc)F_INT("n", 4, 0, 7);
	ok &= ustcomm_metadata_event(&sb, 0, 5, "p:e", 13, &bad, 1) == -EINVAL;
	bad = (struct ust_field_desc){ .name = "n", .kind = UST_FIELD_FLOAT, .size = 2 };
	ok &= ustcomm_metadata_event(&sb, 0, 5, "p:e", 13, &bad, 1) == -EINVAL;
	bad = (struct ust_field_desc){ .name = "n", .kind = UST_FIELD_SEQUENCE, .size = 4,
				       .base = 10, .len_size = 3 };
	ok &= ustcomm_metadata_event(&sb, 0, 5, "p:e", 13, &bad, 1) == -EINVAL;
	bad = (struct ust_field_desc){ .name = "n", .kind = 9, .size = 4, .base = 10 };
	ok &= ustcomm_metadata_event(&sb, 0, 5, "p:e", 13, &bad, 1) == -EINVAL;
	tap_ok(ok, "bad fields refused with -EINVAL");
	tap_ok(sb.len == 1 && !strcmp(sb.buf, "x"), "nothing written for a refused event");
	ustcomm_strbuf_free(&sb);
}

static void test_clock_describe(void)
{
	struct ustcomm_clock_desc desc;
	struct timespec rt, mono;
	uint8_t boot[16];
	char text[64], *p;
	int64_t expect, got;
	int i, ret, n = 0;

	/* The TSC clock has its own checks; this one is about the fallback's offset. */
	setenv("UST_CLOCK", "monotonic", 1);
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	ret = ustcomm_clock_describe(&desc);
	tap_ok(ret == 0 && !strcmp(desc.name, "monotonic") && desc.freq == 1000000000u &&
	       desc.offset < 1000000000u, "clock described in ns");
	expect = ((int64_t)rt.tv_sec - mono.tv_sec) * 1000000000 + (rt.tv_nsec - mono.tv_nsec);
	got = desc.offset_s * 1000000000 + (int64_t)desc.offset;
	tap_ok(llabs(got - expect) < 10000000, "clock offset is realtime - monotonic (off by %lld ns)",
	       (long long)(got - expect));

	snprintf(text, sizeof(text), "%s", read_file("/proc/sys/kernel/random/boot_id", 0));
	for (p = text, i = 0; *p && i < 16; p++) {
		unsigned v;

		if (*p == '-')
			continue;
		if (sscanf(p, "%2x", &v) != 1)
			break;
		boot[i++] = (uint8_t)v;
		p++;
		n++;
	}
	tap_ok(n == 16 && !memcmp(boot, desc.uuid, 16), "clock uuid is the boot id");
}

int main(void)
{
	char tmpl[] = "/tmp/test_metadata.XXXXXX";
	char cmd[128];

	tap_plan(NR_TESTS);
	if (!mkdtemp(tmpl)) {
		perror("mkdtemp");
		return 1;
	}
	test_reader(tmpl);
	test_rejects();
	test_clock_describe();
	if (!tap_failed) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
		if (system(cmd) != 0)
			tap_diag("could not remove %s", tmpl);
	} else {
		tap_diag("trace kept in %s", tmpl);
	}
	return tap_done();
}
