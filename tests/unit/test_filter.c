/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Filters end to end inside one process: the compiler (every operator,
 * precedence, literals, errors and their columns), the validator on
 * hand-made hostile programs, the linker's type checks, and the
 * interpreter's answers; then random mutations of valid programs, which
 * the validator must refuse or the interpreter run safely (under the
 * sanitizers in the sanitize build).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libust/context.h"
#include "libust/filter.h"
#include "libustcomm/filter_compile.h"
#include "tests/unit/tap.h"

enum { F_A, F_B, F_D, F_S, F_N, NR_FIELDS };

static const struct ust_filter_field fields[NR_FIELDS] = {
	[F_A] = { "a", UST_FTYPE_S64 },
	[F_B] = { "b", UST_FTYPE_S64 },
	[F_D] = { "d", UST_FTYPE_DOUBLE },
	[F_S] = { "s", UST_FTYPE_STRING },
	[F_N] = { "n", UST_FTYPE_NONE },
};

/* Compiles without fields (as usttrace does), links, runs on args: 1, 0, or -1 on error. */
static int eval(const char *expr, const union ust_filter_arg *args)
{
	struct ust_filter_error err;
	struct {
		struct ust_filter_prog p;
		uint8_t bytes[UST_FILTER_CODE_MAX + UST_FILTER_DATA_MAX + 64];
	} linked;
	struct {
		struct ust_event_filters f;
		const struct ust_filter_prog *progs[1];
	} set = { .f.nr = 1, .progs = { &linked.p } };
	const struct ust_filter_header *hdr;
	void *prog = NULL;
	size_t len;
	int ret = -1;

	if (ust_filter_compile(expr, NULL, 0, &prog, &len, &err) < 0) {
		tap_diag("%s: column %u: %s", expr, err.offset, err.text);
		goto end;
	}
	if (ust_filter_link(prog, len, fields, NR_FIELDS, linked.bytes, &err) < 0) {
		tap_diag("%s: link: %s", expr, err.text);
		goto end;
	}
	hdr = (const struct ust_filter_header *)linked.bytes;
	linked.p.code_len = hdr->code_len;
	linked.p.code = linked.bytes + sizeof(*hdr);
	linked.p.data = (const char *)linked.p.code + hdr->code_len;
	ret = ust_filters_pass(&set.f, args, NULL);
end:
	free(prog);
	return ret;
}

#define ARGS(a_, b_, d_, s_) \
	(const union ust_filter_arg[NR_FIELDS]){ { .s64 = (a_) }, { .s64 = (b_) }, \
		{ .dbl = (d_) }, { .str = (s_) }, { .s64 = 0 } }

#define IS(expr, args, want) \
	tap_ok(eval(expr, args) == (want), "%s -> %d", expr, want)

/* The compiler refuses expr at column col, with a reason containing what. */
static void refused(const char *expr, int with_fields, unsigned col, const char *what)
{
	struct ust_filter_error err;
	void *prog = NULL;
	size_t len;
	int ret = ust_filter_compile(expr, with_fields ? fields : NULL,
				     with_fields ? NR_FIELDS : 0, &prog, &len, &err);

	tap_ok(ret == -EINVAL && err.offset == col && strstr(err.text, what),
	       "'%s' refused at column %u: %s (got %d, column %u: %s)", expr, col, what, ret,
	       err.offset, err.text);
	free(prog);
}

/* The compiler accepts expr with a warning at column col containing what. */
static void warned(const char *expr, int with_fields, unsigned col, const char *what)
{
	struct ust_filter_error err;
	void *prog = NULL;
	size_t len;
	int ret = ust_filter_compile(expr, with_fields ? fields : NULL,
				     with_fields ? NR_FIELDS : 0, &prog, &len, &err);

	tap_ok(ret == 1 && prog && err.offset == col && strstr(err.text, what),
	       "'%s' compiled with a warning at column %u: %s (got %d, column %u: %s)", expr, col,
	       what, ret, err.offset, err.text);
	free(prog);
}

/* The inode of the calling thread's namespace, as $ctx.NAME_ns reads it. */
static int64_t ns_inode(const char *name)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/thread-self/ns/%s", name);
	return stat(path, &st) ? 0 : (int64_t)st.st_ino;
}

/* What LTTng's language has beyond the comparisons (issue 24, part 3). */
static void lttng_language(void)
{
	char chain[UST_FILTER_TEXT_MAX];
	size_t n = 0;
	int i;

	/* Bitwise operators bind tighter than comparisons, as in LTTng's grammar. */
	IS("a & 3 == 1", ARGS(5, 0, 0, ""), 1);
	IS("a & 3 == 1", ARGS(4, 0, 0, ""), 0);
	IS("a | 8 == 9", ARGS(1, 0, 0, ""), 1);
	IS("a ^ 1 == 4", ARGS(5, 0, 0, ""), 1);
	IS("a | 1 ^ 3 & 6 == 3", ARGS(0, 0, 0, ""), 1);
	IS("a << 2 == 20 && a >> 1 == 2", ARGS(5, 0, 0, ""), 1);
	IS("1 << 3 + 0 == 8", ARGS(0, 0, 0, ""), -1);
	IS("-1 >> 60 == 15", ARGS(0, 0, 0, ""), 1);
	IS("a << b == 0", ARGS(1, 63, 0, ""), 0);
	IS("a << b < 0", ARGS(1, 63, 0, ""), 1);
	/* A shift count outside 0..63 ends the filter with "no", even under ||. */
	IS("a << b == 0 || 1", ARGS(1, 64, 0, ""), 0);
	IS("a >> b == 0 || 1", ARGS(1, -1, 0, ""), 0);
	IS("1 || a << b", ARGS(1, 64, 0, ""), 1);
	IS("~a == -6", ARGS(5, 0, 0, ""), 1);
	IS("~~a == a", ARGS(-77, 0, 0, ""), 1);
	IS("+a == 5 && +5 == a && -+a == -5", ARGS(5, 0, 0, ""), 1);
	IS("+d == 0.5", ARGS(0, 0, 0.5, ""), 1);
	/* Integers up to 2^64 - 1 hold their 64 bits as a signed value. */
	IS("a == 0xffffffffffffffff", ARGS(-1, 0, 0, ""), 1);
	IS("a == 18446744073709551615", ARGS(-1, 0, 0, ""), 1);
	IS("a == 9223372036854775808", ARGS(INT64_MIN, 0, 0, ""), 1);
	IS("a == -9223372036854775808", ARGS(INT64_MIN, 0, 0, ""), 1);
	IS("a == 10u && b == 0x10UL && 7llu == 7 && 0lu == 0 && 017Ull == 15", ARGS(10, 16, 0, ""), 1);
	/* Character constants are strings, as in LTTng; the L prefix is allowed. */
	IS("s == 'abc' && s == L\"abc\" && s != 'ab'", ARGS(0, 0, 0, "abc"), 1);
	/* UST's escapes \n and \t; a raw newline inside a literal is dropped, as LTTng's lexer does. */
	IS("s == \"a\\nb\"", ARGS(0, 0, 0, "a\nb"), 1);
	IS("s == \"a\\tb\"", ARGS(0, 0, 0, "a\tb"), 1);
	IS("s == \"a\nb\"", ARGS(0, 0, 0, "ab"), 1);
	refused("s == \"a\\\nb\"", 0, 8, "unsupported escape");
	refused("s == \"a\\qb\"", 0, 8, "unsupported escape");
	/* C comments are white space; one left open runs to the end. */
	IS("a /* the value */ == 5 // done", ARGS(5, 0, 0, ""), 1);
	IS("a == 5 /* open", ARGS(5, 0, 0, ""), 1);
	IS("a == // to the end of the line\n 5", ARGS(5, 0, 0, ""), 1);
	/* Floats: suffixes, a trailing dot, hexadecimal ones. */
	IS("d == 0x1.8p1 && 0x1p-2 == 0.25 && 1.5f == 1.5 && 1e2L == 100 && 2. == 2 && .5e1 == 5",
	   ARGS(0, 0, 3.0, ""), 1);
	IS("d == 0x.8", ARGS(0, 0, 0.5, ""), 1);
	/* Strings order as signed chars; a literal's final '*' ends the comparison. */
	IS("s < \"abd\" && s > \"ab\" && s >= \"abc\" && s <= \"abc\"", ARGS(0, 0, 0, "abc"), 1);
	IS("s < \"ab*\"", ARGS(0, 0, 0, "abc"), 0);
	IS("s <= \"ab*\" && s >= \"ab*\"", ARGS(0, 0, 0, "abc"), 1);
	IS("s < \"ab*\"", ARGS(0, 0, 0, "aa"), 1);
	IS("s > \"ab*\"", ARGS(0, 0, 0, "b"), 1);
	IS("\"ab*\" < s", ARGS(0, 0, 0, "b"), 1);
	IS("s < \"a\\*\"", ARGS(0, 0, 0, "a+"), 0);
	IS("s < \"a\"", ARGS(0, 0, 0, "\xc3\xa9"), 1);
	IS("s > \"\" && \"\" < s", ARGS(0, 0, 0, "\xc3\xa9"), 1);
	IS("\"b\" > \"a\"", ARGS(0, 0, 0, ""), 1);
	/* A double as a truth value is truncated to an integer, as LTTng-UST casts it. */
	IS("d && 1", ARGS(0, 0, 0.5, ""), 0);
	IS("d && 1", ARGS(0, 0, 1.5, ""), 1);
	IS("d && 1", ARGS(0, 0, -1.0, ""), 1);
	IS("1 && d", ARGS(0, 0, 0.99, ""), 0);
	IS("d || 0", ARGS(0, 0, 0.9, ""), 0);
	IS("a || d", ARGS(0, 0, 0.9, ""), 0);
	IS("a || d", ARGS(0, 0, -2.5, ""), 1);
	IS("0.5 && 1", ARGS(0, 0, 0, ""), 0);
	IS("!d", ARGS(0, 0, 0.5, ""), 0);
	IS("d", ARGS(0, 0, 0.5, ""), -1);
	IS("-d", ARGS(0, 0, 2.0, ""), -1);
	/* Contexts: LTTng-UST's statically known ones, and ip. */
	IS("$ctx.cpu_id >= 0 && $ctx.cpu_id < 4096", ARGS(0, 0, 0, ""), 1);
	IS("$ctx.vuid == a && $ctx.veuid == a && $ctx.vsuid == a", ARGS(getuid(), 0, 0, ""), 1);
	IS("$ctx.vgid == a && $ctx.vegid == a && $ctx.vsgid == a", ARGS(getgid(), 0, 0, ""), 1);
	IS("$ctx.net_ns == a", ARGS(ns_inode("net"), 0, 0, ""), 1);
	IS("$ctx.pid_ns == a && $ctx.mnt_ns != 0 && $ctx.uts_ns != 0 && $ctx.ipc_ns != 0",
	   ARGS(ns_inode("pid"), 0, 0, ""), 1);
	IS("$ctx.user_ns == a && $ctx.cgroup_ns == b", ARGS(ns_inode("user"), ns_inode("cgroup"), 0, ""), 1);
	IS("$ctx.time_ns == a", ARGS(ns_inode("time"), 0, 0, ""), 1);
	IS("$ctx.ip == 0", ARGS(0, 0, 0, ""), 1);
	IS("$ctx . vtid == a", ARGS(syscall(SYS_gettid), 0, 0, ""), 1);
	/* What the program lacks: accepted, said, and false when linked. */
	warned("$ctx.nope == 1", 0, 1, "no context '$ctx.nope'");
	warned("$app.java:ctx == 1", 0, 1, "no application context '$app.java:ctx'");
	warned("nosuch == 1 || a == 1", 1, 1, "no field 'nosuch'");
	warned("a == 1 && zz", 1, 11, "no field 'zz'");
	/* An $app context fails where it is read, as in LTTng-UST without an agent. */
	IS("$app.java:ctx == 1 || 1", ARGS(0, 0, 0, ""), 0);
	IS("1 || $app.java:ctx == 1", ARGS(0, 0, 0, ""), 1);
	IS("a > 1 || $app.java:ctx == 1", ARGS(2, 0, 0, ""), 1);
	IS("a > 1 || $app.java:ctx == \"x\"", ARGS(0, 0, 0, ""), 0);
	/* Long || chains, beyond LTTng-UST 2.13's 1024 characters of UST before. */
	for (i = 0; i < 400 && n + 32 < sizeof(chain); i++)
		n += (size_t)snprintf(chain + n, sizeof(chain) - n, "%sa == %d", i ? " || " : "", i * 3);
	tap_ok(n > 4000, "a chain of %d comparisons, %zu characters", i, n);
	IS(chain, ARGS(3 * 250, 0, 0, ""), 1);
	IS(chain, ARGS(3 * 250 + 1, 0, 0, ""), 0);

	refused("d & 1", 1, 3, "bitwise operators take integers, not a float");
	refused("a & 1.5", 0, 3, "not a float");
	refused("s | 1", 1, 3, "not a string");
	refused("1 ^ \"x\"", 0, 3, "not a string");
	refused("~d == 1", 1, 1, "'~' needs an integer");
	refused("~\"x\"", 0, 1, "needs a number");
	refused("a + 1 == 2", 0, 3, "arithmetic");
	refused("a * 2 == 2", 0, 3, "arithmetic");
	refused("a % 2 == 0", 0, 3, "arithmetic");
	refused("a.b == 1", 0, 2, "nested fields");
	refused("a[0] == 1", 0, 2, "nested fields");
	refused("a->b == 1", 0, 2, "nested fields");
	refused("d", 1, 1, "a float, not a condition");
	refused("1.5", 0, 1, "a float, not a condition");
	refused("-d", 1, 1, "a float, not a condition");
	refused("a == 1x", 0, 6, "invalid number");
	refused("a == 10uu", 0, 6, "invalid number");
	refused("a == 10Ll", 0, 6, "invalid number");
	refused("a == 0x", 0, 6, "invalid number");
	refused("a == 18446744073709551616", 0, 6, "does not fit in 64 bits");
	refused("$ctx == 1", 0, 1, "expected '.'");
	refused("$ctx. == 1", 0, 7, "expected a name");
	/* Filters are UTF-8 text: XML session files must hold them. */
	refused("s == \"\xed\xa0\x80\"", 0, 7, "invalid UTF-8 at byte offset 6");
	refused("s == \"\xe0\x80\xaf\"", 0, 7, "invalid UTF-8 at byte offset 6");
	refused("s == \"ok\xf4\x90\x80\x80\"", 0, 9, "invalid UTF-8 at byte offset 8");
	refused("s == \"\xc3\"", 0, 7, "invalid UTF-8 at byte offset 6");
	refused("s == \"\x01\"", 0, 7, "control character 0x01 at byte offset 6");
	IS("s == \"\xc3\xa9t\xc3\xa9\"", ARGS(0, 0, 0, "\xc3\xa9t\xc3\xa9"), 1);
}

static void compiler(void)
{
	IS("a == 5", ARGS(5, 0, 0, ""), 1);
	IS("a == 5", ARGS(4, 0, 0, ""), 0);
	IS("a != 5", ARGS(4, 0, 0, ""), 1);
	IS("a < 5", ARGS(4, 0, 0, ""), 1);
	IS("a < 5", ARGS(5, 0, 0, ""), 0);
	IS("a <= 5", ARGS(5, 0, 0, ""), 1);
	IS("a > 5", ARGS(5, 0, 0, ""), 0);
	IS("a >= 5", ARGS(5, 0, 0, ""), 1);
	IS("a >= 500 && a < 600", ARGS(599, 0, 0, ""), 1);
	IS("a >= 500 && a < 600", ARGS(600, 0, 0, ""), 0);
	IS("a == 1 || a == 2", ARGS(2, 0, 0, ""), 1);
	IS("a == 1 || a == 2", ARGS(3, 0, 0, ""), 0);
	/* && binds tighter than ||, comparisons tighter than both. */
	IS("a == 1 || a == 2 && b == 3", ARGS(1, 0, 0, ""), 1);
	IS("(a == 1 || a == 2) && b == 3", ARGS(1, 0, 0, ""), 0);
	IS("a == 2 && b == 3 || a == 1", ARGS(1, 0, 0, ""), 1);
	/* Relations tighter than equality, both left-associative. */
	IS("a < 2 == 1", ARGS(1, 0, 0, ""), 1);
	IS("a == 1 == 0", ARGS(2, 0, 0, ""), 1);
	IS("!a", ARGS(0, 0, 0, ""), 1);
	IS("!(a == 1)", ARGS(1, 0, 0, ""), 0);
	IS("!!a", ARGS(7, 0, 0, ""), 1);
	IS("a", ARGS(7, 0, 0, ""), 1);
	IS("-a < 0", ARGS(3, 0, 0, ""), 1);
	IS("a < -3", ARGS(-4, 0, 0, ""), 1);
	IS("a == -9223372036854775807", ARGS(-9223372036854775807LL, 0, 0, ""), 1);
	IS("a == 0x10 && b == 010", ARGS(16, 8, 0, ""), 1);
	IS("d > 0.5", ARGS(0, 0, 0.75, ""), 1);
	IS("d > .5", ARGS(0, 0, 0.25, ""), 0);
	IS("d == 1", ARGS(0, 0, 1.0, ""), 1);
	IS("a < 1.5", ARGS(1, 0, 0, ""), 1);
	IS("1e3 == a", ARGS(1000, 0, 0, ""), 1);
	IS("-d == -2.5", ARGS(0, 0, 2.5, ""), 1);
	IS("d", ARGS(0, 0, 0.5, ""), -1);
	IS("!d", ARGS(0, 0, 0.0, ""), 1);
	IS("d && a", ARGS(1, 0, 0.5, ""), 0);
	IS("d && a", ARGS(1, 0, 1.5, ""), 1);
	IS("d || a", ARGS(0, 0, 0.0, ""), 0);
	IS("s == \"abc\"", ARGS(0, 0, 0, "abc"), 1);
	IS("s == \"abc\"", ARGS(0, 0, 0, "abcd"), 0);
	IS("s != \"abc\"", ARGS(0, 0, 0, "abd"), 1);
	IS("s == \"/api*\"", ARGS(0, 0, 0, "/api/v1"), 1);
	IS("s == \"/api*\"", ARGS(0, 0, 0, "/static"), 0);
	IS("s == \"*.html\"", ARGS(0, 0, 0, "/a/b.html"), 1);
	IS("s == \"a*b*c\"", ARGS(0, 0, 0, "axxbyyc"), 1);
	IS("s == \"a*b*c\"", ARGS(0, 0, 0, "axxbyy"), 0);
	IS("\"*x\" == s", ARGS(0, 0, 0, "yx"), 1);
	IS("s == \"a\\*c\"", ARGS(0, 0, 0, "a*c"), 1);
	IS("s == \"a\\*c\"", ARGS(0, 0, 0, "abc"), 0);
	IS("s == \"a\\*\" || s == \"q\\\"\"", ARGS(0, 0, 0, "q\""), 1);
	IS("s != \"/api*\"", ARGS(0, 0, 0, "/static"), 1);
	IS("a == 1 || s == \"x\"", ARGS(1, 0, 0, "y"), 1);
	IS("$ctx.procname == \"test_filter\"", ARGS(0, 0, 0, ""), 1);
	IS("$ctx.vpid == a", ARGS(getpid(), 0, 0, ""), 1);
	IS("$ctx.vtid == a", ARGS(syscall(SYS_gettid), 0, 0, ""), 1);
	IS("$ctx.pthread_id != 0", ARGS(0, 0, 0, ""), 1);
	IS(" ( ( a ) ) == 1 ", ARGS(1, 0, 0, ""), 1);

	refused("", 0, 1, "empty");
	refused("   ", 0, 1, "empty");
	refused("a ==", 0, 5, "ends where a value is expected");
	refused("a = 1", 0, 3, "'=='");
	refused("(a == 1", 0, 8, "expected ')'");
	refused("a == 1)", 0, 7, "unmatched ')'");
	refused("a == 1 b", 0, 8, "expected an operator");
	refused("a @ 1", 0, 3, "unexpected character");
	refused("\"abc", 0, 1, "not closed");
	refused("s == \"a\\x41\"", 0, 8, "unsupported escape");
	refused("a == 99999999999999999999", 0, 6, "does not fit");
	refused("a == 12ab", 0, 6, "invalid number");
	refused("a == 09", 0, 6, "invalid number");
	refused("$foo == 1", 0, 1, "$ctx.NAME");
	refused("s < \"a*b\"", 0, 3, "== and != only");
	refused("\"a*\" == \"b*\"", 0, 6, "two glob patterns");
	refused("\"a\" == 1", 0, 5, "cannot compare a string with an integer");
	refused("!\"a\"", 0, 1, "needs a number");
	refused("-\"a\"", 0, 1, "needs a number");
	refused("\"a\" && a", 0, 5, "conditions on both sides");
	refused("a || \"b\"", 0, 3, "conditions on both sides");
	refused("\"a\"", 0, 1, "not a condition");
	refused("$ctx.procname", 0, 1, "not a condition");
	refused("$ctx.vtid < \"x\"", 0, 11, "cannot compare");
	/* With the event's fields: names and types are known. */
	refused("n == 1", 1, 1, "array or a sequence");
	refused("a == \"x\"", 1, 3, "cannot compare an integer with a string");
	refused("s == 3.5", 1, 3, "cannot compare a string with a float");
	refused("!s", 1, 1, "needs a number");
	refused("s", 1, 1, "not a condition");
	lttng_language();
	{
		char big[UST_FILTER_TEXT_MAX + 8];

		memset(big, 'a', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		refused(big, 0, UST_FILTER_TEXT_MAX + 1, "longer than");
	}
}

/* A program from raw code and data, checked. */
static int check_raw(const uint8_t *code, uint32_t code_len, const char *data,
		     uint32_t data_len, struct ust_filter_error *err)
{
	uint8_t buf[256];
	struct ust_filter_header hdr = { UST_FILTER_MAGIC, UST_FILTER_VERSION, 0, code_len,
					 data_len };

	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + sizeof(hdr), code, code_len);
	memcpy(buf + sizeof(hdr) + code_len, data, data_len);
	return ust_filter_check(buf, sizeof(hdr) + code_len + data_len, err);
}

#define RAW_REFUSED(what, data, dlen, ...) \
	do { \
		static const uint8_t c[] = { __VA_ARGS__ }; \
		struct ust_filter_error e; \
		int r = check_raw(c, sizeof(c), data, dlen, &e); \
		tap_ok(r == -EINVAL && strstr(e.text, what), "hostile program refused: %s (%s)", \
		       what, e.text); \
	} while (0)

#define P1	UST_FOP_PUSH_S64, 1, 0, 0, 0, 0, 0, 0, 0

static void validator(void)
{
	struct ust_filter_error e;
	uint8_t prog[64];
	struct ust_filter_header hdr = { UST_FILTER_MAGIC, UST_FILTER_VERSION, 0, 10, 0 };
	static const uint8_t ok_code[] = { P1, UST_FOP_RETURN };

	tap_ok(check_raw(ok_code, sizeof(ok_code), "", 0, &e) == 0, "PUSH 1, RETURN passes");
	memcpy(prog, &hdr, sizeof(hdr));
	memcpy(prog + sizeof(hdr), ok_code, sizeof(ok_code));
	tap_ok(ust_filter_check(prog, sizeof(hdr) - 1, &e) == -EINVAL &&
	       strstr(e.text, "shorter than its header"), "a truncated header is refused");
	tap_ok(ust_filter_check(prog, sizeof(hdr) + 9, &e) == -EINVAL &&
	       strstr(e.text, "do not add up"), "lengths that do not add up are refused");
	hdr.magic++;
	memcpy(prog, &hdr, sizeof(hdr));
	tap_ok(ust_filter_check(prog, sizeof(hdr) + 10, &e) == -EINVAL &&
	       strstr(e.text, "version"), "a wrong magic is refused");
	RAW_REFUSED("invalid opcode", "", 0, 0xff, UST_FOP_RETURN);
	RAW_REFUSED("invalid opcode", "", 0, UST_FOP_LOAD_S64, 0, 0, UST_FOP_RETURN);
	RAW_REFUSED("invalid opcode", "", 0, UST_FOP_LOAD_CTX_ID, 1, 0, UST_FOP_RETURN);
	RAW_REFUSED("invalid opcode", "", 0, P1, UST_FOP_RETURN_DOUBLE);
	RAW_REFUSED("underflow", "", 0, UST_FOP_EQ, 0, UST_FOP_RETURN);
	RAW_REFUSED("underflow", "", 0, UST_FOP_RETURN);
	RAW_REFUSED("more than 16 stack slots", "", 0, P1, P1, P1, P1, P1, P1, P1, P1, P1, P1,
		    P1, P1, P1, P1, P1, P1, P1, UST_FOP_RETURN);
	RAW_REFUSED("forward", "", 0, P1, UST_FOP_AND, 0, 0, P1, UST_FOP_TO_BOOL, UST_FOP_RETURN);
	RAW_REFUSED("forward", "", 0, P1, UST_FOP_AND, 40, 0, P1, UST_FOP_TO_BOOL, UST_FOP_RETURN);
	RAW_REFUSED("inside an instruction", "", 0, P1, UST_FOP_AND, 13, 0, P1,
		    UST_FOP_TO_BOOL, UST_FOP_RETURN);
	RAW_REFUSED("different stacks", "", 0, P1, UST_FOP_AND, 30, 0, P1, P1, UST_FOP_RETURN);
	RAW_REFUSED("does not end with RETURN", "", 0, P1);
	RAW_REFUSED("last instruction is cut short", "", 0, P1, UST_FOP_AND, 0);
	RAW_REFUSED("one value on the stack", "", 0, P1, P1, UST_FOP_RETURN);
	RAW_REFUSED("must be the last", "", 0, P1, UST_FOP_RETURN, P1);
	RAW_REFUSED("outside the data", "ab", 2, UST_FOP_PUSH_STRING, 2, 0, UST_FOP_NOT,
		    UST_FOP_RETURN);
	RAW_REFUSED("outside the data", "ab", 2, UST_FOP_LOAD_FIELD, 0, 0, UST_FOP_RETURN);
	RAW_REFUSED("arrived linked", "", 0, P1, P1, UST_FOP_EQ, UST_FCMP_S64, UST_FOP_RETURN);
	RAW_REFUSED("not a condition", "a", 2, UST_FOP_PUSH_STRING, 0, 0, UST_FOP_RETURN);
	RAW_REFUSED("compared with a number", "a", 2, UST_FOP_PUSH_STRING, 0, 0, P1,
		    UST_FOP_EQ, 0, UST_FOP_RETURN);
	RAW_REFUSED("bitwise operators take integers, not a string", "a", 2, UST_FOP_PUSH_STRING,
		    0, 0, P1, UST_FOP_BIT_AND, UST_FOP_RETURN);
	RAW_REFUSED("bitwise operators take integers, not a float", "", 0,
		    UST_FOP_PUSH_DOUBLE, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, UST_FOP_BIT_NOT, UST_FOP_RETURN);
	RAW_REFUSED("underflow", "", 0, P1, UST_FOP_LSHIFT, UST_FOP_RETURN);
	RAW_REFUSED("invalid opcode", "", 0, P1, UST_FOP_NOP, UST_FOP_RETURN);
	RAW_REFUSED("invalid opcode", "", 0, UST_FOP_FAIL, 0, 0, UST_FOP_RETURN);
	RAW_REFUSED("not a condition", "a", 2, UST_FOP_PUSH_STRING, 0, 0, UST_FOP_PLUS,
		    UST_FOP_RETURN);
	{
		/* An unknown context passes the check, and fails the link. */
		static const uint8_t code[] = { UST_FOP_LOAD_CTX, 0, 0, UST_FOP_RETURN };
		uint8_t buf[64], out[64];
		struct ust_filter_header h = { UST_FILTER_MAGIC, UST_FILTER_VERSION, 0,
					       sizeof(code), 5 };

		memcpy(buf, &h, sizeof(h));
		memcpy(buf + sizeof(h), code, sizeof(code));
		memcpy(buf + sizeof(h) + sizeof(code), "nope", 5);
		tap_ok(ust_filter_check(buf, sizeof(h) + sizeof(code) + 5, &e) == 0,
		       "an unknown context passes the check as sent");
		tap_ok(ust_filter_link(buf, sizeof(h) + sizeof(code) + 5, fields, NR_FIELDS, out,
				       &e) == -ENOENT && strstr(e.text, "no context '$ctx.nope'"),
		       "and fails the link: %s", e.text);
	}
}

/* Linking checks the types the program could not know when it was sent. */
static void linker(void)
{
	static const char *const cases[][2] = {
		{ "nosuch == 1", "no field 'nosuch'" },
		{ "s < 3", "compared with a number" },
		{ "a == \"x\"", "compared with a number" },
		{ "!s", "not a condition" },
		{ "n == 1", "array or a sequence" },
		{ "d & 1 == 0", "take integers, not a float" },
		{ "~s == 0", "take integers, not a string" },
		{ "d", "a float is not a condition" },
		{ "+d", "a float is not a condition" },
	};
	uint8_t out[UST_FILTER_CODE_MAX + UST_FILTER_DATA_MAX + 64];
	struct ust_filter_error e;
	size_t i, len;
	void *prog;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r;

		prog = NULL;
		if (ust_filter_compile(cases[i][0], NULL, 0, &prog, &len, &e) < 0) {
			tap_ok(0, "%s compiles without fields", cases[i][0]);
			continue;
		}
		r = ust_filter_check(prog, len, &e);
		tap_ok(r == 0, "%s passes the check as sent", cases[i][0]);
		r = ust_filter_link(prog, len, fields, NR_FIELDS, out, &e);
		tap_ok(r < 0 && strstr(e.text, cases[i][1]), "%s refused at link: %s (%s)",
		       cases[i][0], cases[i][1], e.text);
		free(prog);
	}
}

/*
 * Mutations of valid programs: each one either fails the check or links
 * and runs to an answer. A wrong validator shows as a crash (or as an
 * ASan report in the sanitize build).
 */
static void mutations(void)
{
	static const char *const seeds[] = {
		"a >= 500 && a < 600 || s == \"/api*\"",
		"!(d > 0.5) && $ctx.vtid != 0 || -a < b",
		"\"x*\" == s || $ctx.procname != \"z\" && d",
		"(a & 0xff) << 2 >> b == ~3 || s < \"ab*\" && +d > 0x1p-3 || $ctx.cpu_id ^ a",
	};
	uint8_t out[UST_FILTER_CODE_MAX + UST_FILTER_DATA_MAX + 64];
	const union ust_filter_arg *args = ARGS(550, 3, 0.25, "/api/x");
	unsigned long tried = 0, linked = 0;
	struct ust_filter_error e;
	unsigned seed = 12345;
	size_t s, len;
	int i;

	for (s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
		void *prog = NULL;

		if (ust_filter_compile(seeds[s], NULL, 0, &prog, &len, &e) < 0)
			continue;
		for (i = 0; i < 40000; i++) {
			uint8_t *m = malloc(len);
			struct ust_filter_prog p;
			struct {
				struct ust_event_filters f;
				const struct ust_filter_prog *progs[1];
			} set = { .f.nr = 1, .progs = { &p } };
			int flips = 1 + (int)(rand_r(&seed) % 4), k;

			memcpy(m, prog, len);
			for (k = 0; k < flips; k++) {
				size_t at = sizeof(struct ust_filter_header) +
					(size_t)rand_r(&seed) % (len - sizeof(struct ust_filter_header));

				m[at] = (uint8_t)rand_r(&seed);
			}
			tried++;
			if (ust_filter_link(m, len, fields, NR_FIELDS, out, &e) == 0) {
				const struct ust_filter_header *hdr = (const void *)out;

				p.code_len = hdr->code_len;
				p.code = out + sizeof(*hdr);
				p.data = (const char *)p.code + hdr->code_len;
				ust_filters_pass(&set.f, args, NULL);
				linked++;
			}
			free(m);
		}
		free(prog);
	}
	tap_ok(tried == 160000, "%lu mutated programs checked, %lu linked and ran safely",
	       tried, linked);
}

int main(void)
{
	ust_ctx_init("test_filter");
	compiler();
	validator();
	linker();
	mutations();
	tap_plan(tap_count);
	return tap_failed ? 1 : 0;
}
