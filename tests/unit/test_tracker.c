/* SPDX-License-Identifier: GPL-2.0-only */
/* Process trackers of sessions (libustcomm/tracker.h): the values as
 * ustctl, ustd and libust spell them, and the one rule that tests a
 * process against them in ustd and in libust. */
#include <string.h>
#include "libustcomm/tracker.h"
#include "tests/unit/tap.h"

static void value(const char *kind, const char *text, const char *want)
{
	char out[USTCOMM_TRACK_PROCNAME_MAX] = "unset";
	int ret = ustcomm_track_value(ustcomm_track_kind(kind), text, out, sizeof(out));

	if (want)
		tap_ok(ret == 0 && !strcmp(out, want), "%s '%s' is '%s' (got %d, '%s')", kind, text,
		       want, ret, out);
	else
		tap_ok(ret < 0, "%s '%s' is refused (got %d)", kind, text, ret);
}

#define PASS(want, pid, comm, uid, ...)							\
	do {										\
		const char *pairs[] = { __VA_ARGS__ };					\
		tap_ok(ustcomm_track_pass(pairs, sizeof(pairs) / sizeof(pairs[0]), pid,	\
					  comm, uid) == (want),				\
		       "pid %d, %s, uid %d: %s %s", pid, comm, uid,			\
		       (want) ? "passes" : "does not pass", #__VA_ARGS__);		\
	} while (0)

int main(void)
{
	tap_ok(ustcomm_track_kind("pid") == 0 && ustcomm_track_kind("procname") == 1 &&
	       ustcomm_track_kind("uid") == 2 && ustcomm_track_kind("gid") < 0 &&
	       ustcomm_track_kind(NULL) < 0, "the three kinds, nothing else");
	tap_ok(!strcmp(ustcomm_track_kind_name(1), "procname"), "kinds are named back");
	value("pid", "1234", "1234");
	value("pid", "0", NULL);
	value("pid", "-1", NULL);
	value("pid", "12x", NULL);
	value("pid", "4294967296", NULL);
	value("uid", "0", "0");
	value("uid", "1000", "1000");
	value("procname", "svc-a", "svc-a");
	value("procname", "a-name-longer-than-15", "a-name-longer-t");
	value("procname", "", NULL);
	value("procname", "a/b", NULL);
	value("gid", "1", NULL);

	PASS(1, 42, "svc", 1000, "x", "y");
	PASS(1, 42, "svc", 1000, "pid", "41", "pid", "42");
	PASS(0, 42, "svc", 1000, "pid", "41");
	PASS(0, 42, "svc", 1000, "pid", "");		/* a kind tracking none */
	PASS(1, 42, "svc", 1000, "pid", "", "pid", "42");
	PASS(0, 42, "svc", 1000, "pid", "042");	/* one spelling only */
	PASS(1, 42, "svc", 1000, "procname", "svc");
	PASS(0, 42, "svc-b", 1000, "procname", "svc");
	PASS(1, 42, "a-name-longer-t", 0, "procname", "a-name-longer-t");
	PASS(1, 42, "svc", 0, "uid", "0");
	PASS(0, 42, "svc", 1000, "uid", "0");
	/* Every kind tracked must pass. */
	PASS(1, 42, "svc", 1000, "procname", "svc", "pid", "42", "uid", "1000");
	PASS(0, 42, "svc", 1000, "procname", "svc", "pid", "43");
	PASS(0, 43, "other", 1000, "procname", "svc", "pid", "43");
	tap_plan(tap_count);
	return tap_done();
}
