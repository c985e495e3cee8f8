/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/log.h"
#include "ustd/output/dir_publish.h"
#include "ustd/output/trace_dir.h"
#include "ustd/session/chunk_publish.h"
#include "ustd/session/on_rotate.h"

struct ustd_chunk_publish {
	struct ustd_close_wait wait;	/* its files, its predecessor, the rotation */
	const void *owner;		/* the session, NULL once gone */
	struct ustd_chunk_end e;	/* strings owned */
	time_t now;
	int epfd;
	char chunk[4096];		/* the hidden name */
	struct ustd_chunk_publish *then;	/* the session's next chunk */
	struct ustd_rotate_reply *reply;
	bool cancelled;			/* empty after all: removed, not published */
	struct ustd_chunk_publish *next;	/* of every chunk waiting */
};

/* Chunks waiting for their files, oldest first. */
static struct ustd_chunk_publish *waiting;

int ustd_chunk_publish_now(const struct ustd_chunk_end *e, time_t now, int epfd, char *chunk,
			   size_t size)
{
	char final[4096];
	int ret = ustd_trace_dir_chunk_name(e->dir, e->begin, now, e->n, final, sizeof(final));

	if (ret == 0)
		ret = ustd_dir_publish_as(chunk, final);
	if (ret < 0)
		ustcomm_err("session %s: cannot name chunk %s as %s: %s; it keeps its hidden name",
			    e->name, chunk, final, strerror(-ret));
	else
		snprintf(chunk, size, "%s", final);
	if (e->on_rotate)
		ustd_on_rotate_run(epfd, e->name, e->on_rotate, chunk, e->on_rotate_timeout_us);
	return ret;
}

static void publish_free(struct ustd_chunk_publish *p)
{
	struct ustd_chunk_publish **pp;

	for (pp = &waiting; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	free((char *)p->e.name);
	free((char *)p->e.dir);
	free((char *)p->e.on_rotate);
	free(p);
}

/* Every file whole, and the chunks before it published. */
static void publish_ready(struct ustd_close_wait *w)
{
	struct ustd_chunk_publish *p = (struct ustd_chunk_publish *)w;

	if (p->cancelled) {
		publish_free(p);
		return;
	}
	ustd_chunk_publish_now(&p->e, p->now, p->epfd, p->chunk, sizeof(p->chunk));
	ustcomm_dbg("session %s: chunk %s published once its files were whole", p->e.name,
		    p->chunk);
	if (p->reply)
		p->reply->done(p->reply, p->chunk);
	if (p->then)
		ustd_close_wait_put(&p->then->wait);
	publish_free(p);
}

struct ustd_chunk_publish *ustd_chunk_publish_begin(const void *owner,
						    const struct ustd_chunk_end *e, time_t now,
						    const char *hidden, int epfd)
{
	struct ustd_chunk_publish *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->e = *e;
	p->e.name = strdup(e->name);
	p->e.dir = strdup(e->dir);
	p->e.on_rotate = e->on_rotate ? strdup(e->on_rotate) : NULL;
	if (!p->e.name || !p->e.dir || (e->on_rotate && !p->e.on_rotate) ||
	    snprintf(p->chunk, sizeof(p->chunk), "%s", hidden) >= (int)sizeof(p->chunk)) {
		publish_free(p);
		return NULL;
	}
	p->owner = owner;
	p->now = now;
	p->epfd = epfd;
	p->wait.pending = 1;
	p->wait.done = publish_ready;
	p->next = waiting;
	waiting = p;
	return p;
}

struct ustd_close_wait *ustd_chunk_publish_wait(struct ustd_chunk_publish *p)
{
	return &p->wait;
}

int ustd_chunk_publish_release(struct ustd_chunk_publish *p, struct ustd_rotate_reply *r,
			       char *out, size_t size)
{
	struct ustd_chunk_publish *q;

	/* After the session's newest chunk still waiting. */
	for (q = waiting; q; q = q->next) {
		if (q != p && q->owner == p->owner && p->owner && !q->then && !q->cancelled) {
			q->then = p;
			p->wait.pending++;
		}
	}
	if (p->wait.pending == 1) {
		ustd_chunk_publish_now(&p->e, p->now, p->epfd, p->chunk, sizeof(p->chunk));
		snprintf(out, size, "%s", p->chunk);
		publish_free(p);
		return 0;
	}
	p->reply = r;
	p->wait.pending--;
	return 1;
}

void ustd_chunk_publish_cancel(struct ustd_chunk_publish *p)
{
	if (!p)
		return;
	p->cancelled = true;
	ustd_close_wait_put(&p->wait);
}

void ustd_chunk_publish_forget_reply(const struct ustd_rotate_reply *r)
{
	struct ustd_chunk_publish *p;

	for (p = waiting; p; p = p->next) {
		if (p->reply == r)
			p->reply = NULL;
	}
}

void ustd_chunk_publish_forget_owner(const void *owner)
{
	struct ustd_chunk_publish *p;

	for (p = waiting; p; p = p->next) {
		if (p->owner == owner)
			p->owner = NULL;
	}
}
