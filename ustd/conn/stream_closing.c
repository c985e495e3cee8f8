/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "libustcomm/log.h"
#include "ustd/conn/stream_closing.h"

struct ustd_closing_file {
	struct ustd_closing_file *next;
	struct ustd_stream_direct *direct;
	int fd, idx_fd;
	uint64_t idx_len;		/* bytes of the index written */
	struct ustd_close_wait *wait;
	char *name;
};

void ustd_close_wait_put(struct ustd_close_wait *w)
{
	if (w && --w->pending == 0)
		w->done(w);
}

int ustd_closing_add(struct ustd_closing_file **list, struct ustd_stream_direct *d, int fd,
		     int idx_fd, uint64_t idx_len, struct ustd_close_wait *w, const char *name)
{
	struct ustd_closing_file *cf = calloc(1, sizeof(*cf));

	if (!cf || !(cf->name = strdup(name))) {
		free(cf);
		return -ENOMEM;
	}
	cf->direct = d;
	cf->fd = fd;
	cf->idx_fd = idx_fd;
	cf->idx_len = idx_len;
	cf->wait = w;
	if (w)
		w->pending++;
	while (*list)
		list = &(*list)->next;
	*list = cf;
	return 0;
}

/* What cf's completions add to done; after a failed write its index goes
 * back to its last whole entry (the file was cut after the last packet on
 * disk), and the packets cut off are counted lost by the stream. */
static void closing_done(struct ustd_closing_file *cf, const struct ustd_direct_done *d,
			 int ret, struct ustd_direct_done *done)
{
	struct ustd_direct_cut *cut;

	cf->idx_len += d->idx_len;
	if (d->packets && d->discarded > done->discarded)
		done->discarded = d->discarded;
	if (d->packets && d->ts_end > done->ts_end)
		done->ts_end = d->ts_end;
	done->packets += d->packets;
	for (cut = d->cut; cut && cut->next; cut = cut->next)
		;
	if (cut) {
		cut->next = done->cut;
		done->cut = d->cut;
	}
	if (ret >= 0)
		return;
	ustcomm_err("stream %s: the last packets of a file it closed could not be written: %s; the file ends with the last whole packet",
		    cf->name, strerror(-ret));
	if (cf->idx_fd >= 0 && ftruncate(cf->idx_fd, (off_t)cf->idx_len) < 0)
		ustcomm_dbg("stream %s: cutting the closed file's index back: %s", cf->name,
			    strerror(errno));
}

/* Completes what cf's writes completed; true when nothing is left of it. */
static bool closing_step(struct ustd_closing_file *cf, bool wait, struct ustd_direct_done *done)
{
	struct ustd_direct_done d = { 0 };
	int ret = ustd_stream_direct_complete(cf->direct, wait, &d);

	/* The copies wait for the writes from the ring: with none left in
	 * flight they are written now, whatever their number. */
	if (ret >= 0 && !ustd_stream_direct_finished(cf->direct) &&
	    !ustd_stream_direct_in_flight(cf->direct))
		ret = ustd_stream_direct_complete(cf->direct, true, &d);
	closing_done(cf, &d, ret, done);
	return ret < 0 || ustd_stream_direct_finished(cf->direct);
}

static void closing_free(struct ustd_closing_file *cf)
{
	ustd_stream_direct_close(cf->direct);
	if (cf->fd >= 0)
		close(cf->fd);
	if (cf->idx_fd >= 0)
		close(cf->idx_fd);
	ustd_close_wait_put(cf->wait);
	free(cf->name);
	free(cf);
}

void ustd_closing_poll(struct ustd_closing_file **list, bool wait, struct ustd_direct_done *done)
{
	struct ustd_closing_file *cf;

	while ((cf = *list)) {
		if (closing_step(cf, wait, done)) {
			*list = cf->next;
			closing_free(cf);
		} else {
			list = &cf->next;
		}
	}
}
