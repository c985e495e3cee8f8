/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * list-sessions NAME: one session in detail, as lttng list NAME and
 * lttng status show one: its output and state, channels, rules, contexts,
 * rotation and chunks, triggers, trackers, processes, and what it wrote
 * and lost. Three requests to ustd: its settings (as save-session -s
 * reads them), its triggers and its status.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ust/ustctl.h>
#include "libustcomm/blocking.h"
#include "libustcomm/bufsize.h"
#include "ustctl/command.h"
#include "ustctl/output.h"
#include "ustctl/trackers_out.h"

static void channel_text(const struct ustctl_channel_conf *c,
			 const struct ustctl_tracefile_conf *tf)
{
	char size[32], text[UST_BLOCKING_TEXT_MAX];
	size_t j;

	printf("  channel %s:", c->name);
	if (c->subbuf_size) {
		ustcomm_format_size(size, sizeof(size), c->subbuf_size);
		printf(" subbuf-size %s", size);
	}
	if (c->subbuf_num)
		printf("%s subbuf-num %" PRIu32, c->subbuf_size ? "," : "", c->subbuf_num);
	if (!c->subbuf_size && !c->subbuf_num)
		printf(" default buffers");
	if (tf) {
		ustcomm_format_size(size, sizeof(size), tf->size);
		printf(", tracefile-size %s, tracefile-count %" PRIu32 "%s", size, tf->count,
		       tf->count ? "" : " (all kept)");
	}
	if (c->has_blocking_timeout) {
		ustcomm_blocking_format(text, sizeof(text), c->blocking_timeout);
		printf(", blocking %s", text);
	}
	for (j = 0; j < c->nr_contexts; j++)
		printf("%s%s", j ? "," : ", contexts ", c->contexts[j]);
	printf("\n");
}

static void settings_text(const struct ustctl_session *s, const struct ustctl_session_extra *x)
{
	const struct ustctl_rule *r;
	size_t i, j;

	for (i = 0; i < s->nr_channels; i++)
		channel_text(&s->channels[i], ustctl_session_extra_tracefile(x, s->channels[i].name));
	for (i = 0; i < x->nr_tracefiles; i++) {
		for (j = 0; j < s->nr_channels &&
			    strcmp(s->channels[j].name, x->tracefiles[i].channel); j++)
			;
		if (j == s->nr_channels) {
			struct ustctl_channel_conf only = { .name = x->tracefiles[i].channel };

			channel_text(&only, &x->tracefiles[i]);
		}
	}
	if (!s->nr_rules)
		printf("  no rule: no event is recorded (ustctl enable-marker -s NAME PATTERN)\n");
	for (i = 0; i < s->nr_rules; i++) {
		r = &s->rules[i];
		printf("  %s '%s'", r->enable ? "enable" : "disable", r->pattern);
		if (r->loglevel_match)
			printf(" %s %s", r->loglevel_match == USTCTL_LOGLEVEL_RANGE ?
			       "loglevel" : "loglevel-only", ustctl_loglevel_name(r->loglevel));
		if (r->filter && *r->filter)
			printf(" filter '%s'", r->filter);
		printf("\n");
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The archived chunks, in the order of their names (begin times); ustd
 * is on this machine, its directory ours to read. */
static void chunks_out(const struct ustctl_session_status *st)
{
	char path[4200], **names = NULL, **grown;
	size_t n = 0, i;
	struct dirent *de;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/archives", st->dir);
	dir = opendir(path);
	while (dir && (de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.' || !(grown = realloc(names, (n + 1) * sizeof(*names))))
			continue;
		names = grown;
		if ((names[n] = strdup(de->d_name)) != NULL)
			n++;
	}
	if (dir)
		closedir(dir);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		ustctl_mi_element("chunk", "%s/%s", path, names[i]);
		if (!ustctl_out_mi())
			printf("  chunk %s/%s\n", path, names[i]);
		free(names[i]);
	}
	free(names);
}

static void status_out(const char *name, const struct ustctl_session_status *st)
{
	char when[32] = "";
	time_t begin = (time_t)st->chunk_begin;
	struct tm tm;
	size_t i;

	if (begin && localtime_r(&begin, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	ustctl_mi_element("chunks", "%u", st->chunks);
	if (when[0])
		ustctl_mi_element("chunk-begin", "%s", when);
	ustctl_mi_element("bytes", "%" PRIu64, st->bytes);
	if (!ustctl_out_mi() && !st->overwrite) {
		printf("  chunks archived: %u%s%s\n", st->chunks, when[0] ? "; current chunk since " : "",
		       when);
		chunks_out(st);
	}
	ustctl_session_trackers_out(st->trackers, st->nr_trackers, "  ");
	for (i = 0; i < st->nr_processes; i++) {
		ustctl_mi_open("process");
		ustctl_mi_attr("pid", "%d", (int)st->processes[i].pid);
		ustctl_mi_attr("procname", "%s", st->processes[i].procname);
		ustctl_mi_close();
		if (!ustctl_out_mi())
			printf("  process %d %s\n", (int)st->processes[i].pid,
			       st->processes[i].procname);
	}
	if (!ustctl_out_mi())
		printf("  %s: %" PRIu64 " bytes in %s; %" PRIu64 " events discarded by its processes (those that ended included)\n",
		       name, st->bytes, st->dir, st->discarded);
}

void ustctl_session_buffers_out(int buffers, const char *indent)
{
	const char *kind = buffers == USTCTL_BUFFERS_PER_UID ? "per-uid" : "per-pid";

	ustctl_mi_element("buffers", "%s", kind);
	if (indent && !ustctl_out_mi())
		printf("%sbuffers: %s\n", indent, kind);
}

int ustctl_cmd_session_show(const struct ustctl_args *args)
{
	const char *name = args->argv[0];
	struct ustctl_session_status *st = NULL;
	struct ustctl_session_trigger *t = NULL;
	struct ustctl_session_extra *x = NULL;
	struct ustctl_session *s = NULL;
	int status = USTCTL_EXIT_OK;
	size_t nr = 0, i;

	if (ustctl_check_session_name_arg(args->cmd, name))
		return USTCTL_EXIT_USAGE;
	if (ustctl_session_status(name, &st) < 0 || ustctl_describe_session(name, &s, &x) < 0 ||
	    ustctl_session_list_triggers(name, &t, &nr) < 0) {
		status = ustctl_session_failed(args->cmd, name);
		goto end;
	}
	ustctl_session_mi_ok(name);
	ustctl_mi_attr("state", "%s", st->state);
	ustctl_mi_attr("overwrite", "%s", st->overwrite ? "true" : "false");
	for (i = 0; i < s->nr_rules; i++)
		ustctl_mi_rule(&s->rules[i]);
	ustctl_mi_element("directory", "%s", st->dir);
	if (st->relay)
		ustctl_mi_element("relay", "%s", st->relay);
	if (!ustctl_out_mi()) {
		printf("session %s: %s, %s, %zu process%s\n", name, st->state,
		       st->overwrite ? "flight recorder (snapshots)" : "written to disk as it goes",
		       st->nr_processes, st->nr_processes == 1 ? "" : "es");
		if (st->relay)
			printf("  output: streamed to lttng-relayd at %s (local fallback %s)\n",
			       st->relay, st->dir);
		else
			printf("  output: %s\n", st->dir);
	}
	ustctl_session_buffers_out(x->buffers, "  ");
	if (!ustctl_out_mi())
		settings_text(s, x);
	ustctl_mi_element("events-discarded", "%" PRIu64, st->discarded);
	if (ustctl_out_mi())
		chunks_out(st);
	ustctl_session_channels_mi(s, x);
	ustctl_rotation_out(&x->rotation, "  ");
	ustctl_session_triggers_out(t, nr, "  trigger ");
	status_out(name, st);
	ustctl_mi_close();
end:
	ustctl_session_status_free(st);
	ustctl_session_free(s);
	ustctl_session_extra_free(x);
	ustctl_free_session_triggers(t, nr);
	return status;
}
