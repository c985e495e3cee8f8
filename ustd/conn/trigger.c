/* SPDX-License-Identifier: GPL-2.0-only */
/* Trigger firings to snapshots (trigger.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "libustcomm/clock.h"
#include "libustcomm/log.h"
#include "libustcomm/protocol.h"
#include "ustd/conn/trigger.h"

#define MINUTE_NS	60000000000ull

/* The last at_most snapshots of one trigger, oldest first from head. */
struct ustd_trigger_window {
	uint32_t id;
	uint32_t at_most;
	uint32_t n, head;
	uint64_t *times;
	uint64_t taken;			/* snapshots written */
	uint64_t suppressed;		/* firings over --at-most */
	uint64_t failed;
	uint64_t lib_limited;		/* libust's count, from the last firing */
	struct ustd_trigger_window *next;
};

void ustd_trigger_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("ustd: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static struct ustd_trigger_window *window_get(struct ustd_trigger_chan *c,
					      const struct ustcomm_trigger_fired *f)
{
	struct ustd_trigger_window *w;

	for (w = c->windows; w; w = w->next) {
		if (w->id == f->id)
			return w;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->id = f->id;
	w->at_most = f->at_most;
	if (w->at_most) {
		w->times = calloc(w->at_most, sizeof(*w->times));
		if (!w->times) {
			free(w);
			return NULL;
		}
	}
	w->next = c->windows;
	c->windows = w;
	return w;
}

int ustd_trigger_admit(uint64_t *times, uint32_t at_most, uint32_t *n, uint32_t *head)
{
	uint64_t now = ust_clock_read_kind(0);

	if (!at_most)
		return 1;
	if (*n == at_most) {
		if (now - times[*head] < MINUTE_NS)
			return 0;
		*head = (*head + 1) % at_most;
		(*n)--;
	}
	times[(*head + *n) % at_most] = now;
	(*n)++;
	return 1;
}

/* The processes one firing snapshots: the one that fired. Returns how
 * many snapshots failed. */
static int trigger_snapshot_targets(struct ustd_trigger_chan *c, const char *dir)
{
	return c->snapshot(c->app, dir) < 0;
}

static void trigger_fired(struct ustd_trigger_chan *c, const struct ustcomm_trigger_fired *f,
			  const char *dir)
{
	struct ustd_app *app = c->app;
	struct ustd_trigger_window *w;

	/* A session's trigger is counted and acted on by the session. */
	if (app->ctx->owner->trigger_fired(app, dir))
		return;
	w = window_get(c, f);
	if (!w) {
		ustcomm_err("out of memory: trigger %u of %s fired, no snapshot taken", f->id,
			    app->label);
		return;
	}
	w->lib_limited = f->limited;
	if (!ustd_trigger_admit(w->times, w->at_most, &w->n, &w->head)) {
		if (!w->suppressed++)
			ustd_trigger_say("trigger %u of %s: --at-most %u/minute reached; further firings are counted, not snapshotted",
				    f->id, app->label, w->at_most);
		return;
	}
	if (trigger_snapshot_targets(c, dir))
		w->failed++;
	else
		w->taken++;
}

static void chan_close(struct ustd_trigger_chan *c);

void ustd_trigger_on_readable(struct ustd_trigger_chan *c)
{
	char buf[sizeof(struct ustcomm_msg_header) + sizeof(struct ustcomm_trigger_fired) +
		 USTCOMM_PATH_MAX];
	struct ustcomm_trigger_fired f;
	const char *dir;
	ssize_t n;

	if (c->reading || c->fd < 0)
		return;
	c->reading = true;
	while (!c->detached && !c->app->closed) {
		n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if ((size_t)n > sizeof(buf) || ustcomm_check_trigger_fired(buf, (size_t)n, &f, &dir)) {
			ustcomm_err("%s sent a malformed trigger notification: ignored", c->app->label);
			continue;
		}
		trigger_fired(c, &f, dir);
	}
	c->reading = false;
	if (c->detached)
		chan_close(c);
}

static void chan_close(struct ustd_trigger_chan *c)
{
	struct ustd_trigger_window *w, *next;

	for (w = c->windows; w; w = next) {
		next = w->next;
		if (w->suppressed || w->failed || w->lib_limited)
			ustd_trigger_say("trigger %u of %s: %llu snapshots taken, %llu firings over --at-most %u/minute not snapshotted, %llu held back by the program's own rate limit, %llu snapshots failed",
				    w->id, c->app->label, (unsigned long long)w->taken,
				    (unsigned long long)w->suppressed, w->at_most,
				    (unsigned long long)w->lib_limited, (unsigned long long)w->failed);
		free(w->times);
		free(w);
	}
	if (c->fd >= 0) {
		epoll_ctl(c->app->ctx->epfd, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
	}
	free(c);
}

int ustd_trigger_attach(struct ustd_app *app, int fd,
			int (*snapshot)(struct ustd_app *app, const char *dir))
{
	struct ustd_trigger_chan *c = calloc(1, sizeof(*c));
	struct epoll_event ev = { .events = EPOLLIN };
	int ret = 0;

	if (!c) {
		close(fd);
		return -ENOMEM;
	}
	c->watch.kind = USTD_WATCH_TRIGGER;
	c->app = app;
	c->snapshot = snapshot;
	c->fd = fd;
	ev.data.ptr = &c->watch;
	if (epoll_ctl(app->ctx->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		ret = -errno;
		close(fd);
		free(c);
		return ret;
	}
	if (app->trigger)
		chan_close(app->trigger);
	app->trigger = c;
	return 0;
}

void ustd_trigger_stop(struct ustd_app *app)
{
	struct ustd_trigger_chan *c = app->trigger;

	if (!c || c->fd < 0)
		return;
	if (c->reading) {
		/* The loop reading it ends with it. */
		app->trigger = NULL;
		c->detached = true;
		return;
	}
	ustd_trigger_on_readable(c);
	if (app->trigger != c)
		return;
	epoll_ctl(app->ctx->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
}

void ustd_trigger_detach(struct ustd_app *app)
{
	struct ustd_trigger_chan *c = app->trigger;

	if (!c)
		return;
	app->trigger = NULL;
	if (c->reading) {
		/* The loop reading it ends with it. */
		c->detached = true;
		return;
	}
	ustd_trigger_on_readable(c);
	chan_close(c);
}
