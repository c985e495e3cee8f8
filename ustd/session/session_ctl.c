/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ustd's session socket (<ustd socket>.ctl): ustctl's session commands,
 * one request and one reply at a time per connection, in the control
 * protocol's framing (ctl_protocol.h), same uid only. A command that
 * talks to programs (start, stop, destroy) answers once every program
 * answered or its conversation timed out; the loop serves everything else
 * meanwhile. Also watches apps/ with inotify: a program that appears while
 * sessions are active (a forked worker, a program that read the file just
 * before a session started) is asked to join them.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "libustcomm/bufsize.h"
#include "libustcomm/event_context.h"
#include "libustcomm/format.h"
#include "libustcomm/log.h"
#include "libustcomm/loglevel.h"
#include "libustcomm/pattern.h"
#include "libustcomm/rundir.h"
#include "libustcomm/shm_layout.h"
#include "ustd/session/session.h"
#include "ustd/session/on_rotate.h"
#include "ustd/relay/relay_share.h"
#include "ustd/session/session_buffers.h"
#include "ustd/session/session_busy.h"
#include "ustd/session/session_ctl.h"
#include "ustd/session/session_life.h"
#include "ustd/session/chunk_publish.h"
#include "ustd/session/session_final.h"
#include "ustd/session/session_loss.h"
#include "ustd/session/session_persist.h"
#include "ustd/session/session_resume.h"
#include "ustd/session/session_relay.h"
#include "ustd/session/session_rotate.h"
#include "ustd/session/session_settings.h"
#include "ustd/session/session_trigger.h"
#include "ustd/session/session_uid.h"
#include "ustd/session/session_uid_end.h"
#include "ustd/session/session_clear.h"
#include "ustd/session/session_snapshot.h"
#include "ustd/session/session_status.h"
#include "ustd/session/session_track.h"

/* Session requests taken per wake-up of the session socket. */
#define SESSION_ACCEPT_BATCH	32

struct conn {
	struct ustd_session_watch watch;
	struct ustd_sessions *ss;
	int fd;
	char *in;
	size_t in_len, in_cap;
	/* A command waiting for programs: its reply is sent from done(). */
	struct ustd_apply_waiter waiter;
	uint16_t waiting_cmd;
	bool waiting;
	/* rotate-session: answered once its chunk is published. */
	struct ustd_rotate_reply rot_reply;
	bool rotating;
	/* destroy-session of a rotating session: answered after its last
	 * chunk is archived. */
	struct ustd_session_final *final;
	/* A destroy's sets of buffers per user, ending after the programs,
	 * when no final holds the controller (session_uid.h). */
	struct ustd_session_uid_end *uid_end;
	/* stop-session and destroy-session: the session and its directory
	 * (NULL when streamed), whose lost events the reply counts. */
	char loss_name[USTCOMM_SESSION_NAME_MAX];
	char *loss_dir;
	struct ustd_loss_tally *loss_tally;	/* a reference, or NULL */
	size_t tracked_now;		/* track, untrack: the reply */
	/* The reply made while the request runs (a request has one), sent
	 * once the session's file says what the request did (conn_execute()). */
	char *held;
	size_t held_len;
	bool holding;
};

static void conn_send(struct conn *c, const char *buf, size_t len)
{
	size_t off = 0;
	ssize_t n;

	/* Bounded: a controller that does not read its reply loses it. */
	while (off < len) {
		n = send(c->fd, buf + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n <= 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
}

/* A reply: status, then nr strings (or the reason when status < 0). */
static void conn_reply(struct conn *c, uint16_t cmd, int status, const char *const *args,
		       size_t nr)
{
	size_t len;
	char *buf;

	if (ustcomm_ctl_encode(cmd, status, 1, args, nr, &buf, &len) < 0)
		return;
	if (c->holding && !c->held) {
		c->held = buf;
		c->held_len = len;
		return;
	}
	conn_send(c, buf, len);
	free(buf);
}

static void conn_error(struct conn *c, uint16_t cmd, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void conn_error(struct conn *c, uint16_t cmd, int err, const char *fmt, ...)
{
	char why[512];
	const char *args[1] = { why };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	conn_reply(c, cmd, err, args, 1);
}

static void conn_reply_u(struct conn *c, uint16_t cmd, unsigned long v)
{
	char num[24];
	const char *args[1] = { num };

	snprintf(num, sizeof(num), "%lu", v);
	conn_reply(c, cmd, 0, args, 1);
}

/* stop-session, destroy-session: the programs that answered (destroy:
 * 0), then the events the session's traces discarded and where they
 * are, when written here. A controller of before reads the first only. */
static void conn_reply_end(struct conn *c, unsigned long programs)
{
	char num[24], lost[24];
	const char *args[3] = { num, lost, c->loss_dir };
	uint64_t discarded = 0;
	int ret;

	snprintf(num, sizeof(num), "%lu",
		 c->waiting_cmd == USTCOMM_CTL_SESSION_DESTROY ? 0ul : programs);
	if (c->loss_dir) {
		ret = ustd_session_loss(c->ss, c->loss_name, c->loss_tally, c->loss_dir,
					&discarded);
		if (ret < 0)
			ustcomm_err("cannot count the events discarded in %s: %s", c->loss_dir,
				    strerror(-ret));
	}
	snprintf(lost, sizeof(lost), "%" PRIu64, discarded);
	conn_reply(c, c->waiting_cmd, 0, args, c->loss_dir ? 3 : 1);
	free(c->loss_dir);
	c->loss_dir = NULL;
	ustd_loss_tally_put(c->loss_tally);
	c->loss_tally = NULL;
}

/* The session's enable rules, counted: SESSION_STATE asks about them in
 * this order (ustd_session_encode_state()). */
static size_t enable_rules(const struct ustd_session *s, const char **patterns)
{
	size_t i, n = 0;

	for (i = 0; i < s->nr_rules; i++) {
		if (strcmp(s->rules[i].s[0], "enable"))
			continue;
		if (patterns)
			patterns[n] = s->rules[i].s[1];
		n++;
	}
	return n;
}

/* start-session: the programs that answered, then the patterns of the
 * enable rules that no program said it matches (none when no program
 * told: of before, or none running), then, when some were left alone
 * because they trace something else, "" and per session they trace its
 * name ("" for none) and how many. A controller of before reads the
 * first only. */
static void conn_reply_start(struct conn *c, unsigned long programs)
{
	struct ustd_session *s = ustd_session_find(c->ss, c->loss_name);
	size_t nr = c->waiter.nr_rules, nr_busy = c->waiter.busy.nr, i, n = 1;
	const char **args = calloc(nr + 2 + 2 * nr_busy, sizeof(*args));
	char (*nums)[16] = calloc(nr_busy + 1, sizeof(*nums));
	char num[24];

	snprintf(num, sizeof(num), "%lu", programs);
	if (!args || !nums) {
		conn_reply_u(c, USTCOMM_CTL_SESSION_START, programs);
		goto end;
	}
	args[0] = num;
	/* Rules changed meanwhile: the answers are about others. */
	if (s && c->waiter.rules_told && enable_rules(s, NULL) == nr) {
		enable_rules(s, args + 1);
		for (i = 0; i < nr; i++) {
			if (!c->waiter.rule_matched[i])
				args[n++] = args[i + 1];
		}
	}
	/* Then "" and the programs left alone, by the session they trace. */
	if (nr_busy && nums) {
		args[n++] = "";
		n += ustd_busy_tally(c->ss, &c->waiter.busy, args + n, nums);
	}
	conn_reply(c, USTCOMM_CTL_SESSION_START, 0, args, n);
end:
	ustd_busy_fini(&c->waiter.busy);
	free(nums);
	free(args);
	free(c->waiter.rule_matched);
	c->waiter.rule_matched = NULL;
	c->waiter.nr_rules = 0;
}

static void conn_done(struct ustd_apply_waiter *w)
{
	struct conn *c = (struct conn *)((char *)w - offsetof(struct conn, waiter));

	c->waiting = false;
	c->final = NULL;
	c->uid_end = NULL;
	if (c->waiting_cmd == USTCOMM_CTL_SESSION_STOP ||
	    c->waiting_cmd == USTCOMM_CTL_SESSION_DESTROY)
		conn_reply_end(c, w->ok);
	else if (c->waiting_cmd == USTCOMM_CTL_SESSION_START)
		conn_reply_start(c, w->ok);
	else if (c->waiting_cmd == USTCOMM_CTL_SESSION_TRACK)
		conn_reply_u(c, c->waiting_cmd, c->tracked_now);
	else
		conn_reply_u(c, c->waiting_cmd, w->ok);
}

/* Holds the waiter while conversations start, so that one ending at
 * once does not answer before the others began. */
static void conn_wait_begin(struct conn *c, uint16_t cmd)
{
	c->waiting = true;
	c->waiting_cmd = cmd;
	c->waiter.pending = 1;
	c->waiter.ok = 0;
	c->waiter.done = conn_done;
}

static void conn_wait_end(struct conn *c)
{
	if (--c->waiter.pending == 0)
		conn_done(&c->waiter);
}

static struct ustd_session *find_or_say(struct conn *c, uint16_t cmd, const char *name)
{
	struct ustd_session *s = ustd_session_find(c->ss, name);

	if (!s)
		conn_error(c, cmd, -ENOENT, "no session '%s' (ustctl list-sessions lists them; ustctl create-session makes one)",
			   name);
	return s;
}

static int parse_geometry(const char *text, uint32_t min, uint32_t max, uint32_t *out)
{
	if (!strcmp(text, "0")) {
		*out = 0;
		return 0;
	}
	return ustcomm_parse_pow2(text, min, max, out);
}

static void cmd_create(struct conn *c, const char *const *a)
{
	struct ustd_sessions *ss = c->ss;
	struct ustd_session *s, **tail;
	struct ustd_session_channel *all;
	/* A relayd URL: the session's local directory, for the fallback, is
	 * made in ustd's output (session_relay.h). */
	bool streamed = strstr(a[1], "://") != NULL;
	const char *output = a[1][0] && !streamed ? a[1] : ss->ctx->output;
	const char *reply[2];
	char why[512];
	uint32_t size, num;
	bool per_uid;
	int ret;

	if (!ustcomm_session_name_valid(a[0])) {
		conn_error(c, USTCOMM_CTL_SESSION_CREATE, -EINVAL,
			   "invalid session name '%s': 1 to %u letters, digits, '_', '.' or '-', not starting with '.' or '-', and not 'auto'",
			   a[0], USTCOMM_SESSION_NAME_MAX - 1);
		return;
	}
	if (ustd_session_find(ss, a[0])) {
		conn_error(c, USTCOMM_CTL_SESSION_CREATE, -EEXIST,
			   "session '%s' exists already: choose another name, or destroy it first (ustctl destroy-session %s)",
			   a[0], a[0]);
		return;
	}
	if (output[0] != '/' || (strcmp(a[2], "0") && strcmp(a[2], "1")) ||
	    parse_geometry(a[3], UST_SUBBUF_SIZE_MIN, UST_SUBBUF_SIZE_MAX, &size) < 0 ||
	    parse_geometry(a[4], UST_SUBBUF_NUM_MIN, UST_SUBBUF_NUM_MAX, &num) < 0) {
		conn_error(c, USTCOMM_CTL_SESSION_CREATE, -EINVAL,
			   "malformed create-session request (an absolute output directory, an overwrite flag, sub-buffer sizes that are powers of two from %u to %u bytes and %u to %u sub-buffers)",
			   UST_SUBBUF_SIZE_MIN, UST_SUBBUF_SIZE_MAX, UST_SUBBUF_NUM_MIN,
			   UST_SUBBUF_NUM_MAX);
		return;
	}
	ret = ustd_session_buffers_parse(a[5], &per_uid, why, sizeof(why));
	if (ret) {
		conn_error(c, USTCOMM_CTL_SESSION_CREATE, ret, "%s", why);
		return;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		conn_error(c, USTCOMM_CTL_SESSION_CREATE, -ENOMEM, "out of memory");
		return;
	}
	snprintf(s->name, sizeof(s->name), "%s", a[0]);
	ustd_rotation_init(s, ss);
	s->overwrite = a[2][0] == '1';
	s->per_uid = per_uid;
	ret = 0;
	if (size || num) {
		all = ustd_session_channel(s, "*");
		if (all) {
			all->subbuf_size = size;
			all->subbuf_num = num;
		} else {
			ret = -ENOMEM;
		}
	}
	if (!ret)
		ret = ustd_session_make_dir(s, output);
	if (ret)
		snprintf(why, sizeof(why), "cannot create the session's directory in %s: %s", output,
			 strerror(-ret));
	else if (streamed)
		ret = ustd_session_relay_open(s, ss->ctx, a[1], why, sizeof(why));
	if (ret) {
		conn_error(c, USTCOMM_CTL_SESSION_CREATE, ret, "%s", why);
		ustd_session_free(s);
		return;
	}
	for (tail = &ss->list; *tail; tail = &(*tail)->next)
		;
	*tail = s;
	ustcomm_dbg("session %s created in %s", s->name, s->dir);
	reply[0] = s->dir;
	reply[1] = s->relay ? s->relay->path : "";
	conn_reply(c, USTCOMM_CTL_SESSION_CREATE, 0, reply, s->relay ? 2 : 1);
}

static int check_rule(struct conn *c, const char *const *r, size_t index)
{
	int match, level;

	if (strcmp(r[0], "enable") && strcmp(r[0], "disable")) {
		conn_error(c, USTCOMM_CTL_SESSION_RULES, -EINVAL,
			   "rule %zu: '%s' is neither enable nor disable", index, r[0]);
		return -EINVAL;
	}
	if (!ustcomm_pattern_valid(r[1])) {
		conn_error(c, USTCOMM_CTL_SESSION_RULES, -EINVAL, "invalid pattern '%s': %s", r[1],
			   USTCOMM_PATTERN_RULE);
		return -EINVAL;
	}
	if (ustcomm_level_spec_parse(r[2], &match, &level) < 0 || (!*r[3] != !*r[4])) {
		conn_error(c, USTCOMM_CTL_SESSION_RULES, -EINVAL,
			   "rule %zu (%s): invalid log level selection or filter", index, r[1]);
		return -EINVAL;
	}
	return 0;
}

struct rules_arg {
	struct ustd_sessions *ss;
	struct ustd_session *s;
	size_t first;
};

static void rules_to_app(struct ustd_app *app, void *arg)
{
	struct rules_arg *ra = arg;

	ustd_apply_begin(&ra->ss->apply, USTD_APPLY_RULES, app->pid, ra->s,
			 &ra->s->rules[ra->first], ra->s->nr_rules - ra->first, NULL);
}

static void cmd_rules(struct conn *c, const struct ustcomm_ctl_msg *msg)
{
	const char *pos = NULL, *name = ustcomm_ctl_next(msg, &pos), *r[5];
	struct ustd_session *s = find_or_say(c, msg->cmd, name);
	struct rules_arg ra = { .ss = c->ss, .s = s };
	size_t i, k, nr = (msg->nr_strings - 1) / 5;
	int ret;

	if (!s)
		return;
	if ((msg->nr_strings - 1) % 5 || !nr || s->nr_rules + nr > USTCOMM_CTL_RULES_MAX) {
		conn_error(c, msg->cmd, -EINVAL,
			   "malformed rule list, or more than %u rules in session '%s'",
			   USTCOMM_CTL_RULES_MAX, name);
		return;
	}
	/* All checked before any is added: all or nothing. */
	for (i = 0; i < nr; i++) {
		for (k = 0; k < 5; k++)
			r[k] = ustcomm_ctl_next(msg, &pos);
		if (check_rule(c, r, i + 1) < 0)
			return;
	}
	ra.first = s->nr_rules;
	pos = NULL;
	ustcomm_ctl_next(msg, &pos);
	for (i = 0; i < nr; i++) {
		for (k = 0; k < 5; k++)
			r[k] = ustcomm_ctl_next(msg, &pos);
		ret = ustd_session_add_rule(s, r);
		if (ret) {
			while (s->nr_rules > ra.first) {
				s->nr_rules--;
				for (k = 0; k < 5; k++)
					free(s->rules[s->nr_rules].s[k]);
			}
			conn_error(c, msg->cmd, ret, "out of memory");
			return;
		}
	}
	if (s->state == USTD_SESSION_ACTIVE) {
		ustd_sessions_publish(c->ss);
		ustd_session_for_each_app(c->ss, s, rules_to_app, &ra);
	}
	conn_reply_u(c, msg->cmd, s->nr_rules);
}

struct each_arg {
	struct ustd_sessions *ss;
	struct ustd_session *s;
	enum ustd_apply_kind kind;
	struct ustd_apply_waiter *w;
};

static void to_app(struct ustd_app *app, void *arg)
{
	struct each_arg *ea = arg;

	ustd_apply_begin(&ea->ss->apply, ea->kind, app->pid, ea->s, NULL, 0, ea->w);
}

static void cmd_start(struct conn *c, const char *name)
{
	struct ustd_session *s = find_or_say(c, USTCOMM_CTL_SESSION_START, name);
	int ret;

	if (!s)
		return;
	if (s->state == USTD_SESSION_ACTIVE) {
		conn_error(c, USTCOMM_CTL_SESSION_START, -EALREADY, "session '%s' is active already",
			   name);
		return;
	}
	ret = ustd_sessions_watch_apps(c->ss);
	if (ret < 0) {
		conn_error(c, USTCOMM_CTL_SESSION_START, ret,
			   "session '%s' is not started: ustd cannot watch %s for programs that start (%s); raise fs.inotify.max_user_instances or stop other watchers",
			   name, c->ss->apply.apps_dir, strerror(-ret));
		return;
	}
	s->state = USTD_SESSION_ACTIVE;
	ustd_rotation_started(s);
	/* Published before the listing: session_join.c says why. */
	ustd_sessions_publish(c->ss);
	conn_wait_begin(c, USTCOMM_CTL_SESSION_START);
	snprintf(c->loss_name, sizeof(c->loss_name), "%s", s->name);
	c->waiter.rules_told = false;
	c->waiter.nr_rules = enable_rules(s, NULL);
	/* Without memory, no pattern is named. */
	c->waiter.rule_matched = calloc(c->waiter.nr_rules + 1, sizeof(bool));
	ustd_session_join_all(c->ss, s, &c->waiter);
	conn_wait_end(c);
}

static void cmd_stop_destroy(struct conn *c, uint16_t cmd, const char *name)
{
	struct each_arg ea = { .ss = c->ss, .w = &c->waiter };
	struct ustd_session *s = find_or_say(c, cmd, name);
	struct ustd_session_final *final = NULL;
	struct ustd_session_uid_end *uid_end = NULL;
	bool was_active;

	if (!s)
		return;
	was_active = s->state == USTD_SESSION_ACTIVE;
	if (cmd == USTCOMM_CTL_SESSION_STOP && !was_active) {
		conn_error(c, cmd, -EINVAL, "session '%s' is not active (ustctl start-session %s)",
			   name, name);
		return;
	}
	ea.s = s;
	ea.kind = cmd == USTCOMM_CTL_SESSION_STOP ? USTD_APPLY_STOP : USTD_APPLY_DESTROY;
	s->state = USTD_SESSION_STOPPED;
	ustd_rotation_stopped(s);
	if (was_active)
		ustd_sessions_publish(c->ss);
	snprintf(c->loss_name, sizeof(c->loss_name), "%s", s->name);
	free(c->loss_dir);
	c->loss_dir = s->relay || !s->dir ? NULL : strdup(s->dir);
	ustd_loss_tally_put(c->loss_tally);
	c->loss_tally = ustd_loss_tally_get(ustd_session_tally(s));
	conn_wait_begin(c, cmd);
	if (cmd == USTCOMM_CTL_SESSION_DESTROY)
		final = ustd_session_final_begin(c->ss, s, &c->waiter);
	if (final)
		ea.w = ustd_session_final_waiter(final);
	c->final = final;
	/* The sets of buffers per user end after the programs, before the
	 * last chunk's archive (session_uid.h). */
	if (cmd == USTCOMM_CTL_SESSION_DESTROY)
		uid_end = ustd_session_uid_end_begin(c->ss, s, ea.w);
	if (uid_end) {
		ea.w = ustd_session_uid_end_waiter(uid_end);
		if (!final)
			c->uid_end = uid_end;
	}
	ustd_session_for_each_app(c->ss, s, to_app, &ea);
	/* Buffers per user: what the processes wrote until now is written
	 * out; a destroyed session's is its last (session_uid.h). */
	if (cmd == USTCOMM_CTL_SESSION_STOP)
		ustd_session_uid_flush(s);
	if (cmd == USTCOMM_CTL_SESSION_DESTROY) {
		ustd_session_unlink(c->ss, s);
		ustd_session_free(s);
	}
	if (uid_end)
		ustd_session_uid_end_release(uid_end);
	if (final)
		ustd_session_final_release(final);
	conn_wait_end(c);
}

static void count_app(struct ustd_app *app, void *arg)
{
	(void)app;
	(*(unsigned *)arg)++;
}

static void cmd_list(struct conn *c)
{
	static const char *const states[] = { "created", "active", "stopped" };
	struct ustd_session *s;
	const char **args;
	char (*nums)[2][16];
	size_t n = 0, nr = 0;

	for (s = c->ss->list; s; s = s->next)
		nr++;
	args = calloc(6 * nr + 1, sizeof(*args));
	nums = calloc(nr + 1, sizeof(*nums));
	if (!args || !nums) {
		conn_error(c, USTCOMM_CTL_SESSION_LIST, -ENOMEM, "out of memory");
		goto end;
	}
	for (s = c->ss->list, nr = 0; s; s = s->next, nr++) {
		unsigned procs = 0;

		ustd_session_for_each_app(c->ss, s, count_app, &procs);
		snprintf(nums[nr][0], sizeof(nums[nr][0]), "%u", procs);
		snprintf(nums[nr][1], sizeof(nums[nr][1]), "%zu", s->nr_rules);
		args[n++] = s->name;
		args[n++] = states[s->state];
		args[n++] = s->dir;
		args[n++] = s->overwrite ? "1" : "0";
		args[n++] = nums[nr][0];
		args[n++] = nums[nr][1];
	}
	conn_reply(c, USTCOMM_CTL_SESSION_LIST, 0, args, n);
end:
	free(args);
	free(nums);
}

static void cmd_context(struct conn *c, const char *const *a)
{
	struct ustd_session *s = find_or_say(c, USTCOMM_CTL_SESSION_CONTEXT, a[0]);
	struct ustd_session_channel *ch;
	size_t len;

	if (!s)
		return;
	if (ustcomm_ctx_parse(a[2]) < 0) {
		conn_error(c, USTCOMM_CTL_SESSION_CONTEXT, -EINVAL, "unknown context '%s'", a[2]);
		return;
	}
	if (s->state != USTD_SESSION_CREATED) {
		conn_error(c, USTCOMM_CTL_SESSION_CONTEXT, -EBUSY,
			   "session '%s' was started: contexts are added before its first start",
			   a[0]);
		return;
	}
	ch = ustd_session_channel(s, a[1]);
	len = ch ? strlen(ch->contexts) : 0;
	if (!ch || len + strlen(a[2]) + 2 > sizeof(ch->contexts)) {
		conn_error(c, USTCOMM_CTL_SESSION_CONTEXT, -ENOSPC, "no room for more settings");
		return;
	}
	snprintf(ch->contexts + len, sizeof(ch->contexts) - len, "%s%s", len ? "," : "", a[2]);
	conn_reply(c, USTCOMM_CTL_SESSION_CONTEXT, 0, NULL, 0);
}

/* The chunk of the rotation asked for is published. */
static void conn_rotated(struct ustd_rotate_reply *r, const char *path)
{
	struct conn *c = (struct conn *)((char *)r - offsetof(struct conn, rot_reply));
	const char *args[1] = { path };

	c->waiting = false;
	c->rotating = false;
	conn_reply(c, USTCOMM_CTL_SESSION_ROTATE, 0, args, 1);
}

static void cmd_rotate(struct conn *c, const char *name)
{
	struct ustd_session *s = find_or_say(c, USTCOMM_CTL_SESSION_ROTATE, name);
	char path[4096];
	const char *args[1] = { path };
	int ret;

	if (!s)
		return;
	if (s->relay) {
		conn_error(c, USTCOMM_CTL_SESSION_ROTATE, -EOPNOTSUPP, USTD_SESSION_RELAY_NO_ROTATION,
			   name);
		return;
	}
	if (s->state == USTD_SESSION_CREATED || s->rot.rotated_since_stop || s->overwrite) {
		conn_error(c, USTCOMM_CTL_SESSION_ROTATE, s->overwrite ? -EOPNOTSUPP : -EINVAL,
			   s->overwrite ? "session '%s' is a flight recorder: its traces are written by snapshots, not rotated" :
			   s->state == USTD_SESSION_CREATED ? "session '%s' was never started: nothing to rotate (ustctl start-session %s)" :
			   "session '%s' was rotated since it stopped: nothing new to archive (ustctl start-session %s)",
			   name, name);
		return;
	}
	c->rot_reply.done = conn_rotated;
	ret = ustd_session_rotate(s, false, &c->rot_reply, path, sizeof(path));
	if (ret < 0) {
		conn_error(c, USTCOMM_CTL_SESSION_ROTATE, ret, "%s", path);
	} else if (ret == 0) {
		conn_reply(c, USTCOMM_CTL_SESSION_ROTATE, 0, args, 1);
	} else {
		c->waiting = true;
		c->waiting_cmd = USTCOMM_CTL_SESSION_ROTATE;
		c->rotating = true;
	}
}

static int parse_u64(const char *text, uint64_t *v)
{
	char *end;

	if (*text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(text, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

static void cmd_rotation(struct conn *c, const char *const *a)
{
	struct ustd_session *s = find_or_say(c, USTCOMM_CTL_SESSION_ROTATION, a[0]);
	uint64_t every, size, timeout;
	int ret;

	if (!s)
		return;
	if (parse_u64(a[1], &every) || parse_u64(a[2], &size) || parse_u64(a[4], &timeout) ||
	    (every && (every < USTCOMM_ROTATE_EVERY_MIN_US || every > USTCOMM_ROTATE_EVERY_MAX_US)) ||
	    (size && (size < USTCOMM_ROTATE_SIZE_MIN || size > UST_TRACEFILE_SIZE_MAX)) ||
	    (timeout && (timeout < USTCOMM_ON_ROTATE_TIMEOUT_MIN_US ||
			 timeout > USTCOMM_ON_ROTATE_TIMEOUT_MAX_US)) ||
	    strlen(a[3]) >= USTCOMM_ON_ROTATE_MAX) {
		conn_error(c, USTCOMM_CTL_SESSION_ROTATION, -EINVAL,
			   "malformed rotation schedule (a period of %llu ms to %llu days, a size of at least %llu bytes, a command of less than %u bytes, a bound of %llu ms to %llu h)",
			   USTCOMM_ROTATE_EVERY_MIN_US / 1000, USTCOMM_ROTATE_EVERY_MAX_US / 86400000000ull,
			   USTCOMM_ROTATE_SIZE_MIN, USTCOMM_ON_ROTATE_MAX,
			   USTCOMM_ON_ROTATE_TIMEOUT_MIN_US / 1000,
			   USTCOMM_ON_ROTATE_TIMEOUT_MAX_US / 3600000000ull);
		return;
	}
	if ((every || size || a[3][0]) && s->relay) {
		conn_error(c, USTCOMM_CTL_SESSION_ROTATION, -EOPNOTSUPP, USTD_SESSION_RELAY_NO_ROTATION,
			   a[0]);
		return;
	}
	if ((every || size) && s->overwrite) {
		conn_error(c, USTCOMM_CTL_SESSION_ROTATION, -EOPNOTSUPP,
			   "session '%s' is a flight recorder: its traces are written by snapshots, not rotated",
			   a[0]);
		return;
	}
	ret = ustd_rotation_set(s, every, size, a[3], timeout);
	if (ret)
		conn_error(c, USTCOMM_CTL_SESSION_ROTATION, ret, "out of memory");
	else
		conn_reply(c, USTCOMM_CTL_SESSION_ROTATION, 0, NULL, 0);
}

static void trigger_to_app(struct ustd_app *app, void *arg)
{
	struct each_arg *ea = arg;

	ustd_apply_begin(&ea->ss->apply, USTD_APPLY_TRIGGER, app->pid, ea->s, NULL, 0, NULL);
}

static void cmd_trigger(struct conn *c, const char *const *a)
{
	struct ustd_session *s = find_or_say(c, USTCOMM_CTL_SESSION_TRIGGER, a[0]);
	struct each_arg ea = { .ss = c->ss, .s = s };
	char why[512];
	uint32_t id;
	int ret;

	if (!s)
		return;
	ret = ustd_session_trigger_add(s, a + 1, &id, why, sizeof(why));
	if (ret) {
		conn_error(c, USTCOMM_CTL_SESSION_TRIGGER, ret, "%s", why);
		return;
	}
	/* Programs that join later get it with the session. */
	if (s->state == USTD_SESSION_ACTIVE)
		ustd_session_for_each_app(c->ss, s, trigger_to_app, &ea);
	conn_reply_u(c, USTCOMM_CTL_SESSION_TRIGGER, id);
}

static void cmd_list_triggers(struct conn *c, const char *name)
{
	const char *args[USTD_SESSION_TRIGGER_FIELDS * USTD_SESSION_TRIGGERS_MAX];
	char nums[6 * USTD_SESSION_TRIGGERS_MAX][24];
	struct ustd_session *s = find_or_say(c, USTCOMM_CTL_SESSION_LIST_TRIGGERS, name);

	if (s)
		conn_reply(c, USTCOMM_CTL_SESSION_LIST_TRIGGERS, 0, args,
			   ustd_session_triggers_list(s, args, nums));
}

struct untrigger_arg {
	struct ustd_sessions *ss;
	struct ustd_session *s;
	const char *dir;
};

static void untrigger_app(struct ustd_app *app, void *arg)
{
	struct untrigger_arg *ua = arg;

	ustd_apply_untrigger(&ua->ss->apply, app->pid, ua->s, ua->dir);
}

static void cmd_remove_trigger(struct conn *c, const char *const *a)
{
	struct ustd_session *s = find_or_say(c, USTCOMM_CTL_SESSION_REMOVE_TRIGGER, a[0]);
	struct untrigger_arg ua = { .ss = c->ss, .s = s };
	char *dir = NULL;
	uint32_t id;

	if (!s)
		return;
	if (ustcomm_parse_u32(a[1], &id) < 0 || ustd_session_trigger_remove(s, id, &dir) < 0) {
		conn_error(c, USTCOMM_CTL_SESSION_REMOVE_TRIGGER, -ENOENT,
			   "session '%s' has no trigger '%s' (ustctl list-triggers -s %s lists them)",
			   a[0], a[1], a[0]);
		return;
	}
	ua.dir = dir;
	ustd_session_for_each_app(c->ss, s, untrigger_app, &ua);
	free(dir);
	conn_reply(c, USTCOMM_CTL_SESSION_REMOVE_TRIGGER, 0, NULL, 0);
}

static void cmd_describe(struct conn *c, const char *name)
{
	struct ustd_session *s = find_or_say(c, USTCOMM_CTL_SESSION_DESCRIBE, name);
	const char **args = NULL;
	char *text = NULL;
	ssize_t n;

	if (!s)
		return;
	n = ustd_session_describe(s, c->ss->ctx->output, &args, &text);
	if (n < 0)
		conn_error(c, USTCOMM_CTL_SESSION_DESCRIBE, (int)n, "out of memory");
	else
		conn_reply(c, USTCOMM_CTL_SESSION_DESCRIBE, 0, args, (size_t)n);
	free(args);
	free(text);
}

static void cmd_channel(struct conn *c, const char *const *a)
{
	struct ustd_session *s = find_or_say(c, USTCOMM_CTL_SESSION_CHANNEL, a[0]);
	char why[512];
	int ret;

	if (!s)
		return;
	ret = ustd_session_set_channel(s, a + 1, why, sizeof(why));
	if (ret)
		conn_error(c, USTCOMM_CTL_SESSION_CHANNEL, ret, "%s", why);
	else
		conn_reply(c, USTCOMM_CTL_SESSION_CHANNEL, 0, NULL, 0);
}

static void cmd_status(struct conn *c, const char *name)
{
	struct ustd_session *s = find_or_say(c, USTCOMM_CTL_SESSION_STATUS, name);
	const char **args = NULL;
	char *text = NULL;
	ssize_t n;

	if (!s)
		return;
	n = ustd_session_status(c->ss, s, &args, &text);
	if (n < 0)
		conn_error(c, USTCOMM_CTL_SESSION_STATUS, (int)n, "out of memory");
	else
		conn_reply(c, USTCOMM_CTL_SESSION_STATUS, 0, args, (size_t)n);
	free(args);
	free(text);
}

static void cmd_snapshot(struct conn *c, const char *const *a)
{
	struct ustd_session *s = find_or_say(c, USTCOMM_CTL_SESSION_SNAPSHOT, a[0]);
	struct ustd_session_snap snap;
	char num[16];
	const char *args[2] = { snap.path, num };
	int ret;

	if (!s)
		return;
	ret = ustd_session_snapshot(c->ss, s, a[1], &snap);
	snprintf(num, sizeof(num), "%u", snap.taken);
	if (ret < 0)
		conn_error(c, USTCOMM_CTL_SESSION_SNAPSHOT, ret, "%s", snap.path);
	else
		conn_reply(c, USTCOMM_CTL_SESSION_SNAPSHOT, 0, args, 2);
}

static void cmd_clear(struct conn *c, const char *name)
{
	struct ustd_session *s = find_or_say(c, USTCOMM_CTL_SESSION_CLEAR, name);
	char why[512];
	unsigned n;
	int ret;

	if (!s)
		return;
	ret = ustd_session_clear(c->ss, s, &n, why, sizeof(why));
	if (ret < 0)
		conn_error(c, USTCOMM_CTL_SESSION_CLEAR, ret, "%s", why);
	else
		conn_reply_u(c, USTCOMM_CTL_SESSION_CLEAR, n);
}

/* A process of the session that no longer passes its trackers stops
 * recording, as LTTng stops recording an untracked process; tracked
 * again, the join below starts its trace again. */
static void untracked_stop(struct ustd_app *app, void *arg)
{
	struct each_arg *ea = arg;

	if (!ustd_session_tracks_pid(ea->s, app->pid))
		ustd_apply_begin(&ea->ss->apply, USTD_APPLY_STOP, app->pid, ea->s, NULL, 0, ea->w);
}

static void cmd_track(struct conn *c, const struct ustcomm_ctl_msg *msg)
{
	const char *pos = NULL, *name = ustcomm_ctl_next(msg, &pos);
	const char *a[USTCOMM_CTL_MAX_ARGS];
	struct ustd_session *s = find_or_say(c, msg->cmd, name);
	struct each_arg ea = { .ss = c->ss, .s = s, .w = &c->waiter };
	char why[512];
	size_t nr = 0, now;
	int ret;

	if (!s)
		return;
	while (nr < USTCOMM_CTL_MAX_ARGS && (a[nr] = ustcomm_ctl_next(msg, &pos)))
		nr++;
	ret = ustd_session_track(s, a, nr, &now, why, sizeof(why));
	if (ret < 0) {
		conn_error(c, msg->cmd, ret, "%s", why);
		return;
	}
	/* Answered once the processes it stops or starts answered. */
	c->tracked_now = now;
	conn_wait_begin(c, msg->cmd);
	if (s->state == USTD_SESSION_ACTIVE) {
		ustd_sessions_publish(c->ss);
		ustd_session_for_each_app(c->ss, s, untracked_stop, &ea);
		ustd_session_join_all(c->ss, s, &c->waiter);
	}
	conn_wait_end(c);
}

/* The requests after which the session's kept file is written again:
 * every one but those that only read (session_persist.h). */
static bool changes_session(uint16_t cmd)
{
	return cmd != USTCOMM_CTL_SESSION_LIST && cmd != USTCOMM_CTL_SESSION_LIST_TRIGGERS &&
	       cmd != USTCOMM_CTL_SESSION_DESCRIBE && cmd != USTCOMM_CTL_SESSION_STATUS;
}

static void conn_execute(struct conn *c, const struct ustcomm_ctl_msg *msg)
{
	const char *a[8] = { 0 }, *pos = NULL;
	uint32_t i;

	if (ustcomm_ctl_check_request(msg) < 0 || msg->cmd < USTCOMM_CTL_SESSION_CREATE ||
	    msg->cmd > USTCOMM_CTL_CMD_MAX) {
		conn_error(c, msg->cmd, -EINVAL,
			   "not a session request, or the wrong number of arguments");
		return;
	}
	for (i = 0; i < 8 && i < msg->nr_strings; i++)
		a[i] = ustcomm_ctl_next(msg, &pos);
	/* A controller that reads the session's file (or a restarted ustd)
	 * once answered finds what the request did. */
	c->holding = changes_session(msg->cmd);
	switch (msg->cmd) {
	case USTCOMM_CTL_SESSION_CREATE:
		cmd_create(c, a);
		break;
	case USTCOMM_CTL_SESSION_RULES:
		cmd_rules(c, msg);
		break;
	case USTCOMM_CTL_SESSION_START:
		cmd_start(c, a[0]);
		break;
	case USTCOMM_CTL_SESSION_STOP:
	case USTCOMM_CTL_SESSION_DESTROY:
		cmd_stop_destroy(c, msg->cmd, a[0]);
		break;
	case USTCOMM_CTL_SESSION_LIST:
		cmd_list(c);
		break;
	case USTCOMM_CTL_SESSION_CONTEXT:
		cmd_context(c, a);
		break;
	case USTCOMM_CTL_SESSION_ROTATE:
		cmd_rotate(c, a[0]);
		break;
	case USTCOMM_CTL_SESSION_ROTATION:
		cmd_rotation(c, a);
		break;
	case USTCOMM_CTL_SESSION_TRIGGER:
		cmd_trigger(c, a);
		break;
	case USTCOMM_CTL_SESSION_LIST_TRIGGERS:
		cmd_list_triggers(c, a[0]);
		break;
	case USTCOMM_CTL_SESSION_REMOVE_TRIGGER:
		cmd_remove_trigger(c, a);
		break;
	case USTCOMM_CTL_SESSION_DESCRIBE:
		cmd_describe(c, a[0]);
		break;
	case USTCOMM_CTL_SESSION_CHANNEL:
		cmd_channel(c, a);
		break;
	case USTCOMM_CTL_SESSION_STATUS:
		cmd_status(c, a[0]);
		break;
	case USTCOMM_CTL_SESSION_SNAPSHOT:
		cmd_snapshot(c, a);
		break;
	case USTCOMM_CTL_SESSION_CLEAR:
		cmd_clear(c, a[0]);
		break;
	case USTCOMM_CTL_SESSION_TRACK:
		cmd_track(c, msg);
		break;
	default:
		conn_error(c, msg->cmd, -EOPNOTSUPP, "%s: not supported by this ustd",
			   ustcomm_ctl_cmd_name(msg->cmd));
		break;
	}
	if (changes_session(msg->cmd))
		ustd_session_keep(c->ss, a[0]);
	c->holding = false;
	if (c->held) {
		conn_send(c, c->held, c->held_len);
		free(c->held);
		c->held = NULL;
	}
}

static void conn_close(struct conn *c)
{
	if (c->rotating)
		ustd_chunk_publish_forget_reply(&c->rot_reply);
	else if (c->waiting)
		ustd_apply_forget_waiter(&c->waiter);
	if (c->final)
		ustd_session_final_forget(c->final);
	if (c->uid_end)
		ustd_session_uid_end_forget(c->uid_end);
	/* Out of the set before the close: an --on-rotate command being
	 * started holds a copy of every descriptor until its exec, which
	 * would keep the registration, and its pointer, alive. */
	epoll_ctl(c->ss->ctx->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	ustd_listen_resume(&c->ss->listen_pause);
	free(c->in);
	free(c->held);
	free(c->loss_dir);
	free(c->waiter.rule_matched);
	ustd_busy_fini(&c->waiter.busy);
	ustd_loss_tally_put(c->loss_tally);
	free(c);
}

static void conn_on_socket(struct ustd_session_watch *w, uint32_t events)
{
	struct conn *c = (struct conn *)w;
	struct ustcomm_ctl_msg msg;
	ssize_t n;

	(void)events;
	if (c->in_cap - c->in_len < 4096) {
		char *bigger = c->in_cap > USTCOMM_CTL_MAX_SESSION_REQUEST ? NULL :
			       realloc(c->in, c->in_cap + 65536);

		if (!bigger) {
			conn_close(c);
			return;
		}
		c->in = bigger;
		c->in_cap += 65536;
	}
	n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		conn_close(c);
		return;
	}
	c->in_len += (size_t)n;
	/* One request at a time: the next waits for this one's reply. */
	while (!c->waiting) {
		n = ustcomm_ctl_decode(c->in, c->in_len, USTCOMM_CTL_MAX_SESSION_REQUEST, &msg);
		if (n < 0) {
			ustcomm_err("malformed request on the session socket; connection dropped");
			conn_close(c);
			return;
		}
		if (n == 0)
			break;
		conn_execute(c, &msg);
		memmove(c->in, c->in + n, c->in_len - (size_t)n);
		c->in_len -= (size_t)n;
	}
}

static void on_listen(struct ustd_session_watch *w, uint32_t events)
{
	struct ustd_sessions *ss = (struct ustd_sessions *)((char *)w -
				    offsetof(struct ustd_sessions, listen_watch));
	struct epoll_event ev = { .events = EPOLLIN };
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct conn *c;
	int fd, i;

	(void)events;
	/* A batch a wake-up: the loop serves the rest between two. */
	for (i = 0; i < SESSION_ACCEPT_BATCH; i++) {
		fd = accept4(ss->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0 && (errno == EINTR || errno == ECONNABORTED))
			continue;
		/* Out of descriptors or memory: the socket, readable still,
		 * is set aside a while (listen_pause.h). */
		if (fd < 0 && errno != EAGAIN)
			ustd_listen_pause(&ss->listen_pause, "session socket", strerror(errno));
		if (fd < 0)
			break;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ||
		    (cred.uid != getuid() && cred.uid != 0) || !(c = calloc(1, sizeof(*c)))) {
			ustcomm_err("session socket: connection refused (another user, or out of memory)");
			close(fd);
			continue;
		}
		c->watch.watch.kind = USTD_WATCH_SESSION;
		c->watch.fn = conn_on_socket;
		c->ss = ss;
		c->fd = fd;
		ev.data.ptr = &c->watch;
		if (epoll_ctl(ss->ctx->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			close(fd);
			free(c);
		}
	}
}

struct untracked_arg {
	struct ustd_sessions *ss;
	struct ustd_session *s;
	pid_t pid;
};

static void stop_pid(struct ustd_app *app, void *arg)
{
	struct untracked_arg *ua = arg;

	if (app->pid == ua->pid)
		ustd_apply_begin(&ua->ss->apply, USTD_APPLY_STOP, app->pid, ua->s, NULL, 0, NULL);
}

/* A fork child the trackers leave out that started its parent's trace
 * (ustd_session_trace_dir() stops it at its hello) opens its control
 * socket only after: it may not have been there to be stopped. */
static void stop_untracked(struct ustd_sessions *ss, struct ustd_session *s, pid_t pid)
{
	struct untracked_arg ua = { .ss = ss, .s = s, .pid = pid };

	ustd_session_for_each_app(ss, s, stop_pid, &ua);
}

/* A program's socket appeared: it joins every active session that
 * tracks it (a program that joined by itself says so and is left
 * alone). */
static void on_inotify(struct ustd_session_watch *w, uint32_t events)
{
	struct ustd_sessions *ss = (struct ustd_sessions *)((char *)w -
				    offsetof(struct ustd_sessions, inotify_watch));
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ie;
	struct ustd_session *s;
	ssize_t n;
	char *end;
	long pid;

	(void)events;
	while ((n = read(ss->inotify_fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n; p += sizeof(*ie) + ie->len) {
			ie = (const struct inotify_event *)p;
			if (!ie->len)
				continue;
			pid = strtol(ie->name, &end, 10);
			if (!isdigit((unsigned char)ie->name[0]) || *end || pid <= 0)
				continue;
			for (s = ss->list; s; s = s->next) {
				if (s->state != USTD_SESSION_ACTIVE)
					continue;
				if (ustd_session_tracks_pid(s, (pid_t)pid))
					ustd_apply_begin(&ss->apply, USTD_APPLY_JOIN, (pid_t)pid, s,
							 NULL, 0, NULL);
				else
					stop_untracked(ss, s, (pid_t)pid);
			}
		}
	}
}

static int listen_on(struct ustd_sessions *ss)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &ss->listen_watch };
	mode_t old_umask;
	int ret;

	if (strlen(ss->sock_path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, ss->sock_path);
	/* ustd holds its main socket: whatever is here was left by one that died. */
	unlink(ss->sock_path);
	ss->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (ss->listen_fd < 0)
		return -errno;
	old_umask = umask(0077);
	ret = bind(ss->listen_fd, (struct sockaddr *)&addr, sizeof(addr));
	umask(old_umask);
	if (ret < 0 || listen(ss->listen_fd, SOMAXCONN) < 0)
		return -errno;
	return ustd_listen_pause_init(&ss->listen_pause, ss->ctx->epfd, ss->listen_fd, &ev);
}

/* What a program's trace asks of the sessions (ustd/conn/conn.h). */
static const struct ustd_app_owner session_owner = {
	.relay = ustd_session_relay,
	.trace_dir = ustd_session_trace_dir,
	.stream_limits = ustd_session_stream_limits,
	.tally = ustd_session_tally,
	.trigger_fired = ustd_session_trigger_fired,
	.trace_ended = ustd_rotation_trace_ended,
};

int ustd_sessions_start(struct ustd_sessions **out, struct ustd_ctx *ctx,
			const char *daemon_path, struct ustd_app **apps)
{
	struct ustd_sessions *ss = calloc(1, sizeof(*ss));
	int ret;

	*out = NULL;
	if (!ss)
		return -ENOMEM;
	ss->ctx = ctx;
	ss->apps = apps;
	ss->listen_fd = ss->inotify_fd = ss->listen_pause.timer_fd = -1;
	ss->apply.epfd = ctx->epfd;
	ss->listen_watch.watch.kind = ss->inotify_watch.watch.kind = USTD_WATCH_SESSION;
	ss->listen_watch.fn = on_listen;
	ss->inotify_watch.fn = on_inotify;
	ret = ustcomm_daemon_sibling_path(ss->sock_path, sizeof(ss->sock_path), daemon_path,
					  USTCOMM_SESSION_SOCKET_SUFFIX);
	if (!ret)
		ret = ustcomm_daemon_sibling_path(ss->file_path, sizeof(ss->file_path), daemon_path,
						  USTCOMM_SESSION_FILE_SUFFIX);
	if (!ret)
		ret = ustcomm_daemon_sibling_path(ss->keep_dir, sizeof(ss->keep_dir), daemon_path,
						  USTD_SESSION_KEEP_SUFFIX);
	if (ret) {
		ustcomm_err("the session socket's path (%s%s) is too long", daemon_path,
			    USTCOMM_SESSION_SOCKET_SUFFIX);
		goto end;
	}
	/* A restarted ustd holds no session: programs must not join one. */
	unlink(ss->file_path);
	ret = listen_on(ss);
	if (ret) {
		ustcomm_err("cannot serve sessions on %s: %s", ss->sock_path, strerror(-ret));
		goto end;
	}
	ret = ustcomm_apps_dir(ss->apply.apps_dir, sizeof(ss->apply.apps_dir));
	if (ret)
		ustcomm_err("cannot name the programs' directory: %s", strerror(-ret));
	else
		ustd_sessions_resume(ss);
end:
	if (ret) {
		ustd_sessions_fini(ss);
	} else {
		*out = ss;
		ctx->owner = &session_owner;
	}
	return ret;
}

void ustd_sessions_fini(struct ustd_sessions *ss)
{
	struct ustd_session *s;

	if (!ss)
		return;
	ustd_apply_fini();
	ustd_on_rotate_fini();
	while ((s = ss->list)) {
		ss->list = s->next;
		ustd_session_free(s);
	}
	ustd_rotation_reap();
	ustd_listen_pause_fini(&ss->listen_pause);
	if (ss->listen_fd >= 0) {
		close(ss->listen_fd);
		unlink(ss->sock_path);
	}
	if (ss->inotify_fd >= 0)
		close(ss->inotify_fd);
	if (ss->file_path[0])
		unlink(ss->file_path);
	free(ss);
}
