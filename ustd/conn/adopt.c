/* SPDX-License-Identifier: GPL-2.0-only */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/log.h"
#include "libustcomm/rundir.h"
#include "ustd/conn/adopt.h"

/* How long the applications asked to reconnect have to answer. */
#define ADOPT_WAIT_S	5

static void adopt_close(struct ustd_adopt *a, struct ustd_adopt_conn *c)
{
	if (c->done)
		return;
	epoll_ctl(a->ctx->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	c->done = true;
}

static void adopt_ask(struct ustd_adopt *a, const char *path, pid_t pid, const char *sock_path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct epoll_event ev = { .events = EPOLLIN };
	struct ustcomm_ctl_header hdr;
	size_t plen = strlen(sock_path) + 1;
	char req[sizeof(hdr) + PATH_MAX];
	struct ustd_adopt_conn *c = NULL;
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path) || plen > PATH_MAX)
		return;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	/* A full backlog (EAGAIN) means a stuck application: skipped. */
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0 ||
	    cred.uid != getuid())
		goto drop;
	ustcomm_ctl_header_init(&hdr, USTCOMM_CTL_RECONNECT, 0, 1, (uint32_t)plen);
	memcpy(req, &hdr, sizeof(hdr));
	memcpy(req + sizeof(hdr), sock_path, plen);
	if (send(fd, req, sizeof(hdr) + plen, MSG_DONTWAIT | MSG_NOSIGNAL) !=
	    (ssize_t)(sizeof(hdr) + plen))
		goto drop;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto drop;
	c->watch.kind = USTD_WATCH_ADOPT;
	c->fd = fd;
	c->pid = pid;
	ev.data.ptr = &c->watch;
	if (epoll_ctl(a->ctx->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		goto drop;
	c->next = a->conns;
	a->conns = c;
	return;
drop:
	free(c);
	close(fd);
}

/* Starts the timer after which unanswered requests are forgotten. */
static int adopt_arm_timer(struct ustd_adopt *a)
{
	struct itimerspec its = { .it_value.tv_sec = ADOPT_WAIT_S };
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &a->timer_watch };

	a->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (a->timer_fd < 0 || timerfd_settime(a->timer_fd, 0, &its, NULL) < 0 ||
	    epoll_ctl(a->ctx->epfd, EPOLL_CTL_ADD, a->timer_fd, &ev) < 0)
		return -errno;
	return 0;
}

/*
 * Whether pid maps a trace buffer of libust (ring_buffer_alloc.c names
 * its memfds "ust-CHANNEL-CPU"). Only such a program lost a ustd and has
 * something to reconnect: asking the others would ring their control
 * signal for nothing (libust/control.c), which a starting ustd must not.
 */
static bool maps_trace_buffers(pid_t pid)
{
	char path[64], line[4096];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " /memfd:ust-") != NULL;
	fclose(f);
	return found;
}

void ustd_adopt_start(struct ustd_adopt *a, const struct ustd_ctx *ctx, const char *sock_path)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *dp;
	char *end;
	long pid;

	memset(a, 0, sizeof(*a));
	a->timer_watch.kind = USTD_WATCH_ADOPT_TIMER;
	a->ctx = ctx;
	a->timer_fd = -1;
	if (ustcomm_apps_dir(dir, sizeof(dir)) < 0)
		return;
	dp = opendir(dir);
	if (!dp)
		return;
	while ((de = readdir(dp))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || pid > INT_MAX ||
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path) ||
		    lstat(path, &st) < 0 || !S_ISSOCK(st.st_mode) || st.st_uid != getuid() ||
		    !maps_trace_buffers((pid_t)pid))
			continue;
		adopt_ask(a, path, (pid_t)pid, sock_path);
	}
	closedir(dp);
	if (a->conns && adopt_arm_timer(a) < 0) {
		/* Without a deadline nobody would ever forget them. */
		ustcomm_err("cannot time the reconnect requests: %s; they are dropped",
			    strerror(errno));
		ustd_adopt_on_timer(a);
	}
}

void ustd_adopt_ask_pid(struct ustd_adopt *a, pid_t pid, const char *sock_path)
{
	char dir[PATH_MAX], path[PATH_MAX];

	if (ustcomm_apps_dir(dir, sizeof(dir)) < 0 ||
	    snprintf(path, sizeof(path), "%s/%d", dir, (int)pid) >= (int)sizeof(path))
		return;
	adopt_ask(a, path, pid, sock_path);
	if (a->conns && a->timer_fd < 0 && adopt_arm_timer(a) < 0) {
		ustcomm_err("cannot time the reconnect request of pid %d: %s; it is dropped",
			    (int)pid, strerror(errno));
		ustd_adopt_on_timer(a);
	}
}

/* true when the connection is done with: answered, gone, or malformed. */
static bool adopt_read(const struct ustd_adopt *a, struct ustd_adopt_conn *c)
{
	struct ustcomm_ctl_msg msg;
	const char *pos = NULL, *why;
	ssize_t n, used;

	n = recv(c->fd, c->reply + c->len, sizeof(c->reply) - c->len, MSG_DONTWAIT);
	if (n < 0)
		return errno != EAGAIN && errno != EINTR;
	if (n == 0)
		return true;
	c->len += (size_t)n;
	used = ustcomm_ctl_decode(c->reply, c->len, sizeof(c->reply), &msg);
	if (used == 0)
		return c->len == sizeof(c->reply);
	if (used < 0)
		return true;
	why = ustcomm_ctl_next(&msg, &pos);
	if (msg.status == 0) {
		if (a->ctx->verbose)
			fprintf(stderr, "ustd: pid %d answered the reconnect request\n", (int)c->pid);
	} else {
		ustcomm_dbg("pid %d does not report here: %s", (int)c->pid,
			    why ? why : strerror(-msg.status));
	}
	return true;
}

void ustd_adopt_on_conn(struct ustd_adopt *a, struct ustd_adopt_conn *c)
{
	if (!c->done && adopt_read(a, c))
		adopt_close(a, c);
}

void ustd_adopt_on_timer(struct ustd_adopt *a)
{
	struct ustd_adopt_conn *c;

	for (c = a->conns; c; c = c->next)
		adopt_close(a, c);
	if (a->timer_fd >= 0) {
		epoll_ctl(a->ctx->epfd, EPOLL_CTL_DEL, a->timer_fd, NULL);
		close(a->timer_fd);
		a->timer_fd = -1;
	}
}

void ustd_adopt_reap(struct ustd_adopt *a)
{
	struct ustd_adopt_conn **link = &a->conns, *c;

	while ((c = *link)) {
		if (c->done) {
			*link = c->next;
			free(c);
		} else {
			link = &c->next;
		}
	}
	/* All answered before the deadline: the timer has nothing left to do. */
	if (!a->conns && a->timer_fd >= 0)
		ustd_adopt_on_timer(a);
}

void ustd_adopt_fini(struct ustd_adopt *a)
{
	if (!a->ctx)
		return;
	ustd_adopt_on_timer(a);
	ustd_adopt_reap(a);
}
