/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The file of active sessions holds, per session, the requests ustd would
 * send to apply it: SET_OVERWRITE then LOAD_SESSION (ctl_protocol.h). The
 * program executes them itself, then creates and starts the trace named
 * after the session, which ustd files under the session's directory: one
 * trace per session whose rules select one of its events, each in a slot
 * of its own (trace.h), until the slots run out.
 *
 * Race-free with ustd's own apply: ustd publishes the file (rename, so
 * it is read whole or not at all) and only then lists apps/ to apply the
 * session to the programs there. This program creates its control socket
 * before it reads the file. So either it reads the new file, or its
 * socket was in apps/ before the rename and ustd's listing finds it; a
 * program in both cases answers ustd's SESSION_STATE with "waiting" or
 * with its trace's state, and ustd leaves it alone.
 *
 * A session with process trackers has its SESSION_TRACKERS request after
 * its LOAD_SESSION: the program joins only when it passes them.
 *
 * With no session active the cost is one failed open().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libust/rules.h"
#include "libust/session_join.h"
#include "libust/trace.h"
#include "libust/trace_internal.h"
#include "libustcomm/format.h"
#include "libustcomm/log.h"
#include "libustcomm/loglevel.h"
#include "libustcomm/rundir.h"
#include "libustcomm/tracker.h"

/* The whole file, kept (read-only after init) while no trace runs. */
static char *published;
static size_t published_len;

static int read_all(int fd, char **out, size_t *out_len)
{
	struct stat st;
	size_t len = 0;
	ssize_t n;
	char *buf;

	if (fstat(fd, &st) < 0 || st.st_size <= 0 || st.st_size > (64 << 20))
		return -EINVAL;
	buf = malloc((size_t)st.st_size);
	if (!buf)
		return -ENOMEM;
	while (len < (size_t)st.st_size) {
		n = read(fd, buf + len, (size_t)st.st_size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	*out = buf;
	*out_len = len;
	return 0;
}

void ust_session_join_init(const char *daemon_path)
{
	char path[4096];
	int fd;

	if (!daemon_path[0] || ustcomm_daemon_sibling_path(path, sizeof(path), daemon_path,
							     USTCOMM_SESSION_FILE_SUFFIX) < 0)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	if (read_all(fd, &published, &published_len) < 0)
		ustcomm_dbg("cannot read the active sessions in %s", path);
	close(fd);
}

/* The next message of the file at *off; 0 at the end or on garbage. */
static int next_msg(size_t *off, struct ustcomm_ctl_msg *msg)
{
	ssize_t n;

	if (*off >= published_len)
		return 0;
	n = ustcomm_ctl_decode(published + *off, published_len - *off,
			       USTCOMM_CTL_MAX_SESSION_REQUEST, msg);
	if (n <= 0 || ustcomm_ctl_check_request(msg) < 0)
		return 0;
	*off += (size_t)n;
	return 1;
}

/* True when one of the enable rules of LOAD_SESSION msg selects ev. */
static int session_matches(const struct ustcomm_ctl_msg *msg, const struct ust_event_state *ev)
{
	const char *pos = NULL, *s;
	uint32_t nr_channels, i;

	for (i = 0; i < 3; i++)
		s = ustcomm_ctl_next(msg, &pos);
	if (!s || ustcomm_parse_u32(s, &nr_channels) < 0)
		return 0;
	for (i = 0; i < USTCOMM_CTL_SESSION_CHANNEL_ARGS * nr_channels; i++)
		ustcomm_ctl_next(msg, &pos);
	for (;;) {
		const char *kind = ustcomm_ctl_next(msg, &pos), *pattern = ustcomm_ctl_next(msg, &pos);
		const char *level = ustcomm_ctl_next(msg, &pos);
		struct ust_rule_spec spec = { .pattern = pattern, .enable = 1 };

		ustcomm_ctl_next(msg, &pos);
		if (!ustcomm_ctl_next(msg, &pos))
			return 0;
		if (strcmp(kind, "enable") ||
		    ustcomm_level_spec_parse(level, &spec.level_match, &spec.level) < 0)
			continue;
		if (ust_rules_spec_matches(&spec, ev))
			return 1;
	}
}

/* The session's name: the first string of its requests. */
static const char *msg_name(const struct ustcomm_ctl_msg *msg)
{
	const char *pos = NULL;

	return ustcomm_ctl_next(msg, &pos);
}

static void join(const struct ustcomm_ctl_msg *overwrite, const struct ustcomm_ctl_msg *load)
{
	const char *name = msg_name(load), *pos = NULL;
	int ret;

	const char *buffers;

	ustcomm_ctl_next(overwrite, &pos);
	ret = ust_trace_set_overwrite(name, !strcmp(ustcomm_ctl_next(overwrite, &pos), "1"));
	buffers = ustcomm_ctl_next(overwrite, &pos);
	if (ret >= 0)
		ret = ust_trace_set_per_uid(name, buffers && !strcmp(buffers, "uid"));
	if (ret >= 0)
		ret = ust_trace_load_session(load);
	if (ret >= 0)
		ret = ust_trace_create(name, NULL);
	if (ret >= 0)
		ret = ust_trace_start(name);
	/* A memory refusal is said even unasked: nobody else will. */
	if (ret == -ENOMEM)
		ustcomm_err("cannot join session %s: %s", name, ust_trace_error());
	else if (ret < 0)
		ustcomm_dbg("cannot join session %s: %s", name, ust_trace_error());
}

/* The process's name as ustd reads it, the main thread's
 * (/proc/PID/comm), whichever thread asks; the caller's own name where
 * /proc is not mounted. Async-signal-safe: open(), read(), close(). */
static void own_comm(char *comm, size_t size)
{
	ssize_t n = -1;
	int fd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, comm, size - 1);
		close(fd);
	}
	if (n <= 0) {
		prctl(PR_GET_NAME, comm);
		return;
	}
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}

/* After session name's LOAD_SESSION at *off: whether this process
 * passes its trackers, taking them (true when it has none).
 * Async-signal-safe: decoding, own_comm(), getpid(), getuid(). */
static int session_tracks_me(size_t *off, const char *name)
{
	const char *pairs[USTCOMM_CTL_MAX_ARGS], *pos = NULL;
	char comm[USTCOMM_TRACK_PROCNAME_MAX] = "";
	struct ustcomm_ctl_msg msg;
	size_t at = *off, nr = 0;

	if (!next_msg(&at, &msg) || msg.cmd != USTCOMM_CTL_SESSION_TRACKERS ||
	    strcmp(msg_name(&msg), name))
		return 1;
	*off = at;
	ustcomm_ctl_next(&msg, &pos);
	while (nr < USTCOMM_CTL_MAX_ARGS && (pairs[nr] = ustcomm_ctl_next(&msg, &pos)))
		nr++;
	own_comm(comm, sizeof(comm));
	return ustcomm_track_pass(pairs, nr, getpid(), comm, getuid());
}

int ust_session_join_tracks(const char *name)
{
	struct ustcomm_ctl_msg msg;
	size_t off = 0;

	while (published && next_msg(&off, &msg)) {
		if (msg.cmd == USTCOMM_CTL_LOAD_SESSION && !strcmp(msg_name(&msg), name))
			return session_tracks_me(&off, name);
	}
	return 1;
}

/* Whether a trace of that name is in a slot already (made or waiting
 * for a fork() child's first event). */
static int trace_exists(const char *name)
{
	uint32_t i;

	for (i = 0; i < UST_TRACES_MAX; i++) {
		if (ust_trace_slot_in_use(&ust_traces[i]) && !strcmp(ust_traces[i].name, name))
			return 1;
	}
	return 0;
}

/* Every session whose rules select ev gets a trace, each in a slot of its
 * own, until the slots run out. */
void ust_session_join_event(const struct ust_event_state *ev)
{
	struct ustcomm_ctl_msg overwrite, load;
	uint32_t was = ust_t.slot;
	size_t off = 0;

	if (!published)
		return;
	while (next_msg(&off, &overwrite) && next_msg(&off, &load)) {
		if (overwrite.cmd != USTCOMM_CTL_SET_OVERWRITE ||
		    load.cmd != USTCOMM_CTL_LOAD_SESSION)
			break;
		/* The trackers' message follows its session's: always read. */
		if (session_tracks_me(&off, msg_name(&load)) && !trace_exists(msg_name(&load)) &&
		    session_matches(&load, ev))
			join(&overwrite, &load);
	}
	ust_trace_select(was);
}

int ust_session_rule_matches(const char *pattern, const char *level)
{
	struct ust_rule_spec spec = { .pattern = pattern, .enable = 1 };
	struct ust_event_state *ev;

	if (ustcomm_level_spec_parse(level, &spec.level_match, &spec.level) < 0)
		return 0;
	for (ev = ust_registry_first(); ev; ev = ev->next) {
		if (ust_rules_spec_matches(&spec, ev))
			return 1;
	}
	return 0;
}

/* True when one of the rules (pattern, level, ...) selects an event the
 * program has, or when there are none to test. */
static int any_event_matches(const char *const *rules, uint32_t nr)
{
	uint32_t i;

	if (!nr)
		return 1;
	for (i = 0; i + 1 < nr; i += 2) {
		if (ust_session_rule_matches(rules[i], rules[i + 1]))
			return 1;
	}
	return 0;
}

const char *ust_session_join_state(const char *name, const char *const *rules, uint32_t nr)
{
	struct ustcomm_ctl_msg msg;
	size_t off = 0;

	uint32_t i, free_slots = 0, was = ust_t.slot;
	int lost = 0;

	for (i = 0; i < UST_TRACES_MAX; i++) {
		const struct ust_trace_data *t = &ust_traces[i];

		/* Its ustd died with the rings it wrote into (ended here, or
		 * by this ustd's RECONNECT): the session, resumed by this
		 * ustd, takes the process again (below: its events were
		 * registered long ago, so it would not join by itself at the
		 * next one, as a program that starts does). */
		ust_trace_select(i);
		if (!strcmp(t->name, name))
			ust_trace_end_lost_uid();
		if (!strcmp(ust_t.lost_uid, name)) {
			ust_t.lost_uid[0] = '\0';
			lost = 1;
		}
		ust_trace_select(was);
		if (!ust_trace_slot_in_use(t)) {
			free_slots++;
			continue;
		}
		if (strcmp(t->name, name))
			continue;
		/* A fork() child's trace starts at its first event (trace_fork.c). */
		return t->fork_pending ? "waiting" : ust_trace_state_names[t->state];
	}
	/* Another session's traces fill every slot. */
	if (!free_slots)
		return "busy";
	/* One the file's trackers leave out does not join by itself. */
	while (!lost && next_msg(&off, &msg)) {
		if (msg.cmd == USTCOMM_CTL_LOAD_SESSION && !strcmp(msg_name(&msg), name) &&
		    session_tracks_me(&off, name))
			return "waiting";
	}
	return any_event_matches(rules, nr) ? "free" : "nomatch";
}
