/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "libustcomm/relay_url.h"
#include "ustd/relay/relay_share.h"
#include "ustd/relay/sink.h"

static void share_free(struct ustd_relay_share *sh)
{
	ustd_relay_close(&sh->relay);
	/* The fallback directory goes when nothing fell back into it. */
	if (sh->fallback_dir)
		rmdir(sh->fallback_dir);
	free(sh->text);
	free(sh->fallback_dir);
	free(sh);
}

int ustd_relay_share_open(struct ustd_relay_share **out, const char *text,
			  const char *name, const char *hostname, uint32_t live_timer_us,
			  const char *fallback_dir, char *why, size_t why_size)
{
	const char *base = strrchr(fallback_dir, '/');
	struct ustd_relay_share *sh;
	const char *bad;
	int ret = -ENOMEM, n;

	*out = NULL;
	sh = calloc(1, sizeof(*sh));
	if (!sh || !(sh->text = strdup(text)) || !(sh->fallback_dir = strdup(fallback_dir))) {
		snprintf(why, why_size, "out of memory");
		goto end;
	}
	sh->refs = 1;
	sh->relay.ctrl_fd = sh->relay.data_fd = -1;
	ret = ustcomm_relay_url_parse(text, &sh->url, &bad);
	if (ret < 0) {
		snprintf(why, why_size, "%s: %s (expected net://HOST[:CONTROL_PORT[:DATA_PORT]])",
			 text, bad);
		goto end;
	}
	snprintf(sh->name, sizeof(sh->name), "%s", name);
	n = snprintf(sh->path, sizeof(sh->path), "%s/%s", hostname, base ? base + 1 : fallback_dir);
	if (n < 0 || (size_t)n >= sizeof(sh->path)) {
		ret = -ENAMETOOLONG;
		snprintf(why, why_size, "the path %s/%s is too long for lttng-relayd", hostname,
			 base ? base + 1 : fallback_dir);
		goto end;
	}
	ret = ustd_relay_connect(&sh->relay, &sh->url, sh->text);
	if (ret == 0)
		ret = ustd_relay_create_session(&sh->relay, name, hostname, live_timer_us);
	if (ret < 0)
		snprintf(why, why_size, "%s", sh->relay.err);
end:
	if (ret < 0 && sh) {
		share_free(sh);
		sh = NULL;
	}
	*out = sh;
	return ret;
}

void ustd_relay_share_join(struct ustd_relay_share *sh, struct ustd_sink *sink)
{
	/* Held by the sink's owner until it is freed (ustd_relay_share_put()):
	 * its fallback directory and messages name the share's strings. */
	sh->refs++;
	sink->share = sh;
	sink->relay = &sh->relay;
	sink->next_member = sh->members;
	sh->members = sink;
}

static void share_unlink(struct ustd_relay_share *sh, struct ustd_sink *sink)
{
	struct ustd_sink **link;

	for (link = &sh->members; *link; link = &(*link)->next_member) {
		if (*link == sink) {
			*link = sink->next_member;
			return;
		}
	}
}

void ustd_relay_share_leave(struct ustd_relay_share *sh, struct ustd_sink *sink)
{
	struct ustd_sink *m;

	share_unlink(sh, sink);
	if (!sh->relay.broken)
		return;
	/*
	 * The connection broke: the members still on it go to their fallback
	 * now, not when each next sends, so that the copies of what relayd
	 * may lack are written while ustd is sure to have them. Each lost()
	 * leaves, which comes back here with fewer members.
	 */
	ustd_relay_close(&sh->relay);
	while ((m = sh->members) != NULL) {
		m->lost(m);
		if (sh->members == m)
			share_unlink(sh, m);
	}
}

void ustd_relay_share_put(struct ustd_relay_share *sh)
{
	if (sh && --sh->refs == 0)
		share_free(sh);
}
