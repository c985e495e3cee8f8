/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include "libustcomm/log.h"
#include "ustd/conn/accept.h"
#include "ustd/conn/handshake.h"

/* Connections taken per wake-up: however many clients knock, the epoll
 * loop reads the signals and drains the streams between batches. */
#define ACCEPT_BATCH		32
/* At exit: at most a full backlog (SOMAXCONN). */
#define ACCEPT_BACKLOG_MAX	4096

static int accept_reserve(int limit)
{
	int reserve = limit / 8;

	return reserve < 8 ? 8 : reserve > 256 ? 256 : reserve;
}

static void accept_one(struct ustd_accept *a, int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct ustd_app *app;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		ustcomm_err("cannot identify a connecting process: %s; connection refused",
			    strerror(errno));
		close(fd);
		return;
	}
	if (cred.uid != getuid() && cred.uid != 0) {
		ustcomm_err("refused connection from pid %d uid %u", (int)cred.pid,
			    (unsigned)cred.uid);
		close(fd);
		return;
	}
	app = ustd_app_new(a->ctx, fd, cred.pid);
	if (!app)
		return;
	app->uid = cred.uid;
	app->next = *a->apps;
	*a->apps = app;
	ustd_handshake_add(a->handshake);
	ustcomm_dbg("connection from pid %d", (int)cred.pid);
}

/*
 * Whether a connection (its socket and pidfd) leaves the reserve whole.
 * Descriptors are given lowest first, so the lowest free one says how
 * many are in use below it; those above it may be in use too, which the
 * reserve's size allows for.
 */
static bool accept_room(const struct ustd_accept *a)
{
	int fd;

	if (a->limit <= 0)
		return true;
	fd = fcntl(a->listen_fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return false;
	close(fd);
	return fd + 2 <= a->limit - a->reserve;
}

/* Takes one connection: true while more may be taken now. */
static bool accept_next(struct ustd_accept *a)
{
	int fd;

	if (!accept_room(a)) {
		ustd_listen_pause(&a->pause, "application socket", "few file descriptors left");
		return false;
	}
	fd = accept4(a->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno == EINTR || errno == ECONNABORTED)
			return true;
		/* Out of descriptors (EMFILE, ENFILE) or memory: whatever
		 * the cause, the socket stays readable, so it is put aside. */
		if (errno != EAGAIN)
			ustd_listen_pause(&a->pause, "application socket", strerror(errno));
		return false;
	}
	accept_one(a, fd);
	return true;
}

int ustd_accept_start(struct ustd_accept *a, const struct ustd_ctx *ctx, int listen_fd,
		      struct ustd_app **apps, struct ustd_handshake *handshake)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &a->listen_watch };
	struct rlimit rl;

	a->listen_watch.kind = USTD_WATCH_LISTEN;
	a->ctx = ctx;
	a->apps = apps;
	a->handshake = handshake;
	a->listen_fd = listen_fd;
	a->limit = 0;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < (rlim_t)1 << 30)
		a->limit = (int)rl.rlim_cur;
	a->reserve = accept_reserve(a->limit);
	return ustd_listen_pause_init(&a->pause, ctx->epfd, listen_fd, &ev);
}

void ustd_accept_on_listen(struct ustd_accept *a)
{
	int i;

	for (i = 0; i < ACCEPT_BATCH && accept_next(a); i++)
		;
}

void ustd_accept_resume(struct ustd_accept *a)
{
	ustd_listen_resume(&a->pause);
}

void ustd_accept_backlog(struct ustd_accept *a)
{
	int i;

	ustd_listen_resume(&a->pause);
	for (i = 0; i < ACCEPT_BACKLOG_MAX && accept_next(a); i++)
		;
}

void ustd_accept_fini(struct ustd_accept *a)
{
	ustd_listen_pause_fini(&a->pause);
}
