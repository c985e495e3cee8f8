/* SPDX-License-Identifier: GPL-2.0-only */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include "libustcomm/log.h"
#include "ustd/conn/app_rotate.h"
#include "ustd/output/dir_publish.h"
#include "ustd/output/trace_dir.h"
#include "ustd/session/chunk_publish.h"
#include "ustd/session/on_rotate.h"
#include "ustd/session/session.h"
#include "ustd/session/session_rotate.h"

#define ROTATE_SIZE_CHECK_MS	200

/*
 * A timerfd of a session's schedule, allocated apart: a session destroyed
 * (or a schedule changed) while its timer's expiry is in the epoll batch
 * under way leaves it retired (s NULL), freed after the batch.
 */
struct ustd_rotation_timer {
	struct ustd_session_watch watch;
	int fd;
	struct ustd_session *s;
	void (*expired)(struct ustd_session *s);
	struct ustd_rotation_timer *next;	/* retired */
};

static struct ustd_rotation_timer *retired;

static void timer_retire(struct ustd_session_rotation *rot, struct ustd_rotation_timer **t)
{
	if (!*t)
		return;
	epoll_ctl(rot->ss->ctx->epfd, EPOLL_CTL_DEL, (*t)->fd, NULL);
	close((*t)->fd);
	(*t)->s = NULL;
	(*t)->next = retired;
	retired = *t;
	*t = NULL;
}

static void timer_on_expiry(struct ustd_session_watch *w, uint32_t events)
{
	struct ustd_rotation_timer *t = (struct ustd_rotation_timer *)w;
	uint64_t ticks;

	(void)events;
	if (t->s && read(t->fd, &ticks, sizeof(ticks)) == sizeof(ticks))
		t->expired(t->s);
}

/* A periodic timerfd in the loop, calling expired(s). */
static int timer_open(struct ustd_session *s, struct ustd_rotation_timer **out,
		      uint64_t period_us, void (*expired)(struct ustd_session *s))
{
	struct itimerspec its = { .it_interval = { (time_t)(period_us / 1000000),
						   (long)(period_us % 1000000) * 1000 } };
	struct epoll_event ev = { .events = EPOLLIN };
	struct ustd_rotation_timer *t = calloc(1, sizeof(*t));
	int ret = 0;

	if (!t)
		return -ENOMEM;
	t->watch.watch.kind = USTD_WATCH_SESSION;
	t->watch.fn = timer_on_expiry;
	t->s = s;
	t->expired = expired;
	ev.data.ptr = &t->watch;
	its.it_value = its.it_interval;
	t->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (t->fd < 0 || timerfd_settime(t->fd, 0, &its, NULL) < 0 ||
	    epoll_ctl(s->rot.ss->ctx->epfd, EPOLL_CTL_ADD, t->fd, &ev) < 0) {
		ret = -errno;
		if (t->fd >= 0)
			close(t->fd);
		free(t);
		return ret;
	}
	*out = t;
	return 0;
}

void ustd_rotation_reap(void)
{
	struct ustd_rotation_timer *t;

	while ((t = retired)) {
		retired = t->next;
		free(t);
	}
	ustd_on_rotate_reap();
}

static void auto_rotate(struct ustd_session *s, const char *why)
{
	char path[4096];
	int ret = ustd_session_rotate(s, true, NULL, path, sizeof(path));

	if (ret < 0 && ret != -ENODATA)
		ustcomm_err("session %s: the rotation %s failed: %s; tracing goes on in the current chunk",
			    s->name, why, path);
	else if (ret == 0)
		ustcomm_dbg("session %s: rotated (%s) into %s", s->name, why, path);
	else if (ret == 1)
		ustcomm_dbg("session %s: rotated (%s) into %s, published once its files are whole",
			    s->name, why, path);
}

static void on_every(struct ustd_session *s)
{
	auto_rotate(s, "on its period");
}

/* What app's streams wrote since the chunk began, those it closed too. */
static uint64_t chunk_bytes(const struct ustd_app *app)
{
	const struct ustd_app_stream *as;
	uint64_t bytes = 0;

	for (as = app->streams; as; as = as->next)
		bytes += as->stream.out.written - as->chunk_base;
	return bytes;
}

static void add_size(struct ustd_app *app, void *arg)
{
	*(uint64_t *)arg += chunk_bytes(app);
}

void ustd_rotation_trace_ended(struct ustd_app *app)
{
	app->session->rot.ended_bytes += chunk_bytes(app);
}

/* Workers of a forking service each write less than the size in their
 * life: the chunk's size is theirs and their predecessors' together. */
static void on_size_check(struct ustd_session *s)
{
	uint64_t bytes = s->rot.ended_bytes;

	ustd_session_for_each_trace(s->rot.ss, s, add_size, &bytes);
	if (bytes >= s->rot.size)
		auto_rotate(s, "on its size");
}

void ustd_rotation_init(struct ustd_session *s, struct ustd_sessions *ss)
{
	memset(&s->rot, 0, sizeof(s->rot));
	s->rot.ss = ss;
	s->rot.on_rotate_timeout_us = USTCOMM_ON_ROTATE_TIMEOUT_US;
}

void ustd_rotation_fini(struct ustd_session *s)
{
	ustd_rotation_stopped(s);
	ustd_chunk_publish_forget_owner(s);
	free(s->rot.on_rotate);
	s->rot.on_rotate = NULL;
}

void ustd_rotation_stopped(struct ustd_session *s)
{
	timer_retire(&s->rot, &s->rot.every_timer);
	timer_retire(&s->rot, &s->rot.size_timer);
	s->rot.rotated_since_stop = false;
}

void ustd_rotation_started(struct ustd_session *s)
{
	struct ustd_session_rotation *rot = &s->rot;
	int ret = 0;

	if (!rot->chunk_begin)
		rot->chunk_begin = time(NULL);
	rot->rotated_since_stop = false;
	if (rot->every_us && !rot->every_timer)
		ret = timer_open(s, &rot->every_timer, rot->every_us, on_every);
	if (!ret && rot->size && !rot->size_timer)
		ret = timer_open(s, &rot->size_timer, ROTATE_SIZE_CHECK_MS * 1000ull, on_size_check);
	if (ret)
		ustcomm_err("session %s: cannot arm its rotation timer: %s; it rotates on rotate-session only",
			    s->name, strerror(-ret));
}

int ustd_rotation_set(struct ustd_session *s, uint64_t every_us, uint64_t size, const char *cmd,
		      uint64_t timeout_us)
{
	struct ustd_session_rotation *rot = &s->rot;
	char *copy = NULL;

	if (cmd && *cmd && !(copy = strdup(cmd)))
		return -ENOMEM;
	free(rot->on_rotate);
	rot->on_rotate = copy;
	rot->on_rotate_timeout_us = timeout_us ? timeout_us : USTCOMM_ON_ROTATE_TIMEOUT_US;
	rot->every_us = every_us;
	rot->size = size;
	/* A new period begins now. */
	timer_retire(rot, &rot->every_timer);
	timer_retire(rot, &rot->size_timer);
	if (s->state == USTD_SESSION_ACTIVE)
		ustd_rotation_started(s);
	return 0;
}

struct rotate_arg {
	const char *chunk;
	bool scheduled;
	unsigned failed;
	struct ustd_close_wait *wait;
};

static void rotate_app(struct ustd_app *app, void *arg)
{
	struct rotate_arg *ra = arg;
	struct ustd_app_stream *as;

	if (ustd_app_rotate(app, ra->chunk, ra->scheduled, ra->wait) < 0)
		ra->failed++;
	/* What it wrote so far is the chunk's, streams it closed included. */
	for (as = app->streams; as; as = as->next)
		as->chunk_base = as->stream.out.written;
}

/* A process still writing in path: a session's, or one that left a
 * destroyed session and has not ended its trace yet. */
static bool dir_in_use(struct ustd_sessions *ss, const char *path)
{
	const struct ustd_app *app;

	for (app = *ss->apps; app; app = app->next) {
		if (!app->closed && app->td.path && !strcmp(app->td.path, path))
			return true;
	}
	return false;
}

/* The directories of processes that ended (or whose trace stopped) in
 * this chunk: complete, they belong to it. */
int ustd_session_move_ended(struct ustd_sessions *ss, const char *sdir, const char *chunk)
{
	char from[4096], to[4096];
	DIR *dir = opendir(sdir);
	struct dirent *de;
	int ret = 0;

	if (!dir)
		return -errno;
	while ((de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "archives"))
			continue;
		if (snprintf(from, sizeof(from), "%s/%s", sdir, de->d_name) >= (int)sizeof(from) ||
		    snprintf(to, sizeof(to), "%s/%s", chunk, de->d_name) >= (int)sizeof(to))
			ret = -ENAMETOOLONG;
		else if (!dir_in_use(ss, from) && !ustd_trace_dir_remove_unwritten(from) &&
			 rename(from, to) < 0)
			ret = -errno;
	}
	closedir(dir);
	return ret;
}

/*
 * What is left in sdir once the running processes went on into fresh
 * directories moves into the chunk: the traces of the processes that
 * ended. -ENODATA when the chunk is empty then (it is removed).
 */
static int chunk_fill(struct ustd_sessions *ss, const struct ustd_chunk_end *e, const char *chunk)
{
	int ret = ustd_session_move_ended(ss, e->dir, chunk);

	if (ret < 0)
		ustcomm_err("session %s: cannot move the traces of ended processes into %s: %s; they stay in %s",
			    e->name, chunk, strerror(-ret), e->dir);
	return rmdir(chunk) == 0 ? -ENODATA : 0;
}

/* The chunk is filled under a hidden name in archives/ (dir_publish.h):
 * a reader polling archives/ never sees one with some processes only. */
static int chunk_open(const struct ustd_chunk_end *e, char *out, size_t size)
{
	char archives[4096];
	int ret = -ENAMETOOLONG;

	if (snprintf(archives, sizeof(archives), "%s/archives", e->dir) < (int)sizeof(archives))
		ret = ustd_dir_partial(archives, "chunk", out, size);
	if (ret < 0)
		snprintf(out, size, "cannot create a chunk directory in %s/archives: %s", e->dir,
			 strerror(-ret));
	return ret;
}

void ustd_rotation_chunk_end(const struct ustd_session *s, struct ustd_chunk_end *e)
{
	*e = (struct ustd_chunk_end) { .name = s->name, .dir = s->dir,
				       .begin = s->rot.chunk_begin, .n = s->rot.chunks,
				       .on_rotate = s->rot.on_rotate,
				       .on_rotate_timeout_us = s->rot.on_rotate_timeout_us };
}

static int nothing_to_archive(const struct ustd_chunk_end *e, char *out, size_t size)
{
	snprintf(out, size, "nothing to archive: no process traced for session %s since %s",
		 e->name, e->n ? "its last rotation" : "it started");
	return -ENODATA;
}

int ustd_rotation_archive_last(struct ustd_sessions *ss, const struct ustd_chunk_end *e,
			       char *out, size_t size)
{
	int ret = chunk_open(e, out, size);

	if (ret == 0 && chunk_fill(ss, e, out) == -ENODATA)
		return nothing_to_archive(e, out, size);
	if (ret == 0)
		ustd_chunk_publish_now(e, time(NULL), ss->ctx->epfd, out, size);
	return ret;
}

int ustd_session_rotate(struct ustd_session *s, bool scheduled, struct ustd_rotate_reply *r,
			char *out, size_t size)
{
	struct ustd_session_rotation *rot = &s->rot;
	struct rotate_arg ra = { .chunk = out, .scheduled = scheduled };
	struct ustd_chunk_publish *pub;
	struct ustd_chunk_end e;
	time_t now = time(NULL);
	int ret;

	ustd_rotation_chunk_end(s, &e);
	ret = chunk_open(&e, out, size);
	if (ret < 0)
		return ret;
	/* Without it, the files are closed waiting for the device. */
	pub = ustd_chunk_publish_begin(s, &e, now, out, rot->ss->ctx->epfd);
	ra.wait = pub ? ustd_chunk_publish_wait(pub) : NULL;
	ustd_session_for_each_trace(rot->ss, s, rotate_app, &ra);
	/* Those that ended, meanwhile too, are in the chunk being closed. */
	rot->ended_bytes = 0;
	if (chunk_fill(rot->ss, &e, out) == -ENODATA) {
		ustd_chunk_publish_cancel(pub);
		return nothing_to_archive(&e, out, size);
	}
	if (ra.failed)
		ustcomm_err("session %s: %u process%s could not go on into the next chunk (said above); chunk %s holds their trace so far",
			    s->name, ra.failed, ra.failed == 1 ? "" : "es", out);
	rot->chunks++;
	rot->chunk_begin = now;
	if (s->state != USTD_SESSION_ACTIVE)
		rot->rotated_since_stop = true;
	if (pub)
		return ustd_chunk_publish_release(pub, r, out, size);
	ustd_chunk_publish_now(&e, now, rot->ss->ctx->epfd, out, size);
	return 0;
}
