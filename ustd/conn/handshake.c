/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include "ustd/conn/handshake.h"

int ustd_handshake_init(struct ustd_handshake *h, int epfd, struct ustd_app **apps)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &h->watch };
	int ret = 0;

	h->watch.kind = USTD_WATCH_HANDSHAKE_TIMER;
	h->epfd = epfd;
	h->apps = apps;
	h->armed = false;
	h->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (h->timer_fd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, h->timer_fd, &ev) < 0)
		ret = -errno;
	return ret;
}

/* Armed only while some connection has to say HELLO: an idle ustd is
 * never woken. */
static void handshake_arm(struct ustd_handshake *h, bool on)
{
	const struct itimerspec tick = { { 1, 0 }, { 1, 0 } };
	const struct itimerspec stop = { { 0, 0 }, { 0, 0 } };

	if (h->armed == on || h->timer_fd < 0)
		return;
	if (timerfd_settime(h->timer_fd, 0, on ? &tick : &stop, NULL) == 0)
		h->armed = on;
}

void ustd_handshake_add(struct ustd_handshake *h)
{
	handshake_arm(h, true);
}

void ustd_handshake_on_timer(struct ustd_handshake *h)
{
	uint64_t now = ustd_app_now_ms(), ticks;
	struct ustd_app *app;
	bool waiting = false;

	/* Read, or the timer stays readable; a late tick is harmless. */
	if (read(h->timer_fd, &ticks, sizeof(ticks)) < 0)
		ticks = 0;
	for (app = *h->apps; app; app = app->next) {
		if (app->closed || app->said_hello)
			continue;
		if (now - app->accepted_ms >= USTD_HANDSHAKE_TIMEOUT_S * 1000ull)
			ustd_app_drop_late(app);
		else
			waiting = true;
	}
	handshake_arm(h, waiting);
}

void ustd_handshake_fini(struct ustd_handshake *h)
{
	if (h->timer_fd >= 0)
		close(h->timer_fd);
	h->timer_fd = -1;
}
