/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A restarted ustd makes its sessions again from the files it kept
 * (session_persist.c), with the same settings as create-session and the
 * -s commands give (session_settings.c, session_trigger.c), but in the
 * directory the session had, and in the state it had: an active session
 * is published, so that programs started later join it, and the running
 * programs are asked to join it; those that traced it before are adopted
 * (ustd/conn/adopt.c) into their session, whose directory the trace
 * continues in.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <ust/ustctl.h>
#include "libustcomm/blocking.h"
#include "libustcomm/filter_compile.h"
#include "libustcomm/hex.h"
#include "libustcomm/log.h"
#include "libustcomm/loglevel.h"
#include "ustd/output/output.h"
#include "ustd/session/session_buffers.h"
#include "ustd/session/session_life.h"
#include "ustd/session/session_persist.h"
#include "ustd/session/session_resume.h"
#include "ustd/session/session_rotate.h"
#include "ustd/session/session_settings.h"
#include "ustd/session/session_track.h"
#include "ustd/session/session_trigger.h"

#define WHY_MAX	600

/* A filter's bytecode in hex, as ENABLE_RULE carries it ("" for none). */
static int filter_hex(const char *filter, char **hex, char *why)
{
	struct ust_filter_error err = { 0 };
	void *prog = NULL;
	size_t len = 0;
	int ret = 0;

	if (filter && *filter)
		ret = ust_filter_compile(filter, NULL, 0, &prog, &len, &err);
	if (ret < 0) {
		snprintf(why, WHY_MAX, "filter '%s' does not compile", filter);
		return ret;
	}
	*hex = malloc(2 * len + 1);
	if (*hex)
		ustcomm_hex_encode(prog, len, *hex);
	free(prog);
	if (!*hex)
		snprintf(why, WHY_MAX, "out of memory");
	return *hex ? 0 : -ENOMEM;
}

static int add_channel(struct ustd_session *s, const struct ustctl_channel_conf *c,
		       const struct ustctl_tracefile_conf *tf, char *why)
{
	char size[16], num[16], blocking[UST_BLOCKING_TEXT_MAX] = "", tfs[24], tfc[16];
	const char *a[6] = { c->name, size, num, blocking, tfs, tfc };
	struct ustd_session_channel *ch;
	size_t i, at;
	int ret, n;

	snprintf(size, sizeof(size), "%u", (unsigned)c->subbuf_size);
	snprintf(num, sizeof(num), "%u", (unsigned)c->subbuf_num);
	if (c->has_blocking_timeout)
		ustcomm_blocking_format(blocking, sizeof(blocking), c->blocking_timeout);
	snprintf(tfs, sizeof(tfs), "%llu", tf ? (unsigned long long)tf->size : 0ull);
	snprintf(tfc, sizeof(tfc), "%u", tf ? (unsigned)tf->count : 0u);
	ret = ustd_session_set_channel(s, a, why, WHY_MAX);
	ch = ret ? NULL : ustd_session_channel(s, c->name);
	for (i = 0; ch && i < c->nr_contexts; i++) {
		at = strlen(ch->contexts);
		n = snprintf(ch->contexts + at, sizeof(ch->contexts) - at, "%s%s", at ? "," : "",
			     c->contexts[i]);
		if (n < 0 || (size_t)n >= sizeof(ch->contexts) - at) {
			snprintf(why, WHY_MAX, "channel %s: too many contexts", c->name);
			return -ENOSPC;
		}
	}
	return ret;
}

static int add_rule(struct ustd_session *s, const struct ustctl_rule *r, char *why)
{
	char level[USTCOMM_LEVEL_SPEC_MAX], *hex = NULL;
	const char *five[5];
	int ret = filter_hex(r->enable ? r->filter : NULL, &hex, why);

	if (ret)
		return ret;
	ustcomm_level_spec_format(level, r->enable ? r->loglevel_match : USTCTL_LOGLEVEL_ANY,
				  r->loglevel);
	five[0] = r->enable ? "enable" : "disable";
	five[1] = r->pattern;
	five[2] = level;
	five[3] = r->enable && r->filter ? r->filter : "";
	five[4] = hex;
	ret = ustd_session_add_rule(s, five);
	if (ret)
		snprintf(why, WHY_MAX, "rule %s: %s", r->pattern, strerror(-ret));
	free(hex);
	return ret;
}

static int add_trigger(struct ustd_session *s, const struct ustctl_trigger_conf *t, char *why)
{
	char at_most[16], *hex = NULL;
	const char *a[5];
	uint32_t id;
	int ret = filter_hex(t->filter, &hex, why);

	if (ret)
		return ret;
	snprintf(at_most, sizeof(at_most), "%u", t->at_most);
	a[0] = t->pattern;
	a[1] = t->filter ? t->filter : "";
	a[2] = hex;
	a[3] = t->dir ? t->dir : "";
	a[4] = at_most;
	ret = ustd_session_trigger_add(s, a, &id, why, WHY_MAX);
	free(hex);
	return ret;
}

/* What a tracker request carries to a session being made again. */
struct track_into {
	struct ustd_session *s;
	char *why;
};

/* One kind's trackers, checked as SESSION_TRACK checks them. */
static int add_trackers(void *arg, int track, const char *kind, const char *const *values,
			size_t nr)
{
	struct track_into *t = arg;
	const char **a = calloc(nr + 2, sizeof(*a));
	size_t now;
	int ret;

	if (!a) {
		snprintf(t->why, WHY_MAX, "out of memory");
		return -ENOMEM;
	}
	a[0] = track ? "1" : "0";
	a[1] = kind;
	memcpy(a + 2, values, nr * sizeof(*a));
	ret = ustd_session_track(t->s, a, nr + 2, &now, t->why, WHY_MAX);
	free(a);
	return ret;
}

/*
 * Rotations by the timers are not written to the file (a rotation reaches
 * only the files it must, check_layers.py's REACH): the archives on disk
 * say how many there were (<begin>-<end>-<n>, the last one's n), and
 * archives/ changed last when the current chunk began.
 */
static void chunks_on_disk(struct ustd_session *s, const struct ustctl_session_resume *r)
{
	char path[4200];
	struct dirent *de;
	const char *dash;
	unsigned long n;
	struct stat st;
	DIR *dir;

	s->rot.chunks = r->chunks;
	s->rot.chunk_begin = (time_t)r->chunk_begin;
	snprintf(path, sizeof(path), "%s/archives", s->dir);
	if (s->rot.chunk_begin && stat(path, &st) == 0 && st.st_mtime > s->rot.chunk_begin)
		s->rot.chunk_begin = st.st_mtime;
	dir = opendir(path);
	while (dir && (de = readdir(dir)) != NULL) {
		dash = strrchr(de->d_name, '-');
		n = dash ? strtoul(dash + 1, NULL, 10) : 0;
		if (de->d_name[0] != '.' && dash && n >= s->rot.chunks && n < UINT_MAX)
			s->rot.chunks = (unsigned)n + 1;
	}
	if (dir)
		closedir(dir);
}

/*
 * A rotating session that was started: what it traced before ustd died
 * is archived as a chunk of its own, the programs adopted begin the next
 * one (their directories are free again).
 */
static void archive_before_restart(struct ustd_sessions *ss, struct ustd_session *s)
{
	struct ustd_chunk_end e;
	char out[4400];
	int ret;

	if (!s->rot.chunk_begin || (!s->rot.every_us && !s->rot.size))
		return;
	ustd_rotation_chunk_end(s, &e);
	ret = ustd_rotation_archive_last(ss, &e, out, sizeof(out));
	if (!ret) {
		/* The files a killed ustd was writing are repaired where they
		 * are now, once their programs come back. */
		ustd_write_marks_moved(ss->ctx->marks, s->dir, out);
		s->rot.chunks++;
		ustcomm_dbg("session %s: what it traced before ustd restarted is chunk %s", s->name,
			    out);
	} else if (ret != -ENODATA) {
		ustcomm_err("session %s: %s; the chunk goes on", s->name, out);
		return;
	}
	s->rot.chunk_begin = time(NULL);
}

/* The session the file holds, in the state it says; NULL with why. */
static struct ustd_session *make(struct ustd_sessions *ss, const struct ustctl_session *us,
				 const struct ustctl_session_extra *ux,
				 const struct ustctl_session_resume *r, char *why)
{
	struct ustd_session *s = calloc(1, sizeof(*s));
	const struct ustctl_rotation *rot = &ux->rotation;
	size_t i;
	int ret = -ENOMEM;

	if (s)
		ustd_rotation_init(s, ss);
	if (!s || !(s->dir = strdup(r->dir))) {
		snprintf(why, WHY_MAX, "out of memory");
		goto end;
	}
	snprintf(s->name, sizeof(s->name), "%s", ux->name);
	s->overwrite = ux->overwrite;
	s->per_uid = ux->buffers == USTCTL_BUFFERS_PER_UID;
	ret = ustd_mkdir_p(s->dir);
	if (ret)
		snprintf(why, WHY_MAX, "cannot make its directory %s again: %s", s->dir,
			 strerror(-ret));
	for (i = 0; !ret && i < us->nr_channels; i++)
		ret = add_channel(s, &us->channels[i],
				  ustctl_session_extra_tracefile(ux, us->channels[i].name), why);
	for (i = 0; !ret && i < us->nr_rules; i++)
		ret = add_rule(s, &us->rules[i], why);
	for (i = 0; !ret && i < ux->nr_triggers; i++)
		ret = add_trigger(s, &ux->triggers[i], why);
	if (!ret) {
		struct track_into into = { s, why };

		ret = ustctl_session_extra_track_each(ux, add_trackers, &into);
		if (ret == -ENOMEM && !why[0])
			snprintf(why, WHY_MAX, "out of memory");
	}
	if (ret)
		goto end;
	s->rot.every_us = rot->every_us;
	s->rot.size = rot->size;
	s->rot.on_rotate_timeout_us = rot->on_rotate_timeout_us;
	chunks_on_disk(s, r);
	if (rot->on_rotate && !(s->rot.on_rotate = strdup(rot->on_rotate))) {
		ret = -ENOMEM;
		snprintf(why, WHY_MAX, "out of memory");
	}
end:
	if (ret && s) {
		ustd_session_free(s);
		s = NULL;
	}
	return s;
}

static void resume_one(struct ustd_sessions *ss, const char *path)
{
	struct ustctl_session_resume r;
	struct ustctl_session *us = NULL;
	struct ustctl_session_extra *ux = NULL;
	struct ustd_session *s = NULL, **tail;
	char why[WHY_MAX] = "", own[sizeof(ss->keep_dir) + 64];

	if (ustctl_session_resume_read(path, &us, &ux, &r)) {
		snprintf(why, sizeof(why), "%s", ustctl_last_error());
	} else if (ustd_session_keep_path(ss, ux->name, own, sizeof(own)) || strcmp(own, path)) {
		/* ustd writes and removes NAME.xml: another name would outlive
		 * destroy-session. */
		snprintf(why, sizeof(why), "it holds session %s, whose file is %s.xml", ux->name,
			 ux->name);
	} else {
		s = make(ss, us, ux, &r, why);
	}
	if (!s) {
		ustcomm_err("cannot resume the session kept in %s: %s; ustd goes on without it and leaves the file as it is",
			    path, why);
		goto end;
	}
	if (us->output && strstr(us->output, "://"))
		ustcomm_err("session %s streamed to %s resumes in its local directory %s: a restarted ustd does not reconnect to lttng-relayd",
			    s->name, us->output, s->dir);
	for (tail = &ss->list; *tail; tail = &(*tail)->next)
		;
	*tail = s;
	if (r.state != USTCTL_RESUME_CREATED)
		archive_before_restart(ss, s);
	if (r.state == USTCTL_RESUME_ACTIVE) {
		s->state = USTD_SESSION_ACTIVE;
		ustd_rotation_started(s);
	} else if (r.state == USTCTL_RESUME_STOPPED) {
		s->state = USTD_SESSION_STOPPED;
		/* Its chunk was archived just now, or it has no schedule. */
		s->rot.rotated_since_stop = s->rot.every_us || s->rot.size;
	}
	ustcomm_dbg("session %s resumed from %s in %s", s->name, path, s->dir);
end:
	ustctl_session_resume_release(&r);
	if (us)
		ustctl_session_free(us);
	ustctl_session_extra_free(ux);
}

/* NAME.xml; not the temporary files of a write that did not finish. */
static int is_kept_file(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 4 && !strcmp(name + n - 4, ".xml");
}

void ustd_sessions_resume(struct ustd_sessions *ss)
{
	DIR *dir = opendir(ss->keep_dir);
	struct ustd_session *s;
	struct dirent *de;
	char path[sizeof(ss->keep_dir) + 256];
	bool any = false;

	if (!dir) {
		if (errno != ENOENT)
			ustcomm_err("cannot read the sessions kept in %s: %s; none is resumed",
				    ss->keep_dir, strerror(errno));
		return;
	}
	while ((de = readdir(dir)) != NULL) {
		if (!is_kept_file(de->d_name) ||
		    snprintf(path, sizeof(path), "%s/%s", ss->keep_dir, de->d_name) >=
		    (int)sizeof(path))
			continue;
		resume_one(ss, path);
	}
	closedir(dir);
	for (s = ss->list; s; s = s->next)
		any |= s->state == USTD_SESSION_ACTIVE;
	if (!any)
		return;
	/* Watched and published before the listing, as start-session does;
	 * without the watch they are resumed all the same (it said why). */
	ustd_sessions_watch_apps(ss);
	ustd_sessions_publish(ss);
	for (s = ss->list; s; s = s->next) {
		if (s->state == USTD_SESSION_ACTIVE)
			ustd_session_join_all(ss, s, NULL);
	}
}
