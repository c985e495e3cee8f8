/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/statvfs.h>
#include <sys/timerfd.h>
#include "libustcomm/log.h"
#include "ustd/conn/space_wait.h"

/* How often the free space is looked at. */
#define SPACE_POLL_S	1

struct ustd_space_waiter {
	struct ustd_space_waiter *next;
	pid_t pid;
	uint64_t need;
	char *dir;
	struct ustd_lost_rings *rings;
};

void ustd_space_wait_init(struct ustd_space_wait *sw, const struct ustd_ctx *ctx,
			  struct ustd_adopt *adopt, const char *sock_path)
{
	memset(sw, 0, sizeof(*sw));
	sw->watch.kind = USTD_WATCH_SPACE_TIMER;
	sw->ctx = ctx;
	sw->adopt = adopt;
	sw->sock_path = sock_path;
	sw->timer_fd = -1;
}

static int space_timer_start(struct ustd_space_wait *sw)
{
	struct itimerspec its = { .it_interval = { SPACE_POLL_S, 0 }, .it_value = { SPACE_POLL_S, 0 } };
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &sw->watch };
	int ret = 0;

	if (sw->timer_fd >= 0)
		return 0;
	sw->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (sw->timer_fd < 0 || timerfd_settime(sw->timer_fd, 0, &its, NULL) < 0 ||
	    epoll_ctl(sw->ctx->epfd, EPOLL_CTL_ADD, sw->timer_fd, &ev) < 0) {
		ret = -errno;
		if (sw->timer_fd >= 0)
			close(sw->timer_fd);
		sw->timer_fd = -1;
	}
	return ret;
}

static void space_timer_stop(struct ustd_space_wait *sw)
{
	if (sw->timer_fd < 0)
		return;
	epoll_ctl(sw->ctx->epfd, EPOLL_CTL_DEL, sw->timer_fd, NULL);
	close(sw->timer_fd);
	sw->timer_fd = -1;
}

int ustd_space_wait_add(struct ustd_space_wait *sw, pid_t pid, const char *dir, uint64_t need,
			struct ustd_lost_rings *rings)
{
	struct ustd_space_waiter *w = calloc(1, sizeof(*w));
	int ret = -ENOMEM;

	if (!w)
		goto end;
	w->dir = strdup(dir);
	if (!w->dir)
		goto end;
	ret = space_timer_start(sw);
	if (ret < 0)
		goto end;
	w->pid = pid;
	w->need = need;
	w->rings = rings;
	rings = NULL;
	w->next = sw->waiters;
	sw->waiters = w;
	w = NULL;
end:
	ustd_lost_rings_free(rings);
	if (w)
		free(w->dir);
	free(w);
	return ret;
}

static void space_waiter_free(struct ustd_space_waiter *w)
{
	ustd_lost_rings_free(w->rings);
	free(w->dir);
	free(w);
}

/* Bytes an unprivileged writer may still take in dir; 0 when unknown. */
static uint64_t space_free(const char *dir)
{
	struct statvfs st;

	if (statvfs(dir, &st) < 0)
		return 0;
	return (uint64_t)st.f_bavail * st.f_frsize;
}

void ustd_space_wait_on_timer(struct ustd_space_wait *sw)
{
	struct ustd_space_waiter **link = &sw->waiters, *w;
	uint64_t expirations, room;

	/* Only fails when nothing expired (EAGAIN). */
	if (read(sw->timer_fd, &expirations, sizeof(expirations)) < 0)
		return;
	while ((w = *link)) {
		room = space_free(w->dir);
		if (kill(w->pid, 0) < 0 && errno == ESRCH) {
			/* Its last flush closed its open packets: all counted. */
			ustcomm_err("pid %d ended while its trace waited for space in %s: %" PRIu64 " events its buffers held or discarded are lost",
				    (int)w->pid, w->dir, w->rings ? ustd_lost_rings_count(w->rings) : 0);
		} else if (room >= w->need) {
			ustcomm_note("%s has room again (%llu MiB free): asking pid %d to report its trace here again",
				    w->dir, (unsigned long long)(room >> 20), (int)w->pid);
			ustd_adopt_ask_pid(sw->adopt, w->pid, sw->sock_path);
		} else {
			link = &w->next;
			continue;
		}
		*link = w->next;
		space_waiter_free(w);
	}
	if (!sw->waiters)
		space_timer_stop(sw);
}

void ustd_space_wait_fini(struct ustd_space_wait *sw)
{
	struct ustd_space_waiter *w;

	while ((w = sw->waiters)) {
		sw->waiters = w->next;
		space_waiter_free(w);
	}
	if (sw->ctx)
		space_timer_stop(sw);
}
