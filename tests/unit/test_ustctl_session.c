/* SPDX-License-Identifier: GPL-2.0-only */
/* Session files through the public API: write, read back, and refusals with
 * the line and the reason. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ust/ustctl.h>
#include "tests/unit/tap.h"

static char dir[] = "/tmp/test_ustctl_session.XXXXXX";

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static char *read_all(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

static void test_round_trip(void)
{
	struct ustctl_rule rules[] = {
		{ 1, "ust:*" }, { 0, "ust:tock" }, { 1, "other/count" },
	};
	struct ustctl_channel_conf channels[] = {
		{ "ust", 256u << 10, 8 }, { "other", 0, 0 }, { "big", 4u << 20, 0 },
	};
	struct ustctl_session out = { .output = "net://[::1]:7000:7001", .rules = rules,
				      .nr_rules = 3, .channels = channels, .nr_channels = 3 };
	struct ustctl_session *in = NULL;
	char path[256];
	int ret, same = 1;
	size_t i;

	path_of(path, sizeof(path), "round.xml");
	ret = ustctl_session_write(path, &out);
	tap_ok(ret == 0, "write a session (%d: %s)", ret, ustctl_last_error());
	tap_ok(strstr(read_all(path), "\n  <channel name=\"ust\" subbuf-size=\"256k\" subbuf-num=\"8\"/>") != NULL,
	       "the file is indented and sizes are written as users write them");
	ret = ustctl_session_read(path, &in);
	tap_ok(ret == 0 && in, "read it back (%d: %s)", ret, ustctl_last_error());
	if (!in)
		return;
	tap_ok(in->nr_rules == 3 && in->nr_channels == 3, "3 rules and 3 channels (%zu, %zu)",
	       in->nr_rules, in->nr_channels);
	for (i = 0; i < in->nr_rules && i < 3; i++)
		same &= in->rules[i].enable == rules[i].enable &&
			!strcmp(in->rules[i].pattern, rules[i].pattern);
	tap_ok(same, "rules come back in order with their kind");
	same = 1;
	for (i = 0; i < in->nr_channels && i < 3; i++)
		same &= !strcmp(in->channels[i].name, channels[i].name) &&
			in->channels[i].subbuf_size == channels[i].subbuf_size &&
			in->channels[i].subbuf_num == channels[i].subbuf_num;
	tap_ok(same, "channels come back with their sizes (0 where unset)");
	tap_ok(in->output && !strcmp(in->output, out.output), "the output comes back: %s",
	       in->output ? in->output : "(none)");
	ustctl_session_free(in);
}

/* A file that must be refused: -EINVAL, "FILE:LINE: ..." naming what. */
static void expect_refused(const char *name, const char *text, int line, const char *word,
			   const char *what)
{
	struct ustctl_session *s = (struct ustctl_session *)1;
	char path[256], prefix[300];
	const char *msg;
	int ret;

	path_of(path, sizeof(path), name);
	write_file(path, text);
	ret = ustctl_session_read(path, &s);
	msg = ustctl_last_error();
	snprintf(prefix, sizeof(prefix), "%s:%d: ", path, line);
	tap_ok(ret == -EINVAL && !s, "%s: refused with -EINVAL (%d)", what, ret);
	tap_ok(!strncmp(msg, prefix, strlen(prefix)) && strstr(msg + strlen(prefix), word),
	       "%s: the message gives line %d and names %s: %s", what, line, word, msg);
}

static void test_refusals(void)
{
	expect_refused("bad.xml",
		       "<?xml version=\"1.0\"?>\n"
		       "<ust-session version=\"1\">\n"
		       "  <enable pattern=\"ust:*\"/>\n"
		       "  <enable pattern=\"x\">\n"
		       "</ust-session>\n",
		       5, "enable", "mismatched tag");
	expect_refused("unknown.xml",
		       "<?xml version=\"1.0\"?>\n"
		       "<ust-session version=\"1\">\n"
		       "  <enable pattern=\"ust:*\"/>\n"
		       "  <frobnicate pattern=\"x\"/>\n"
		       "</ust-session>\n",
		       4, "frobnicate", "unknown element");
	expect_refused("missing.xml",
		       "<?xml version=\"1.0\"?>\n"
		       "<ust-session version=\"1\">\n"
		       "  <channel name=\"ust\"/>\n"
		       "  <disable/>\n"
		       "</ust-session>\n",
		       4, "pattern", "missing attribute");
	expect_refused("order.xml",
		       "<?xml version=\"1.0\"?>\n"
		       "<ust-session version=\"1\">\n"
		       "  <enable pattern=\"ust:*\"/>\n"
		       "  <channel name=\"ust\"/>\n"
		       "</ust-session>\n",
		       4, "channel", "channel after a rule");
	expect_refused("relative.xml",
		       "<?xml version=\"1.0\"?>\n"
		       "<ust-session version=\"1\">\n"
		       "  <output>traces</output>\n"
		       "</ust-session>\n",
		       3, "output", "a relative output directory");
	expect_refused("port.xml",
		       "<?xml version=\"1.0\"?>\n"
		       "<ust-session version=\"1\">\n"
		       "\n"
		       "  <output>net://collector:0</output>\n"
		       "</ust-session>\n",
		       4, "port is a number", "an output URL with port 0");
	expect_refused("version.xml",
		       "<?xml version=\"1.0\"?>\n"
		       "\n"
		       "<ust-session version=\"3\">\n"
		       "</ust-session>\n",
		       3, "version", "unknown version");
	expect_refused("pow2.xml",
		       "<?xml version=\"1.0\"?>\n"
		       "<ust-session version=\"1\">\n"
		       "  <channel name=\"other\" subbuf-size=\"8k\"/>\n"
		       "  <channel name=\"ust\" subbuf-size=\"3000\"/>\n"
		       "</ust-session>\n",
		       4, "3000", "a size that is not a power of two");
	expect_refused("bounds.xml",
		       "<?xml version=\"1.0\"?>\n"
		       "<ust-session version=\"1\">\n"
		       "  <channel name=\"ust\" subbuf-num=\"512\"/>\n"
		       "</ust-session>\n",
		       3, "subbuf-num", "a count above the bound");
	expect_refused("twice.xml",
		       "<?xml version=\"1.0\"?>\n"
		       "<ust-session version=\"1\">\n"
		       "  <channel name=\"ust\"/>\n"
		       "  <channel name=\"ust\"/>\n"
		       "</ust-session>\n",
		       4, "ust", "one channel twice");
}

static void test_suffixes(void)
{
	struct ustctl_session *s = NULL;
	char path[256];
	int ret;

	path_of(path, sizeof(path), "suffix.xml");
	write_file(path, "<ust-session version=\"1\"><channel name=\"ust\" subbuf-size=\"1M\" subbuf-num=\"16\"/></ust-session>");
	ret = ustctl_session_read(path, &s);
	tap_ok(ret == 0 && s && s->nr_channels == 1 && s->channels[0].subbuf_size == (1u << 20) &&
	       s->channels[0].subbuf_num == 16 && s->nr_rules == 0,
	       "1M reads as 1048576 (%d: %s)", ret, ustctl_last_error());
	ustctl_session_free(s);
}

/* blocking-timeout: its spellings read, written back in microseconds or
 * inf, an absent one stays unset, a value too large is refused. */
static void test_blocking(void)
{
	struct ustctl_session *s = NULL, *back = NULL;
	char path[256], out[256];
	int ret;

	path_of(path, sizeof(path), "blocking.xml");
	path_of(out, sizeof(out), "blocking-out.xml");
	write_file(path, "<ust-session version=\"1\"><channel name=\"ust\" blocking-timeout=\"250ms\"/>"
			 "<channel name=\"*\" blocking-timeout=\"inf\"/><channel name=\"other\"/></ust-session>");
	ret = ustctl_session_read(path, &s);
	tap_ok(ret == 0 && s && s->nr_channels == 3 && s->channels[0].has_blocking_timeout &&
	       s->channels[0].blocking_timeout == 250000 && s->channels[1].has_blocking_timeout &&
	       s->channels[1].blocking_timeout == USTCTL_BLOCKING_INF &&
	       !s->channels[2].has_blocking_timeout,
	       "250ms reads as 250000 us, inf as USTCTL_BLOCKING_INF, none as unset (%d: %s)", ret,
	       ustctl_last_error());
	ret = s ? ustctl_session_write(out, s) : -1;
	tap_ok(ret == 0 && strstr(read_all(out), "<channel name=\"ust\" blocking-timeout=\"250000\"/>") &&
	       strstr(read_all(out), "<channel name=\"*\" blocking-timeout=\"inf\"/>"),
	       "written back in microseconds and inf");
	ret = ustctl_session_read(out, &back);
	tap_ok(ret == 0 && back && back->nr_channels == 3 &&
	       back->channels[0].blocking_timeout == 250000 &&
	       back->channels[1].blocking_timeout == USTCTL_BLOCKING_INF &&
	       !back->channels[2].has_blocking_timeout, "and read again the same");
	ustctl_session_free(s);
	ustctl_session_free(back);
	s = NULL;
	write_file(path, "<ust-session version=\"1\">\n  <channel name=\"ust\" blocking-timeout=\"5000s\"/>\n</ust-session>");
	ret = ustctl_session_read(path, &s);
	tap_ok(ret == -EINVAL && !s && strstr(ustctl_last_error(), ":2:") &&
	       strstr(ustctl_last_error(), "blocking-timeout"),
	       "a timeout beyond the bound is refused with its line (%s)", ustctl_last_error());
	write_file(path, "<ust-session version=\"1\"><channel name=\"ust\" blocking-timeout=\"soon\"/></ust-session>");
	ret = ustctl_session_read(path, &s);
	tap_ok(ret == -EINVAL && !s, "a timeout that is not one is refused by the schema (%s)",
	       ustctl_last_error());
}

static void test_files(void)
{
	struct ustctl_session empty = { 0 }, *s = (struct ustctl_session *)1;
	char path[256];
	int ret;

	path_of(path, sizeof(path), "absent.xml");
	ret = ustctl_session_read(path, &s);
	tap_ok(ret == -ENOENT && !s && strstr(ustctl_last_error(), path),
	       "a missing file: -ENOENT naming it (%d: %s)", ret, ustctl_last_error());
	path_of(path, sizeof(path), "no/such/dir.xml");
	ret = ustctl_session_write(path, &empty);
	tap_ok(ret == -ENOENT && strstr(ustctl_last_error(), path),
	       "an unwritable path: -ENOENT naming it (%d: %s)", ret, ustctl_last_error());
	path_of(path, sizeof(path), "empty.xml");
	ret = ustctl_session_write(path, &empty);
	s = NULL;
	if (!ret)
		ret = ustctl_session_read(path, &s);
	tap_ok(ret == 0 && s && !s->nr_rules && !s->nr_channels,
	       "an empty session writes and reads back (%d: %s)", ret, ustctl_last_error());
	ustctl_session_free(s);
}

/* Version 2: a ustd session's parts, written and read back, and what is
 * refused in them; a version 2 file reads with the version 1 call too. */
static void test_extra(void)
{
	struct ustctl_channel_conf ch = { .name = "*", .subbuf_size = 65536 };
	struct ustctl_rule rule = { 1, "app:*" };
	struct ustctl_session s = { .rules = &rule, .nr_rules = 1, .channels = &ch,
				    .nr_channels = 1 }, *back = NULL;
	struct ustctl_tracefile_conf tf[] = { { "*", 1u << 20, 4 }, { "app", 8192, 0 } };
	struct ustctl_trigger_conf trig = { "app:error", "code >= 500", "/var/snap", 3 };
	struct ustctl_session_extra x = { .name = "shop", .overwrite = 1, .tracefiles = tf,
					  .nr_tracefiles = 2, .triggers = &trig,
					  .nr_triggers = 1 }, *xb = NULL;
	char path[256];
	int ret;

	path_of(path, sizeof(path), "v2.xml");
	x.rotation.on_rotate = "ship";
	ret = ustctl_session_file_write(path, &s, &x);
	tap_ok(ret == 0 && strstr(read_all(path), "<ust-session version=\"2\" name=\"shop\" overwrite=\"true\">") &&
	       strstr(read_all(path), "<channel name=\"*\" subbuf-size=\"64k\" tracefile-size=\"1M\" tracefile-count=\"4\"/>") &&
	       strstr(read_all(path), "<channel name=\"app\" tracefile-size=\"8k\"/>") &&
	       strstr(read_all(path), "<rotation on-rotate=\"ship\"/>") &&
	       strstr(read_all(path), "<trigger on=\"app:error\" filter=\"code &gt;= 500\" dir=\"/var/snap\" at-most=\"3\"/>"),
	       "version 2 written: name, mode, limits, rotation, trigger (%d: %s)", ret,
	       ret ? ustctl_last_error() : read_all(path));
	ret = ustctl_session_file_read(path, &back, &xb);
	tap_ok(ret == 0 && xb && !strcmp(xb->name, "shop") && xb->overwrite &&
	       xb->nr_tracefiles == 2 && xb->tracefiles[0].size == (1u << 20) &&
	       xb->tracefiles[0].count == 4 && !strcmp(xb->tracefiles[1].channel, "app") &&
	       xb->tracefiles[1].size == 8192 && !strcmp(xb->rotation.on_rotate, "ship") &&
	       xb->nr_triggers == 1 && !strcmp(xb->triggers[0].filter, "code >= 500") &&
	       !strcmp(xb->triggers[0].dir, "/var/snap") && xb->triggers[0].at_most == 3 &&
	       back->nr_rules == 1 && back->nr_channels == 2,
	       "and read back the same (%d: %s)", ret, ustctl_last_error());
	ustctl_session_free(back);
	ustctl_session_extra_free(xb);
	back = NULL;
	ret = ustctl_session_read(path, &back);
	tap_ok(ret == 0 && back && back->nr_rules == 1, "ustctl_session_read() reads it too");
	ustctl_session_free(back);
	x.rotation.every_us = 1000000;
	ret = ustctl_session_file_write(path, &s, &x);
	tap_ok(ret == -EINVAL, "a flight recorder with a rotation period is not written (%s)",
	       ustctl_last_error());
	write_file(path, "<ust-session version=\"2\" name=\"a\">\n"
			 "  <rotation every=\"2h\" size=\"16M\"/>\n</ust-session>\n");
	back = NULL;
	ret = ustctl_session_file_read(path, &back, &xb);
	tap_ok(ret == 0 && xb->rotation.every_us == 7200000000ull &&
	       xb->rotation.size == (16u << 20), "every 2h, size 16M read (%d: %s)", ret,
	       ustctl_last_error());
	ustctl_session_free(back);
	ustctl_session_extra_free(xb);
	expect_refused("every.xml", "<ust-session version=\"2\">\n  <rotation every=\"50ms\"/>\n"
		       "</ust-session>\n", 2, "every", "a period below 100ms");
	expect_refused("count.xml", "<ust-session version=\"2\">\n"
		       "  <channel name=\"ust\" tracefile-count=\"4\"/>\n</ust-session>\n", 2,
		       "tracefile-size", "a tracefile count without a size");
	expect_refused("small.xml", "<ust-session version=\"2\">\n"
		       "  <channel name=\"ust\" tracefile-size=\"100\"/>\n</ust-session>\n", 2,
		       "tracefile-size", "a tracefile size below 4096");
	expect_refused("trig.xml", "<ust-session version=\"2\">\n  <trigger on=\"a:b\"/>\n"
		       "</ust-session>\n", 2, "flight-recorder", "a trigger without overwrite");
	expect_refused("name.xml", "<ust-session version=\"2\" name=\"auto\">\n</ust-session>\n",
		       1, "session name", "the session name auto");
}

int main(void)
{
	char cmd[512];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	tap_plan(51);
	test_round_trip();
	test_refusals();
	test_suffixes();
	test_blocking();
	test_files();
	test_extra();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		tap_diag("could not remove %s", dir);
	return tap_done();
}
