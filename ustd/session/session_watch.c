/* SPDX-License-Identifier: GPL-2.0-only */
/* Watching apps/ for programs that start (session.h). */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <unistd.h>
#include "libustcomm/log.h"
#include "ustd/session/session.h"

int ustd_sessions_watch_apps(struct ustd_sessions *ss)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &ss->inotify_watch };
	int ret = 0;

	if (ss->inotify_fd >= 0)
		return 0;
	ss->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ss->inotify_fd < 0 || inotify_add_watch(ss->inotify_fd, ss->apply.apps_dir, IN_CREATE) < 0 ||
	    epoll_ctl(ss->ctx->epfd, EPOLL_CTL_ADD, ss->inotify_fd, &ev) < 0) {
		ret = -errno;
		if (ss->inotify_fd >= 0)
			close(ss->inotify_fd);
		ss->inotify_fd = -1;
		ustcomm_err("cannot watch %s for programs that start: %s; a program that starts while a session is active joins it only if it reads the sessions file",
			    ss->apply.apps_dir, strerror(-ret));
	}
	return ret;
}
