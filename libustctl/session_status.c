/* SPDX-License-Identifier: LGPL-2.1-only */
/* list-sessions NAME: a session's status from ustd (SESSION_STATUS). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/ctl_protocol.h"
#include "libustctl/internal.h"

/* STATE, DIR, RELAY, OVERWRITE, CHUNKS, CHUNK_BEGIN, BYTES, DISCARDED,
 * NR_TRACKED */
#define STATUS_HEAD	9

static char *dup_or_null(const char *s, int *ret)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		*ret = -ENOMEM;
	return d;
}

static int parse_numbers(const char *const *f, struct ustctl_session_status *st,
			 uint32_t *nr_tracked)
{
	uint16_t cmd = USTCOMM_CTL_SESSION_STATUS;
	uint64_t begin;
	uint32_t chunks;
	int ret = ustctl_parse_u32(0, cmd, f[4], UINT32_MAX, &chunks);

	if (!ret)
		ret = ustctl_parse_u64(0, cmd, f[5], INT64_MAX, &begin);
	if (!ret)
		ret = ustctl_parse_u64(0, cmd, f[6], UINT64_MAX, &st->bytes);
	if (!ret)
		ret = ustctl_parse_u64(0, cmd, f[7], UINT64_MAX, &st->discarded);
	if (!ret)
		ret = ustctl_parse_u32(0, cmd, f[8], UINT32_MAX, nr_tracked);
	st->chunks = chunks;
	st->chunk_begin = (int64_t)begin;
	st->overwrite = f[3][0] == '1';
	return ret;
}

static int parse_status(struct ustctl_reply *reply, struct ustctl_session_status *st)
{
	const char *f[STATUS_HEAD], *pos = NULL, *a, *b;
	uint32_t nr_tracked, nr = reply->msg.nr_strings;
	size_t i;
	int ret = 0;

	for (i = 0; i < STATUS_HEAD && nr >= STATUS_HEAD; i++)
		f[i] = ustcomm_ctl_next(&reply->msg, &pos);
	if (nr < STATUS_HEAD || parse_numbers(f, st, &nr_tracked) ||
	    nr_tracked > (nr - STATUS_HEAD) / 2 || (nr - STATUS_HEAD) % 2) {
		ustctl_set_error("ustd answered list-sessions NAME with a malformed status");
		return -EPROTO;
	}
	st->state = dup_or_null(f[0], &ret);
	st->dir = dup_or_null(f[1], &ret);
	st->relay = dup_or_null(f[2][0] ? f[2] : NULL, &ret);
	st->nr_processes = (nr - STATUS_HEAD) / 2 - nr_tracked;
	st->trackers = calloc(nr_tracked + 1, sizeof(*st->trackers));
	st->processes = calloc(st->nr_processes + 1, sizeof(*st->processes));
	if (!st->trackers || !st->processes)
		ret = -ENOMEM;
	for (i = 0; !ret && i < nr_tracked; i++, st->nr_trackers++) {
		a = ustcomm_ctl_next(&reply->msg, &pos);
		b = ustcomm_ctl_next(&reply->msg, &pos);
		st->trackers[i].kind = dup_or_null(a, &ret);
		st->trackers[i].value = dup_or_null(b, &ret);
	}
	for (i = 0; !ret && i < st->nr_processes; i++) {
		a = ustcomm_ctl_next(&reply->msg, &pos);
		b = ustcomm_ctl_next(&reply->msg, &pos);
		st->processes[i].pid = (pid_t)atoi(a);
		st->processes[i].procname = dup_or_null(b, &ret);
	}
	if (ret)
		ustctl_set_error("out of memory");
	return ret;
}

int ustctl_session_status(const char *name, struct ustctl_session_status **status)
{
	const char *args[1] = { name };
	struct ustctl_reply reply = { 0 };
	struct ustctl_session_status *st = NULL;
	int ret = ustctl_check_session_name(name);

	*status = NULL;
	if (ret)
		return ret;
	ret = ustctl_call_ustd(USTCOMM_CTL_SESSION_STATUS, args, 1, 0, &reply);
	if (ret)
		goto end;
	st = calloc(1, sizeof(*st));
	if (!st) {
		ret = -ENOMEM;
		ustctl_set_error("out of memory");
		goto end;
	}
	ret = parse_status(&reply, st);
end:
	ustctl_reply_release(&reply);
	if (ret)
		ustctl_session_status_free(st);
	else
		*status = st;
	return ret;
}

void ustctl_session_status_free(struct ustctl_session_status *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; st->trackers && i < st->nr_trackers; i++) {
		free(st->trackers[i].kind);
		free(st->trackers[i].value);
	}
	for (i = 0; st->processes && i < st->nr_processes; i++)
		free(st->processes[i].procname);
	free(st->trackers);
	free(st->processes);
	free(st->state);
	free(st->dir);
	free(st->relay);
	free(st);
}
