/* SPDX-License-Identifier: GPL-2.0-only */
/* Session files: save-session and load-session. */
#include <inttypes.h>
#include <stdio.h>
#include <ust/ustctl.h>
#include "libustcomm/blocking.h"
#include "ustctl/command.h"
#include "ustctl/output.h"

static void session_mi(const char *file, const struct ustctl_session *s)
{
	char text[UST_BLOCKING_TEXT_MAX];
	size_t i, j;

	ustctl_mi_open("session");
	ustctl_mi_attr("file", "%s", file);
	if (s->output && *s->output)
		ustctl_mi_attr("output", "%s", s->output);
	for (i = 0; i < s->nr_rules; i++)
		ustctl_mi_rule(&s->rules[i]);
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
		for (j = 0; j < s->channels[i].nr_contexts; j++) {
			ustctl_mi_open("context");
			ustctl_mi_attr("name", "%s", s->channels[i].contexts[j]);
			ustctl_mi_close();
		}
		ustctl_mi_close();
	}
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

int ustctl_cmd_save_session(const struct ustctl_args *args)
{
	struct ustctl_session *session = NULL;
	const char *file = args->argv[1];
	int status = USTCTL_EXIT_FAILED;
	pid_t pid;

	if (ustctl_parse_pid(args->cmd, args->argv[0], &pid) < 0)
		return USTCTL_EXIT_USAGE;
	if (!file[0])
		return ustctl_usage_error(args->cmd, "FILE is empty");
	if (ustctl_get_session(pid, args->trace, &session) < 0) {
		ustctl_mi_open_process(pid, args->trace, false);
		ustctl_fail_last(pid, args->cmd->name);
		status = ustctl_call_status(args->cmd);
		goto end;
	}
	/* The file cannot be written: the command failed, its line was right. */
	if (ustctl_session_write(file, session) < 0) {
		ustctl_mi_open_process(pid, args->trace, false);
		ustctl_fail_last(pid, args->cmd->name);
		goto end;
	}
	ustctl_mi_open_process(pid, args->trace, true);
	session_mi(file, session);
	if (!ustctl_out_mi())
		session_text(pid, "saved", args->trace, file, session);
	status = USTCTL_EXIT_OK;
end:
	ustctl_mi_close();
	if (session)
		ustctl_session_free(session);
	return status;
}

/* A file that cannot be read or is not a valid session is an input error,
 * like a bad argument: nothing is sent. */
int ustctl_cmd_load_session(const struct ustctl_args *args)
{
	struct ustctl_session *session = NULL;
	const char *file = args->argv[1];
	int status;
	pid_t pid;

	if (ustctl_parse_pid(args->cmd, args->argv[0], &pid) < 0)
		return USTCTL_EXIT_USAGE;
	if (!file[0])
		return ustctl_usage_error(args->cmd, "FILE is empty");
	if (ustctl_session_read(file, &session) < 0)
		return ustctl_usage_error(args->cmd, "%s", ustctl_last_error());
	if (ustctl_apply_session(pid, args->trace, session) < 0) {
		ustctl_mi_open_process(pid, args->trace, false);
		ustctl_fail(pid, "%s %s: %s", args->cmd->name, file, ustctl_last_error());
		status = ustctl_call_status(args->cmd);
	} else {
		ustctl_mi_open_process(pid, args->trace, true);
		session_mi(file, session);
		if (!ustctl_out_mi())
			session_text(pid, "loaded", args->trace, file, session);
		status = USTCTL_EXIT_OK;
	}
	ustctl_mi_close();
	ustctl_session_free(session);
	return status;
}
