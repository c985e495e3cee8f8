/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One conversation = a queue of encoded requests sent one at a time on a
 * non-blocking connection, each reply read whole before the next request
 * goes. A timerfd bounds the whole conversation, and retries a connection
 * refused because the program has bound its socket but not yet called
 * listen() (inotify saw the bind).
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>
#include "libustcomm/log.h"
#include "ustd/conn/app.h"
#include "ustd/session/session_apply.h"
#include "ustd/session/session_track.h"
#include "ustd/session/session_trigger.h"
#include "ustd/session/session_uid.h"

#define APPLY_TIMEOUT_S		15	/* destroy waits for ustd to write */
#define APPLY_RETRY_MS		20
#define APPLY_RETRIES		5
#define APPLY_MAX_MSGS		(5 + USTD_SESSION_TRIGGERS_MAX)
/* A program that read the session at start joins at its first matching
 * event: asked again that often, that many times, for its triggers. */
#define APPLY_WAIT_MS		50
#define APPLY_WAITS		200

struct job {
	struct ustd_session_watch sock_watch;
	struct ustd_session_watch timer_watch;
	struct ustd_apply_ctx *ac;
	enum ustd_apply_kind kind;
	pid_t pid;
	char session[USTCOMM_SESSION_NAME_MAX];
	int fd, timer_fd;
	unsigned retries, waits;
	/* Requests to send, in order; [cur] is under way. */
	char *msg[APPLY_MAX_MSGS];
	size_t len[APPLY_MAX_MSGS];
	unsigned nr, cur;
	size_t sent;
	/* The request the join sends once the program says "free". */
	char *join_msg[4];
	size_t join_len[4];
	/* The session's triggers, added once its trace is there. */
	char *trig_msg[USTD_SESSION_TRIGGERS_MAX];
	size_t trig_len[USTD_SESSION_TRIGGERS_MAX];
	unsigned nr_trig;
	/* USTD_APPLY_UNTRIGGER: the directory of the trigger to remove. */
	char *untrig_dir;
	char *in;
	size_t in_len, in_cap;
	struct ustd_apply_waiter *waiter;
	/* A join waiting for another join of the same program to end. */
	bool queued;
	struct job *next;
};

static struct job *jobs;
/* ustd_apply_fini(): queued joins end without starting. */
static bool finishing;

static void job_connect(struct job *j);

/* The oldest join of pid that waits (jobs are added at the head). */
static struct job *join_queued(pid_t pid)
{
	struct job *j, *found = NULL;

	for (j = jobs; j; j = j->next) {
		if (j->kind == USTD_APPLY_JOIN && j->pid == pid && j->queued)
			found = j;
	}
	return found;
}

static bool join_under_way(pid_t pid)
{
	struct job *j;

	for (j = jobs; j; j = j->next) {
		if (j->kind == USTD_APPLY_JOIN && j->pid == pid && !j->queued)
			return true;
	}
	return false;
}

static void job_end(struct job *j, int ok)
{
	struct job **link;
	unsigned i;

	for (link = &jobs; *link; link = &(*link)->next) {
		if (*link == j) {
			*link = j->next;
			break;
		}
	}
	/* Out of the set before the close (session_ctl.c's conn_close()
	 * says why). */
	if (j->fd >= 0) {
		epoll_ctl(j->ac->epfd, EPOLL_CTL_DEL, j->fd, NULL);
		close(j->fd);
	}
	if (j->timer_fd >= 0) {
		epoll_ctl(j->ac->epfd, EPOLL_CTL_DEL, j->timer_fd, NULL);
		close(j->timer_fd);
	}
	for (i = 0; i < j->nr; i++)
		free(j->msg[i]);
	for (i = 0; i < 4; i++)
		free(j->join_msg[i]);
	for (i = 0; i < j->nr_trig; i++)
		free(j->trig_msg[i]);
	free(j->untrig_dir);
	free(j->in);
	if (j->waiter) {
		j->waiter->ok += ok ? 1 : 0;
		if (--j->waiter->pending == 0)
			j->waiter->done(j->waiter);
	}
	if (j->kind == USTD_APPLY_JOIN && !j->queued && !finishing) {
		struct job *next = join_queued(j->pid);

		if (next) {
			next->queued = false;
			job_connect(next);
		}
	}
	free(j);
}

static void job_fail(struct job *j, const char *fmt, const char *why)
{
	ustcomm_err("session %s, process %d: %s%s", j->session, (int)j->pid, fmt, why);
	job_end(j, 0);
}

static int job_arm(struct job *j, long ms)
{
	struct itimerspec its = { .it_value = { ms / 1000, (ms % 1000) * 1000000L } };

	return timerfd_settime(j->timer_fd, 0, &its, NULL) < 0 ? -errno : 0;
}

static int job_watch(struct job *j, uint32_t events, int op)
{
	struct epoll_event ev = { .events = events, .data.ptr = &j->sock_watch };

	return epoll_ctl(j->ac->epfd, op, j->fd, &ev) < 0 ? -errno : 0;
}

/* Connects (again); a refusal while retries remain arms the retry timer. */
static void job_connect(struct job *j)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	int n;

	n = snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/%d", j->ac->apps_dir, (int)j->pid);
	if (n < 0 || (size_t)n >= sizeof(addr.sun_path)) {
		job_fail(j, "control socket path too long", "");
		return;
	}
	j->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (j->fd < 0) {
		job_fail(j, "cannot create a socket: ", strerror(errno));
		return;
	}
	if (connect(j->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		int err = errno;

		close(j->fd);
		j->fd = -1;
		if ((err == ECONNREFUSED || err == EAGAIN) && j->retries++ < APPLY_RETRIES &&
		    job_arm(j, APPLY_RETRY_MS) == 0)
			return;
		/*
		 * A program that exited is no fault of the session. A socket
		 * nobody listens on, whose process is gone, is left over (a
		 * fork() child opens one and may exec() or exit at once): it
		 * goes, so that apps/ holds no dead programs.
		 */
		if (err == ECONNREFUSED && kill(j->pid, 0) < 0 && errno == ESRCH)
			unlink(addr.sun_path);
		if (err == ENOENT || err == ECONNREFUSED)
			job_end(j, 0);
		else
			job_fail(j, "cannot connect to its control socket: ", strerror(err));
		return;
	}
	if (getsockopt(j->fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0 ||
	    (cred.uid != getuid() && cred.uid != 0)) {
		job_fail(j, "its control socket is served by another user; left alone", "");
		return;
	}
	if (job_arm(j, APPLY_TIMEOUT_S * 1000L) < 0 || job_watch(j, EPOLLOUT, EPOLL_CTL_ADD) < 0)
		job_fail(j, "cannot wait for its answer: ", strerror(errno));
}

static void job_next(struct job *j)
{
	j->cur++;
	j->sent = 0;
	j->in_len = 0;
	if (j->cur == j->nr) {
		job_end(j, 1);
		return;
	}
	if (job_watch(j, EPOLLOUT, EPOLL_CTL_MOD) < 0)
		job_fail(j, "epoll: ", strerror(errno));
}

static void job_queue(struct job *j, char **msg, size_t *len)
{
	j->msg[j->nr] = *msg;
	j->len[j->nr++] = *len;
	*msg = NULL;
}

static void job_queue_triggers(struct job *j)
{
	unsigned i;

	for (i = 0; i < j->nr_trig; i++)
		job_queue(j, &j->trig_msg[i], &j->trig_len[i]);
	j->nr_trig = 0;
}

/* Asks the program's state again later, on a new connection. */
static void job_ask_later(struct job *j)
{
	epoll_ctl(j->ac->epfd, EPOLL_CTL_DEL, j->fd, NULL);
	close(j->fd);
	j->fd = -1;
	j->sent = 0;
	j->in_len = 0;
	if (job_arm(j, APPLY_WAIT_MS) < 0)
		job_fail(j, "cannot wait to install the session's triggers: ", strerror(errno));
}

/* LIST_TRIGGERS' answer (10 strings a trigger, the number first, the
 * directory fourth): REMOVE_TRIGGER of the one with untrig_dir, if any. */
static int job_untrigger(struct job *j, const struct ustcomm_ctl_msg *reply)
{
	const char *pos = NULL, *f[10], *args[2] = { j->session };
	uint32_t i, k;

	for (i = 0; i + 10 <= reply->nr_strings; i += 10) {
		for (k = 0; k < 10; k++)
			f[k] = ustcomm_ctl_next(reply, &pos);
		if (strcmp(f[3], j->untrig_dir))
			continue;
		args[1] = f[0];
		if (ustcomm_ctl_encode(USTCOMM_CTL_REMOVE_TRIGGER, 0, 0, args, 2, &j->msg[j->nr],
				       &j->len[j->nr]) < 0)
			return -ENOMEM;
		j->nr++;
		break;
	}
	return 0;
}

/* SESSION_STATE's "1" or "0" per enable rule, after the state at pos. */
static void job_rules_matched(struct job *j, const struct ustcomm_ctl_msg *reply,
			      const char *pos)
{
	struct ustd_apply_waiter *w = j->waiter;
	const char *s;
	size_t i;

	if (!w || !w->rule_matched)
		return;
	for (i = 0; i < w->nr_rules && (s = ustcomm_ctl_next(reply, &pos)); i++) {
		w->rules_told = true;
		if (strcmp(s, "0"))
			w->rule_matched[i] = true;
	}
}

/* Whether a program that traces something else matches the session: a
 * rule's "1" after the state at pos, or none told (too many rules to ask,
 * or a program of before), when it cannot be ruled out. */
static bool job_busy_matches(const struct ustcomm_ctl_msg *reply, const char *pos)
{
	const char *s;
	bool told = false;

	while ((s = ustcomm_ctl_next(reply, &pos))) {
		if (strcmp(s, "0"))
			return true;
		told = true;
	}
	return !told;
}

/* A whole reply to msg[cur]: status and, for SESSION_STATE, what to do. */
static void job_reply(struct job *j, const struct ustcomm_ctl_msg *reply)
{
	const char *pos = NULL, *s = ustcomm_ctl_next(reply, &pos);
	unsigned i;

	if (reply->status < 0) {
		/* Two joins racing (ustd's and the program's own): created
		 * already is what was asked. */
		job_fail(j, "", s ? s : strerror(-reply->status));
		return;
	}
	if (reply->cmd == USTCOMM_CTL_LIST_TRIGGERS) {
		if (job_untrigger(j, reply) < 0)
			job_fail(j, "out of memory", "");
		else
			job_next(j);
		return;
	}
	if (reply->cmd != USTCOMM_CTL_SESSION_STATE || !s) {
		job_next(j);
		return;
	}
	job_rules_matched(j, reply, pos);
	if (!strcmp(s, "free")) {
		for (i = 0; i < 4; i++)
			job_queue(j, &j->join_msg[i], &j->join_len[i]);
		job_queue_triggers(j);
	} else if (!strcmp(s, "created") || !strcmp(s, "allocated") || !strcmp(s, "stopped")) {
		/* Its trace of the session was stopped: START_TRACE, the last. */
		job_queue(j, &j->join_msg[3], &j->join_len[3]);
		job_queue_triggers(j);
	} else if (!strcmp(s, "started")) {
		/* It joined by itself; the triggers are not in the published
		 * file (a program adds the same trigger once only). */
		job_queue_triggers(j);
	} else if (!strcmp(s, "waiting") && j->nr_trig) {
		if (j->waits++ < APPLY_WAITS)
			job_ask_later(j);
		else
			job_fail(j, "its trace of the session did not start in time: the session's triggers are not installed there", "");
		return;
	} else if (!strcmp(s, "nomatch")) {
		job_end(j, 0);
		return;
	} else if (!strcmp(s, "busy")) {
		ustcomm_dbg("session %s: process %d traces for another session or trace; left alone",
			    j->session, (int)j->pid);
		if (j->waiter && job_busy_matches(reply, pos) &&
		    ustd_busy_add(&j->waiter->busy, j->pid) < 0)
			ustcomm_err("session %s: out of memory; process %d, left alone, is not counted",
				    j->session, (int)j->pid);
		job_end(j, 0);
		return;
	}
	job_next(j);
}

static void job_on_socket(struct ustd_session_watch *w, uint32_t events)
{
	struct job *j = (struct job *)((char *)w - offsetof(struct job, sock_watch));
	struct ustcomm_ctl_msg reply;
	ssize_t n;

	if (j->sent < j->len[j->cur]) {
		n = send(j->fd, j->msg[j->cur] + j->sent, j->len[j->cur] - j->sent,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			job_end(j, 0);	/* it exited */
			return;
		}
		if (n > 0)
			j->sent += (size_t)n;
		if (j->sent == j->len[j->cur] && job_watch(j, EPOLLIN, EPOLL_CTL_MOD) < 0)
			job_fail(j, "epoll: ", strerror(errno));
		return;
	}
	if (j->in_cap - j->in_len < 4096) {
		char *bigger = realloc(j->in, j->in_cap + 65536);

		if (!bigger) {
			job_fail(j, "out of memory", "");
			return;
		}
		j->in = bigger;
		j->in_cap += 65536;
	}
	n = recv(j->fd, j->in + j->in_len, j->in_cap - j->in_len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		job_end(j, 0);	/* it exited before answering */
		return;
	}
	(void)events;
	j->in_len += (size_t)n;
	n = ustcomm_ctl_decode(j->in, j->in_len, USTCOMM_CTL_MAX_REPLY, &reply);
	if (n < 0)
		job_fail(j, "malformed answer", "");
	else if (n > 0)
		job_reply(j, &reply);
}

static void job_on_timer(struct ustd_session_watch *w, uint32_t events)
{
	struct job *j = (struct job *)((char *)w - offsetof(struct job, timer_watch));
	uint64_t ticks;

	(void)events;
	if (read(j->timer_fd, &ticks, sizeof(ticks)) < 0)
		return;
	if (j->fd < 0)
		job_connect(j);
	else
		job_fail(j, "no answer in time (stopped, or blocking its control signal?)", "");
}

static int encode(struct job *j, uint16_t cmd, char **msg, size_t *len)
{
	const char *args[1] = { j->session };

	return ustcomm_ctl_encode(cmd, 0, 0, args, 1, msg, len);
}

static int job_fill(struct job *j, const struct ustd_session *s,
		    const struct ustd_session_rule *rules, size_t nr_rules)
{
	int ret = 0;

	switch (j->kind) {
	case USTD_APPLY_JOIN:
		ret = ustd_session_encode_state(s, &j->msg[0], &j->len[0]);
		j->nr = 1;
		if (!ret)
			ret = ustd_session_encode_overwrite(s, &j->join_msg[0], &j->join_len[0]);
		if (!ret)
			ret = ustd_session_encode_load(s, NULL, 0, &j->join_msg[1], &j->join_len[1]);
		if (!ret)
			ret = encode(j, USTCOMM_CTL_CREATE_TRACE, &j->join_msg[2], &j->join_len[2]);
		if (!ret)
			ret = encode(j, USTCOMM_CTL_START_TRACE, &j->join_msg[3], &j->join_len[3]);
		for (; !ret && j->nr_trig < s->nr_triggers; j->nr_trig++)
			ret = ustd_session_encode_trigger(s, &s->triggers[j->nr_trig],
							  &j->trig_msg[j->nr_trig],
							  &j->trig_len[j->nr_trig]);
		break;
	case USTD_APPLY_TRIGGER:
		ret = ustd_session_encode_trigger(s, &s->triggers[s->nr_triggers - 1], &j->msg[0],
						  &j->len[0]);
		j->nr = 1;
		break;
	case USTD_APPLY_TRIGGERS:
		for (; !ret && j->nr < s->nr_triggers; j->nr++)
			ret = ustd_session_encode_trigger(s, &s->triggers[j->nr], &j->msg[j->nr],
							  &j->len[j->nr]);
		break;
	case USTD_APPLY_UNTRIGGER:
		ret = encode(j, USTCOMM_CTL_LIST_TRIGGERS, &j->msg[0], &j->len[0]);
		j->nr = 1;
		break;
	case USTD_APPLY_RULES:
		ret = ustd_session_encode_load(s, rules, nr_rules, &j->msg[0], &j->len[0]);
		j->nr = 1;
		break;
	case USTD_APPLY_START:
		ret = encode(j, USTCOMM_CTL_START_TRACE, &j->msg[0], &j->len[0]);
		j->nr = 1;
		break;
	case USTD_APPLY_STOP:
		ret = encode(j, USTCOMM_CTL_STOP_TRACE, &j->msg[0], &j->len[0]);
		j->nr = 1;
		break;
	case USTD_APPLY_DESTROY:
		ret = encode(j, USTCOMM_CTL_DESTROY_TRACE, &j->msg[0], &j->len[0]);
		j->nr = 1;
		break;
	}
	return ret;
}

static int apply_begin(struct ustd_apply_ctx *ac, enum ustd_apply_kind kind, pid_t pid,
		       const struct ustd_session *s, const struct ustd_session_rule *rules,
		       size_t nr_rules, const char *untrig_dir, struct ustd_apply_waiter *w)
{
	struct job *j = calloc(1, sizeof(*j));
	struct epoll_event ev = { .events = EPOLLIN };
	int ret;

	if (!j) {
		ustcomm_err("session %s: out of memory; process %d left alone", s->name, (int)pid);
		return -ENOMEM;
	}
	j->sock_watch.watch.kind = USTD_WATCH_SESSION;
	j->sock_watch.fn = job_on_socket;
	j->timer_watch.watch.kind = USTD_WATCH_SESSION;
	j->timer_watch.fn = job_on_timer;
	j->ac = ac;
	j->kind = kind;
	j->pid = pid;
	j->fd = -1;
	snprintf(j->session, sizeof(j->session), "%s", s->name);
	j->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	ret = j->timer_fd < 0 ? -errno : job_fill(j, s, rules, nr_rules);
	if (!ret && untrig_dir && !(j->untrig_dir = strdup(untrig_dir)))
		ret = -ENOMEM;
	ev.data.ptr = &j->timer_watch;
	if (!ret && epoll_ctl(ac->epfd, EPOLL_CTL_ADD, j->timer_fd, &ev) < 0)
		ret = -errno;
	if (ret) {
		ustcomm_err("session %s: cannot talk to process %d: %s", s->name, (int)pid,
			    strerror(-ret));
		/* Never under way: it holds back no other join. */
		j->queued = true;
		job_end(j, 0);
		return ret;
	}
	j->waiter = w;
	if (w)
		w->pending++;
	j->queued = kind == USTD_APPLY_JOIN && join_under_way(pid);
	j->next = jobs;
	jobs = j;
	if (!j->queued)
		job_connect(j);
	return 0;
}

int ustd_apply_begin(struct ustd_apply_ctx *ac, enum ustd_apply_kind kind, pid_t pid,
		     const struct ustd_session *s, const struct ustd_session_rule *rules,
		     size_t nr_rules, struct ustd_apply_waiter *w)
{
	return apply_begin(ac, kind, pid, s, rules, nr_rules, NULL, w);
}

int ustd_apply_untrigger(struct ustd_apply_ctx *ac, pid_t pid, const struct ustd_session *s,
			 const char *dir)
{
	return apply_begin(ac, USTD_APPLY_UNTRIGGER, pid, s, NULL, 0, dir, NULL);
}

void ustd_apply_forget_waiter(struct ustd_apply_waiter *w)
{
	struct job *j;

	for (j = jobs; j; j = j->next) {
		if (j->waiter == w)
			j->waiter = NULL;
	}
}

void ustd_apply_fini(void)
{
	finishing = true;
	while (jobs)
		job_end(jobs, 0);
}

int ustd_session_trace_dir(struct ustd_sessions *ss, struct ustd_app *app,
			   const char *trace_name, struct ustd_trace_dir *td)
{
	struct ustd_session *s = ustd_session_find(ss, trace_name);
	int ret;

	if (!s)
		return 0;
	if (app->uid_sink) {
		/* uid-UID: the sink's pid is its uid (ustd/conn/uid_set.c). */
		ret = ustd_trace_dir_create_proc(td, s->dir, app->procname, app->pid);
		if (ret == 0)
			app->session = s;
		return ret < 0 ? ret : 1;
	}
	if (s->per_uid) {
		ret = ustd_session_uid_join(ss, s, app);
		if (ret < 0)
			return ret;
		app->session = s;
		if (!ustd_session_tracks_pid(s, app->pid))
			ustd_apply_begin(&ss->apply, USTD_APPLY_STOP, app->pid, s, NULL, 0, NULL);
		return 2;
	}
	ret = ustd_trace_dir_create_proc(td, s->dir, app->procname, app->pid);
	if (ret < 0)
		return ret;
	app->session = s;
	/* A program that joined by itself, at its first matching event, may
	 * have started before the session's last trigger was added, when
	 * nothing installed it: it gets them all now (one it holds already,
	 * it takes as the same). */
	if (s->nr_triggers)
		ustd_apply_begin(&ss->apply, USTD_APPLY_TRIGGERS, app->pid, s, NULL, 0, NULL);
	/* A fork child starts its parent's trace by itself (6, "When the
	 * program forks"); with its own pid it may not pass the trackers,
	 * as in LTTng, where a tracked pid's child is another pid. */
	if (!ustd_session_tracks_pid(s, app->pid))
		ustd_apply_begin(&ss->apply, USTD_APPLY_STOP, app->pid, s, NULL, 0, NULL);
	return 1;
}
