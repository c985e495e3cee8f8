/* SPDX-License-Identifier: GPL-2.0-only */
/* Session files: save-session and load-session, of a process's trace or
 * of a session held by ustd (-s NAME). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ust/ustctl.h>
#include "libustcomm/blocking.h"
#include "ustctl/command.h"
#include "ustctl/output.h"
#include "ustctl/trackers_out.h"

static void tracefile_mi(const struct ustctl_tracefile_conf *tf)
{
	if (!tf)
		return;
	ustctl_mi_attr("tracefile-size", "%" PRIu64, tf->size);
	ustctl_mi_attr("tracefile-count", "%" PRIu32, tf->count);
}

void ustctl_session_channels_mi(const struct ustctl_session *s, const struct ustctl_session_extra *x)
{
	char text[UST_BLOCKING_TEXT_MAX];
	size_t i, j;

	for (i = 0; i < s->nr_channels; i++) {
		ustctl_mi_open("channel");
		ustctl_mi_attr("name", "%s", s->channels[i].name);
		/* 0: the session leaves it at the default. */
		if (s->channels[i].subbuf_size)
			ustctl_mi_attr("subbuf-size", "%" PRIu32, s->channels[i].subbuf_size);
		if (s->channels[i].subbuf_num)
			ustctl_mi_attr("subbuf-num", "%" PRIu32, s->channels[i].subbuf_num);
		if (s->channels[i].has_blocking_timeout) {
			ustcomm_blocking_format(text, sizeof(text), s->channels[i].blocking_timeout);
			ustctl_mi_attr("blocking-timeout", "%s", text);
		}
		tracefile_mi(ustctl_session_extra_tracefile(x, s->channels[i].name));
		for (j = 0; j < s->channels[i].nr_contexts; j++) {
			ustctl_mi_open("context");
			ustctl_mi_attr("name", "%s", s->channels[i].contexts[j]);
			ustctl_mi_close();
		}
		ustctl_mi_close();
	}
	for (i = 0; x && i < x->nr_tracefiles; i++) {
		for (j = 0; j < s->nr_channels && strcmp(s->channels[j].name, x->tracefiles[i].channel);
		     j++)
			;
		if (j < s->nr_channels)
			continue;
		ustctl_mi_open("channel");
		ustctl_mi_attr("name", "%s", x->tracefiles[i].channel);
		tracefile_mi(&x->tracefiles[i]);
		ustctl_mi_close();
	}
}

static void session_mi(const char *file, const struct ustctl_session *s,
		       const struct ustctl_session_extra *x)
{
	size_t i;

	ustctl_mi_open("session");
	ustctl_mi_attr("file", "%s", file);
	if (s->output && *s->output)
		ustctl_mi_attr("output", "%s", s->output);
	for (i = 0; i < s->nr_rules; i++)
		ustctl_mi_rule(&s->rules[i]);
	ustctl_session_channels_mi(s, x);
	ustctl_mi_close();
}

static void session_text(pid_t pid, const char *verb, const char *trace, const char *file,
			 const struct ustctl_session *s)
{
	printf("pid %d: %s %s%zu rule%s and %zu channel setting%s of trace %s %s %s\n", (int)pid,
	       verb, s->output && *s->output ? "the output, " : "", s->nr_rules,
	       s->nr_rules == 1 ? "" : "s", s->nr_channels, s->nr_channels == 1 ? "" : "s", trace,
	       verb[0] == 's' ? "to" : "from", file);
}

/* What save-session -s and load-session without PID did: the session's
 * MI element (the caller opened it), a sentence counting what the
 * session has, then its rotation schedule and trackers, a line each when
 * it has them. first_id: the first trigger's number, 0 when unknown. */
static void ustd_session_out(const char *verb, const char *name, const char *file,
			     const char *dir, const struct ustctl_session *s,
			     const struct ustctl_session_extra *x, unsigned first_id)
{
	size_t i, trackers = ustctl_session_trackers_count(x->trackers, x->nr_trackers);

	for (i = 0; i < s->nr_rules; i++)
		ustctl_mi_rule(&s->rules[i]);
	if (dir)
		ustctl_mi_element("directory", "%s", dir);
	ustctl_mi_element("file", "%s", file);
	ustctl_session_channels_mi(s, x);
	if (!ustctl_out_mi())
		printf("session %s %s %s: %s%zu rule%s, %zu channel setting%s, %zu tracefile limit%s, %s, %zu trigger%s, %zu tracker%s%s%s\n",
		       name, verb, file, s->output && *s->output ? "the output, " : "", s->nr_rules,
		       s->nr_rules == 1 ? "" : "s", s->nr_channels, s->nr_channels == 1 ? "" : "s",
		       x->nr_tracefiles, x->nr_tracefiles == 1 ? "" : "s",
		       x->rotation.every_us || x->rotation.size || x->rotation.on_rotate ?
		       "a rotation schedule" : "no rotation schedule", x->nr_triggers,
		       x->nr_triggers == 1 ? "" : "s", trackers, trackers == 1 ? "" : "s",
		       dir ? "; its traces go in " : "", dir ? dir : "");
	ustctl_rotation_out(&x->rotation, "  ");
	for (i = 0; i < x->nr_triggers; i++) {
		ustctl_mi_open("trigger");
		if (first_id)
			ustctl_mi_attr("id", "%zu", first_id + i);
		ustctl_mi_attr("on", "%s", x->triggers[i].pattern);
		if (x->triggers[i].filter)
			ustctl_mi_attr("filter", "%s", x->triggers[i].filter);
		if (x->triggers[i].dir)
			ustctl_mi_attr("dir", "%s", x->triggers[i].dir);
		if (x->triggers[i].at_most)
			ustctl_mi_attr("at-most", "%u", x->triggers[i].at_most);
		ustctl_mi_close();
	}
	ustctl_session_trackers_out(x->trackers, x->nr_trackers, trackers ? "  " : NULL);
}

/* save-session -s NAME FILE */
static int save_ustd_session(const struct ustctl_args *args)
{
	struct ustctl_session_extra *x = NULL;
	struct ustctl_session *s = NULL;
	const char *name = args->session, *file = args->argv[0];

	if (args->argc != 1)
		return ustctl_usage_error(args->cmd, "-s NAME takes the file only: no PID goes with it");
	if (ustctl_check_session_name_arg(args->cmd, name))
		return USTCTL_EXIT_USAGE;
	if (!file[0])
		return ustctl_usage_error(args->cmd, "FILE is empty");
	if (ustctl_describe_session(name, &s, &x) < 0 || ustctl_session_file_write(file, s, x) < 0) {
		if (s)
			ustctl_session_free(s);
		ustctl_session_extra_free(x);
		return ustctl_session_failed(args->cmd, name);
	}
	ustctl_session_mi_ok(name);
	ustd_session_out("saved to", name, file, NULL, s, x, 0);
	ustctl_mi_close();
	ustctl_session_free(s);
	ustctl_session_extra_free(x);
	return USTCTL_EXIT_OK;
}

/* load-session [-s NAME] FILE: a bad file is an input error (exit 2),
 * a refusal of ustd a failure (exit 1); either way nothing changed. */
static int load_ustd_session(const struct ustctl_args *args)
{
	struct ustctl_session_extra *x = NULL;
	struct ustctl_session *s = NULL;
	const char *file = args->argv[0], *name;
	char *dir = NULL;
	int status;

	if (!file[0])
		return ustctl_usage_error(args->cmd, "FILE is empty");
	if (args->session && ustctl_check_session_name_arg(args->cmd, args->session))
		return USTCTL_EXIT_USAGE;
	if (ustctl_session_file_read(file, &s, &x) < 0)
		return ustctl_usage_error(args->cmd, "%s", ustctl_last_error());
	name = args->session ? args->session : x->name;
	if (!name) {
		status = ustctl_usage_error(args->cmd, "%s names no session (a file of save-session PID): give one with -s NAME",
					    file);
		goto end;
	}
	if (ustctl_create_session_from(name, s, x, &dir) < 0) {
		status = ustctl_session_failed(args->cmd, name);
		goto end;
	}
	ustctl_session_mi_ok(name);
	ustd_session_out("created from", name, file, dir, s, x, 1);
	ustctl_mi_close();
	status = USTCTL_EXIT_OK;
end:
	free(dir);
	ustctl_session_free(s);
	ustctl_session_extra_free(x);
	return status;
}

int ustctl_cmd_save_session(const struct ustctl_args *args)
{
	struct ustctl_session_extra *extra = NULL;
	struct ustctl_session *session = NULL;
	const char *file = args->argv[1];
	int status = USTCTL_EXIT_FAILED;
	pid_t pid;

	if (args->session)
		return save_ustd_session(args);

	if (ustctl_parse_pid(args->cmd, args->argv[0], &pid) < 0)
		return USTCTL_EXIT_USAGE;
	if (!file[0])
		return ustctl_usage_error(args->cmd, "FILE is empty");
	if (ustctl_get_session(pid, args->trace, &session) < 0 ||
	    ustctl_get_session_extra(pid, args->trace, session, &extra) < 0) {
		ustctl_mi_open_process(pid, args->trace, false);
		ustctl_fail_last(pid, args->cmd->name);
		status = ustctl_call_status(args->cmd);
		goto end;
	}
	/* The file cannot be written: the command failed, its line was right. */
	if (ustctl_session_file_write(file, session, extra) < 0) {
		ustctl_mi_open_process(pid, args->trace, false);
		ustctl_fail_last(pid, args->cmd->name);
		goto end;
	}
	ustctl_mi_open_process(pid, args->trace, true);
	session_mi(file, session, extra);
	if (!ustctl_out_mi())
		session_text(pid, "saved", args->trace, file, session);
	status = USTCTL_EXIT_OK;
end:
	ustctl_mi_close();
	if (session)
		ustctl_session_free(session);
	ustctl_session_extra_free(extra);
	return status;
}

/* A file that cannot be read or is not a valid session is an input error,
 * like a bad argument: nothing is sent. */
int ustctl_cmd_load_session(const struct ustctl_args *args)
{
	struct ustctl_session_extra *extra = NULL;
	struct ustctl_session *session = NULL;
	const char *file = args->argv[1];
	int status;
	pid_t pid;

	if (args->argc == 1)
		return load_ustd_session(args);
	if (args->session)
		return ustctl_usage_error(args->cmd, "-s NAME names the session to create: no PID goes with it");

	if (ustctl_parse_pid(args->cmd, args->argv[0], &pid) < 0)
		return USTCTL_EXIT_USAGE;
	if (!file[0])
		return ustctl_usage_error(args->cmd, "FILE is empty");
	if (ustctl_session_file_read(file, &session, &extra) < 0)
		return ustctl_usage_error(args->cmd, "%s", ustctl_last_error());
	if (ustctl_apply_session_extra(pid, args->trace, session, extra) < 0) {
		ustctl_mi_open_process(pid, args->trace, false);
		ustctl_fail(pid, "%s %s: %s", args->cmd->name, file, ustctl_last_error());
		status = ustctl_call_status(args->cmd);
	} else {
		ustctl_mi_open_process(pid, args->trace, true);
		session_mi(file, session, extra);
		if (!ustctl_out_mi())
			session_text(pid, "loaded", args->trace, file, session);
		status = USTCTL_EXIT_OK;
	}
	ustctl_mi_close();
	ustctl_session_free(session);
	ustctl_session_extra_free(extra);
	return status;
}
