/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/log.h"
#include "ustd/relay/relay_share.h"
#include "ustd/session/session_loss.h"
#include "ustd/session/session_status.h"
#include "ustd/session/session_track.h"

/* The strings before the trackers: STATE to NR_TRACKED. */
#define STATUS_HEAD	9
/* Numbers, then per process a pid (procnames point into the apps). */
#define STATUS_NUMS	5
#define NUM_LEN		24

/* nftw() gives no argument: ustd's loop is one thread. */
static uint64_t bytes_found;

static int add_bytes(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (flag == FTW_F)
		bytes_found += (uint64_t)st->st_size;
	return 0;
}

struct procs_arg {
	const char **args;
	char (*nums)[NUM_LEN];
	size_t n, k, cap;
};

static void count_proc(struct ustd_app *app, void *arg)
{
	(void)app;
	((struct procs_arg *)arg)->cap++;
}

static void add_proc(struct ustd_app *app, void *arg)
{
	struct procs_arg *pa = arg;

	if (pa->k >= pa->cap)
		return;
	snprintf(pa->nums[STATUS_NUMS + pa->k], NUM_LEN, "%d", (int)app->pid);
	pa->args[pa->n++] = pa->nums[STATUS_NUMS + pa->k++];
	pa->args[pa->n++] = app->procname;
}

ssize_t ustd_session_status(struct ustd_sessions *ss, struct ustd_session *s,
			    const char ***args, char **text)
{
	static const char *const states[] = { "created", "active", "stopped" };
	struct procs_arg pa = { 0 };
	uint64_t discarded = 0;
	int ret;

	*args = NULL;
	*text = NULL;
	ustd_session_for_each_app(ss, s, count_proc, &pa);
	pa.args = calloc(STATUS_HEAD + 2 * s->nr_tracked + 2 * pa.cap, sizeof(*pa.args));
	pa.nums = calloc(STATUS_NUMS + pa.cap, sizeof(*pa.nums));
	if (!pa.args || !pa.nums) {
		free(pa.args);
		free(pa.nums);
		return -ENOMEM;
	}
	ret = ustd_session_loss(ss, s->name, s->tally, s->dir, &discarded);
	if (ret < 0)
		ustcomm_err("cannot count the events discarded in %s: %s", s->dir, strerror(-ret));
	bytes_found = 0;
	if (nftw(s->dir, add_bytes, 16, FTW_PHYS) < 0)
		ustcomm_err("cannot measure %s: %s", s->dir, strerror(errno));
	snprintf(pa.nums[0], NUM_LEN, "%u", s->rot.chunks);
	snprintf(pa.nums[1], NUM_LEN, "%lld", (long long)s->rot.chunk_begin);
	snprintf(pa.nums[2], NUM_LEN, "%" PRIu64, bytes_found);
	snprintf(pa.nums[3], NUM_LEN, "%" PRIu64, discarded);
	snprintf(pa.nums[4], NUM_LEN, "%zu", s->nr_tracked);
	pa.args[pa.n++] = states[s->state];
	pa.args[pa.n++] = s->dir;
	pa.args[pa.n++] = s->relay ? s->relay->text : "";
	pa.args[pa.n++] = s->overwrite ? "1" : "0";
	pa.args[pa.n++] = pa.nums[0];
	pa.args[pa.n++] = pa.nums[1];
	pa.args[pa.n++] = pa.nums[2];
	pa.args[pa.n++] = pa.nums[3];
	pa.args[pa.n++] = pa.nums[4];
	pa.n += ustd_session_trackers_args(s, pa.args + pa.n);
	ustd_session_for_each_app(ss, s, add_proc, &pa);
	*args = pa.args;
	/* The numbers live as long as the strings. */
	*text = (char *)pa.nums;
	return (ssize_t)pa.n;
}
