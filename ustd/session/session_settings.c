/* SPDX-License-Identifier: GPL-2.0-only */
/* A session's settings, read back whole and set per channel (session_settings.h). */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "libustcomm/blocking.h"
#include "libustcomm/bufsize.h"
#include "libustcomm/format.h"
#include "libustcomm/metadata.h"
#include "libustcomm/shm_layout.h"
#include "ustd/relay/relay_share.h"
#include "ustd/session/session.h"
#include "ustd/session/session_settings.h"
#include "ustd/session/session_trigger.h"

#define NUM_MAX		24	/* a uint64_t in decimal */

/* Strings in text, one after the other: where the next one goes. */
struct arena {
	char *next, *end;
};

static const char *arena_put(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static const char *arena_put(struct arena *a, const char *fmt, ...)
{
	char *at = a->next;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(at, (size_t)(a->end - at), fmt, ap);
	va_end(ap);
	a->next += n + 1;
	return at;
}

/* The -o DIR the trigger was given, "" for the session's directory: its
 * directory is DIR/NAME-trigger-ID or <session dir>/triggers/trigger-ID
 * (session_trigger.c). */
static const char *trigger_dir(struct arena *a, const struct ustd_session *s,
			       const struct ustd_session_trigger *t)
{
	size_t len = strlen(s->dir);
	const char *slash = strrchr(t->dir, '/');

	if (!strncmp(t->dir, s->dir, len) && !strncmp(t->dir + len, "/triggers/", 10))
		return "";
	return arena_put(a, "%.*s", slash ? (int)(slash - t->dir) : 0, t->dir);
}

ssize_t ustd_session_describe(const struct ustd_session *s, const char *output_default,
			      const char ***args, char **text)
{
	const char *slash = strrchr(s->dir, '/');
	size_t nr = 3 + USTCOMM_CTL_DESCRIBE_CHANNEL_ARGS * s->nr_channels + 1 + 4 * s->nr_rules +
		    4 + 1 + 4 * s->nr_triggers + 1 + 2 * s->nr_tracked + 1;
	size_t size = strlen(s->dir) + 1 + NUM_MAX * (3 + 4 * s->nr_channels + 3 +
						       s->nr_triggers + 1), i, n = 0;
	struct arena a;
	const char **v;

	for (i = 0; i < s->nr_triggers; i++)
		size += strlen(s->triggers[i].dir) + 1;
	*args = v = calloc(nr, sizeof(*v));
	*text = a.next = malloc(size);
	a.end = a.next + size;
	if (!v || !a.next)
		return -ENOMEM;
	/* The session's directory is OUTPUT/NAME-YYYYMMDD-HHMMSS; a streamed
	 * session's output is its relayd's URL (session_relay.h). */
	v[n] = s->relay ? s->relay->text :
		arena_put(&a, "%.*s", slash ? (int)(slash - s->dir) : 0, s->dir);
	if (!s->relay && output_default && !strcmp(v[n], output_default))
		v[n] = "";
	n++;
	v[n++] = s->overwrite ? "1" : "0";
	v[n++] = arena_put(&a, "%zu", s->nr_channels);
	for (i = 0; i < s->nr_channels; i++) {
		const struct ustd_session_channel *c = &s->channels[i];

		v[n++] = c->name;
		v[n++] = arena_put(&a, "%" PRIu32, c->subbuf_size);
		v[n++] = arena_put(&a, "%" PRIu32, c->subbuf_num);
		v[n++] = c->contexts;
		v[n++] = c->blocking;
		v[n++] = arena_put(&a, "%" PRIu64, c->tracefile_size);
		v[n++] = arena_put(&a, "%" PRIu64, c->tracefile_count);
	}
	v[n++] = arena_put(&a, "%zu", s->nr_rules);
	for (i = 0; i < s->nr_rules; i++) {
		v[n++] = s->rules[i].s[0];
		v[n++] = s->rules[i].s[1];
		v[n++] = s->rules[i].s[2];
		v[n++] = s->rules[i].s[3];
	}
	v[n++] = arena_put(&a, "%" PRIu64, s->rot.every_us);
	v[n++] = arena_put(&a, "%" PRIu64, s->rot.size);
	v[n++] = s->rot.on_rotate ? s->rot.on_rotate : "";
	v[n++] = arena_put(&a, "%" PRIu64, s->rot.on_rotate ? s->rot.on_rotate_timeout_us : 0);
	v[n++] = arena_put(&a, "%zu", s->nr_triggers);
	for (i = 0; i < s->nr_triggers; i++) {
		const struct ustd_session_trigger *t = &s->triggers[i];

		v[n++] = t->pattern;
		v[n++] = t->filter;
		v[n++] = trigger_dir(&a, s, t);
		v[n++] = arena_put(&a, "%" PRIu32, t->at_most);
	}
	v[n++] = arena_put(&a, "%zu", s->nr_tracked);
	n += ustd_session_trackers_args(s, v + n);
	/* Per process says nothing: ctl_protocol.h, SESSION_DESCRIBE. */
	if (s->per_uid)
		v[n++] = "uid";
	return (ssize_t)n;
}

/* A decimal number and nothing after it. */
static int parse_u64(const char *text, uint64_t *v)
{
	const char *end;

	return ustcomm_parse_leading_u64(text, v, &end) < 0 || *end ? -EINVAL : 0;
}

/* "0" keeps the session's: a sub-buffer setting, else a power of two. */
static int parse_keep_pow2(const char *text, uint32_t min, uint32_t max, uint32_t *out)
{
	*out = 0;
	return strcmp(text, "0") ? ustcomm_parse_pow2(text, min, max, out) : 0;
}

int ustd_session_set_channel(struct ustd_session *s, const char *const *a, char *why,
			     size_t why_size)
{
	struct ustd_session_channel *c;
	uint64_t tf_size, tf_count;
	uint32_t size, num, us;

	if (s->state != USTD_SESSION_CREATED) {
		snprintf(why, why_size, "session '%s' was started: channel settings are given before its first start",
			 s->name);
		return -EBUSY;
	}
	if (strcmp(a[0], "*") && (strlen(a[0]) >= UST_SHM_CHANNEL_NAME_MAX ||
				  !ustcomm_metadata_valid_identifier(a[0]))) {
		snprintf(why, why_size, "invalid channel name '%s'", a[0]);
		return -EINVAL;
	}
	if (parse_keep_pow2(a[1], UST_SUBBUF_SIZE_MIN, UST_SUBBUF_SIZE_MAX, &size) < 0 ||
	    parse_keep_pow2(a[2], UST_SUBBUF_NUM_MIN, UST_SUBBUF_NUM_MAX, &num) < 0 ||
	    (a[3][0] && (strlen(a[3]) >= sizeof(c->blocking) || ustcomm_blocking_parse(a[3], &us) < 0)) ||
	    parse_u64(a[4], &tf_size) < 0 || parse_u64(a[5], &tf_count) < 0 ||
	    (tf_size && (tf_size < UST_TRACEFILE_SIZE_MIN || tf_size > UST_TRACEFILE_SIZE_MAX)) ||
	    tf_count > UST_TRACEFILE_COUNT_MAX || (tf_count && !tf_size)) {
		snprintf(why, why_size, "channel %s: malformed settings (sub-buffers powers of two from %u bytes to %u and from %u to %u, a blocking timeout, a tracefile size from %llu bytes with a count of at most %u, no count without a size)",
			 a[0], UST_SUBBUF_SIZE_MIN, UST_SUBBUF_SIZE_MAX, UST_SUBBUF_NUM_MIN,
			 UST_SUBBUF_NUM_MAX, UST_TRACEFILE_SIZE_MIN, UST_TRACEFILE_COUNT_MAX);
		return -EINVAL;
	}
	c = ustd_session_channel(s, a[0]);
	if (!c) {
		snprintf(why, why_size, "no room for more channel settings (at most %u)",
			 USTCOMM_CTL_SESSION_CHANNELS_MAX);
		return -ENOSPC;
	}
	if (size)
		c->subbuf_size = size;
	if (num)
		c->subbuf_num = num;
	if (a[3][0])
		snprintf(c->blocking, sizeof(c->blocking), "%s", a[3]);
	if (tf_size) {
		c->tracefile_size = tf_size;
		c->tracefile_count = tf_count;
	}
	return 0;
}

void ustd_session_stream_limits(const struct ustd_session *s, const char *channel,
				struct ustd_tracefile *tf)
{
	const struct ustd_session_channel *own = NULL, *all = NULL;
	size_t i;

	for (i = 0; s && i < s->nr_channels; i++) {
		if (!strcmp(s->channels[i].name, channel))
			own = &s->channels[i];
		else if (!strcmp(s->channels[i].name, "*"))
			all = &s->channels[i];
	}
	if (!own || !own->tracefile_size)
		own = all;
	if (!own || !own->tracefile_size)
		return;
	tf->size = own->tracefile_size;
	tf->count = (uint32_t)own->tracefile_count;
}
