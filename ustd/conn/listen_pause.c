/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include "libustcomm/log.h"
#include "ustd/conn/listen_pause.h"

int ustd_listen_pause_init(struct ustd_listen_pause *p, int epfd, int listen_fd,
			   const struct epoll_event *ev)
{
	struct epoll_event tev = { .events = EPOLLIN, .data.ptr = &p->timer_watch };
	int ret = 0;

	p->timer_watch.kind = USTD_WATCH_LISTEN_RETRY;
	p->epfd = epfd;
	p->listen_fd = listen_fd;
	p->ev = *ev;
	p->paused = false;
	p->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (p->timer_fd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, p->timer_fd, &tev) < 0 ||
	    epoll_ctl(epfd, EPOLL_CTL_ADD, listen_fd, &p->ev) < 0)
		ret = -errno;
	return ret;
}

void ustd_listen_pause(struct ustd_listen_pause *p, const char *what, const char *why)
{
	const struct itimerspec retry = { .it_value.tv_sec = USTD_LISTEN_RETRY_S };

	if (p->paused)
		return;
	/* Out of the set, so that its readiness wakes nobody; the timer
	 * brings it back even if no descriptor is ever freed by us. */
	if (epoll_ctl(p->epfd, EPOLL_CTL_DEL, p->listen_fd, NULL) < 0)
		return;
	p->paused = true;
	timerfd_settime(p->timer_fd, 0, &retry, NULL);
	ustcomm_err("cannot take connections on the %s (%s): they wait until descriptors are freed; the programs already traced are served",
		    what, why);
}

void ustd_listen_resume(struct ustd_listen_pause *p)
{
	const struct itimerspec retry = { .it_value.tv_sec = USTD_LISTEN_RETRY_S };
	const struct itimerspec stop = { { 0, 0 }, { 0, 0 } };
	uint64_t ticks;

	if (!p->paused)
		return;
	if (read(p->timer_fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		ustcomm_dbg("listen retry timer: %s", strerror(errno));
	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->listen_fd, &p->ev) < 0) {
		/* No memory for the registration either: next time. */
		timerfd_settime(p->timer_fd, 0, &retry, NULL);
		return;
	}
	timerfd_settime(p->timer_fd, 0, &stop, NULL);
	p->paused = false;
}

struct ustd_listen_pause *ustd_listen_pause_of(struct ustd_watch *w)
{
	return (struct ustd_listen_pause *)((char *)w -
					    offsetof(struct ustd_listen_pause, timer_watch));
}

void ustd_listen_pause_fini(struct ustd_listen_pause *p)
{
	if (p->timer_fd >= 0)
		close(p->timer_fd);
	p->timer_fd = -1;
}
