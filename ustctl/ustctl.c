/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ustctl: control programs linked with libust while they run, through
 * libustctl. `ustctl [--mi xml] [--timeout MS] COMMAND [OPTION...] [ARG...]`:
 * the global options come before the command, the command's own after it.
 */
#include <errno.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ust/ustctl.h>
#include <ust/version.h>
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/log.h"
#include "libustcomm/loglevel.h"
#include "ustctl/command.h"
#include "ustctl/command_table.h"
#include "ustctl/output.h"

enum { OPT_HELP = 1, OPT_VERSION, OPT_TIMEOUT };

/* ustctl_parse_command() after --help. */
#define USTCTL_HELP_SHOWN	(-1)

struct ustctl_global {
	char *mi;
	int timeout_ms;
	bool timeout_given;
};

static void ustctl_print_help(poptContext pc)
{
	size_t i;

	poptPrintHelp(pc, stdout, 0);
	printf("\nCommands (ustctl help COMMAND, or ustctl COMMAND --help, describes each):\n");
	for (i = 0; i < ustctl_nr_commands; i++)
		printf("  %-16s %s\n", ustctl_commands[i].name, ustctl_commands[i].summary);
	printf("  %-16s %s\n", "help", "describe ustctl, or the COMMAND given");
	printf("\nExit status: 0 when everything succeeded; 1 when the operation failed\n"
	       "for some process (gone, no answer, refused); 2 when the command line is\n"
	       "wrong (options, arguments, a filter that does not parse or fits none of\n"
	       "the events, a bad session file), then nothing changed and the usage follows.\n");
}

/*
 * Global options, up to the command. Returns the index of the command in
 * argv, or 0 when there is nothing more to do, with *status the exit status
 * (after --help, --version or a usage error).
 */
static int ustctl_parse_global(int argc, const char **argv, struct ustctl_global *g,
			       int *status)
{
	struct poptOption options[] = {
		{ "mi", '\0', POPT_ARG_STRING, &g->mi, 0,
		  "machine-readable output: xml (valid against ustctl-mi.xsd)", "xml" },
		{ "timeout", '\0', POPT_ARG_INT, &g->timeout_ms, OPT_TIMEOUT,
		  "how long to wait for a program to answer (default 5000; snapshot waits 10 s more)",
		  "MS" },
		{ "help", 'h', POPT_ARG_NONE, NULL, OPT_HELP, "show this help", NULL },
		{ "version", 'V', POPT_ARG_NONE, NULL, OPT_VERSION, "print the version", NULL },
		POPT_TABLEEND
	};
	bool help = false, version = false;
	const char **rest;
	poptContext pc;
	int rc, nr, ret = 0;

	/* Options end at the command: what follows is the command's. */
	pc = poptGetContext("ustctl", argc, argv, options, POPT_CONTEXT_POSIXMEHARDER);
	poptSetOtherOptionHelp(pc, "[OPTION...] COMMAND [COMMAND OPTION...] [ARG...]");
	while ((rc = poptGetNextOpt(pc)) > 0) {
		if (rc == OPT_HELP)
			help = true;
		else if (rc == OPT_VERSION)
			version = true;
		else if (rc == OPT_TIMEOUT)
			g->timeout_given = true;
	}
	/* The output format is known before any error is reported in it. */
	ustctl_out_begin(g->mi && !strcmp(g->mi, "xml"));
	*status = USTCTL_EXIT_USAGE;
	if (rc < -1) {
		ustctl_usage_error(NULL, "%s: %s", poptBadOption(pc, POPT_BADOPTION_NOALIAS),
				   poptStrerror(rc));
		goto end;
	}
	if (g->mi && strcmp(g->mi, "xml")) {
		ustctl_usage_error(NULL, "--mi %s: the only machine-readable format is xml", g->mi);
		goto end;
	}
	if (g->timeout_given && g->timeout_ms <= 0) {
		ustctl_usage_error(NULL, "--timeout %d: give a positive number of milliseconds",
				   g->timeout_ms);
		goto end;
	}
	if (help || version) {
		ustctl_out_cancel();
		if (help)
			ustctl_print_help(pc);
		else
			printf("ustctl (ust) %s\n", UST_VERSION);
		*status = USTCTL_EXIT_OK;
		goto end;
	}
	/* Past the command nothing is an option of ours: the rest is argv's tail. */
	rest = poptGetArgs(pc);
	for (nr = 0; rest && rest[nr]; nr++)
		;
	if (!nr) {
		ustctl_usage_error(NULL, "no command given");
		goto end;
	}
	*status = USTCTL_EXIT_OK;
	ret = argc - nr;
end:
	poptFreeContext(pc);
	return ret;
}

static void ustctl_print_command_help(poptContext pc, const struct ustctl_cmd *cmd)
{
	poptPrintHelp(pc, stdout, 0);
	printf("\n%s", cmd->help);
}

/* --filter, --loglevel and --loglevel-only into the rule of args. */
static int ustctl_parse_rule_options(const struct ustctl_cmd *cmd, const struct ustctl_opts *o,
				     struct ustctl_args *args)
{
	const char *level = o->loglevel ? o->loglevel : o->loglevel_only;

	args->rule.enable = 1;
	if (o->loglevel && o->loglevel_only)
		return ustctl_usage_error(cmd, "give --loglevel or --loglevel-only, not both");
	if (level) {
		args->rule.loglevel = ustctl_loglevel_parse(level);
		if (args->rule.loglevel < 0)
			return ustctl_usage_error(cmd, "unknown log level '%s': give " USTCOMM_LOGLEVEL_CHOICES,
						  level);
		args->rule.loglevel_match = o->loglevel ? USTCTL_LOGLEVEL_RANGE :
			USTCTL_LOGLEVEL_ONLY;
	}
	if (o->filter) {
		if (ustctl_filter_check(o->filter))
			return ustctl_usage_error(cmd, "%s", ustctl_last_error());
		args->rule.filter = o->filter;
	}
	return 0;
}

/*
 * The command's options and arguments, from argv[0] (its name) on.
 * Returns 0 with args filled, USTCTL_HELP_SHOWN, or USTCTL_EXIT_USAGE.
 * args->argv stays valid until the context is freed: *pcp; *trace and
 * *dir (the option values, args->trace and args->dir) are the caller's to
 * free.
 */
static int ustctl_parse_command(const struct ustctl_cmd *cmd, int argc, const char **argv,
				struct ustctl_args *args, struct ustctl_opts *o,
				poptContext *pcp)
{
	char **trace = &o->trace, **dir = &o->dir;
	const struct poptOption trace_option = {
		"trace", 't', POPT_ARG_STRING, trace, 0,
		"the trace to act on (default " USTCTL_DEFAULT_TRACE ")", "TRACE"
	};
	const struct poptOption dir_option = {
		"output", 'o', POPT_ARG_STRING, dir, 0,
		"the directory to write in (default: ustd's)", "DIR"
	};
	const struct poptOption relay_option = {
		"relay", 'r', POPT_ARG_STRING, &o->relay, 0,
		"stream to the lttng-relayd at URL, net://HOST[:CONTROL_PORT[:DATA_PORT]]", "URL"
	};
	const struct poptOption rule_options[] = {
		{ "filter", 'f', POPT_ARG_STRING, &o->filter, 0,
		  "record only the events for which EXPR holds", "EXPR" },
		{ "loglevel", 'l', POPT_ARG_STRING, &o->loglevel, 0,
		  "only events of LEVEL or more severe", "LEVEL" },
		{ "loglevel-only", 'L', POPT_ARG_STRING, &o->loglevel_only, 0,
		  "only events of exactly LEVEL", "LEVEL" },
	};
	const struct poptOption session_option = {
		"session", 's', POPT_ARG_STRING, &o->session, 0,
		"act on ustd's session NAME instead of a process", "NAME"
	};
	const struct poptOption session_opts[] = {
		{ "overwrite", '\0', POPT_ARG_NONE, &o->overwrite, 0,
		  "flight recorder: keep the newest events, write them on snapshot", NULL },
		{ "subbuf-size", '\0', POPT_ARG_STRING, &o->subbuf_size, 0,
		  "sub-buffer size of every channel", "BYTES" },
		{ "subbuf-num", '\0', POPT_ARG_STRING, &o->subbuf_num, 0,
		  "sub-buffers per buffer of every channel", "N" },
		{ "rotate-every", '\0', POPT_ARG_STRING, &o->rotate_every, 0,
		  "archive the current chunk every DURATION (500ms, 1s, 10m)", "DURATION" },
		{ "rotate-size", '\0', POPT_ARG_STRING, &o->rotate_size, 0,
		  "archive the current chunk once it holds BYTES", "BYTES" },
		{ "on-rotate", '\0', POPT_ARG_STRING, &o->on_rotate, 0,
		  "run CMD with each archived chunk's path as last argument", "CMD" },
		{ "on-rotate-timeout", '\0', POPT_ARG_STRING, &o->on_rotate_timeout, 0,
		  "kill an --on-rotate command still running after DURATION (default 5m)",
		  "DURATION" },
		{ "tracefile-size", '\0', POPT_ARG_STRING, &o->tracefile_size, 0,
		  "cut each stream into files of at most BYTES", "BYTES" },
		{ "tracefile-count", '\0', POPT_ARG_STRING, &o->tracefile_count, 0,
		  "with --tracefile-size: keep only the newest N files of each stream", "N" },
		{ "buffers-pid", '\0', POPT_ARG_NONE, &o->buffers_pid, 0,
		  "each process has buffers of its own (the default)", NULL },
		{ "buffers-uid", '\0', POPT_ARG_NONE, &o->buffers_uid, 0,
		  "the processes of one user share one set of buffers, held by ustd", NULL },
	};
	const struct poptOption trigger_options[] = {
		{ "on", '\0', POPT_ARG_STRING, &o->on, 0,
		  "fire on the events matching PATTERN", "PATTERN" },
		{ "snapshot", '\0', POPT_ARG_NONE, &o->snapshot, 0,
		  "when it fires, ustd writes a snapshot", NULL },
		{ "at-most", '\0', POPT_ARG_STRING, &o->at_most, 0,
		  "at most N snapshots a minute", "N/MINUTE" },
	};
	const struct poptOption rotation_opts[] = {
		{ "every", '\0', POPT_ARG_STRING, &o->rotate_every, 0,
		  "archive the current chunk every DURATION (500ms, 1s, 10m)", "DURATION" },
		{ "size", '\0', POPT_ARG_STRING, &o->rotate_size, 0,
		  "archive the current chunk once it holds BYTES", "BYTES" },
	};
	const struct poptOption tracker_options[] = {
		{ "pid", '\0', POPT_ARG_NONE, &o->track_pid, 0,
		  "the values are process ids", NULL },
		{ "procname", '\0', POPT_ARG_NONE, &o->track_procname, 0,
		  "the values are process names (their first 15 characters, as comm)", NULL },
		{ "uid", '\0', POPT_ARG_NONE, &o->track_uid, 0,
		  "the values are user ids (real)", NULL },
		{ "all", 'a', POPT_ARG_NONE, &o->track_all, 0,
		  "track: every process again; untrack: none", NULL },
	};
	const struct poptOption help_option = {
		"help", 'h', POPT_ARG_NONE, NULL, OPT_HELP, "show this help", NULL
	};
	const struct poptOption end = POPT_TABLEEND;
	struct poptOption options[16];
	static char name[64];
	poptContext pc;
	int rc, nr = 0;
	bool help = false;

	/* Only the options the command takes: any other is a usage error. */
	if (cmd->takes_dir)
		options[nr++] = dir_option;
	if (cmd->takes_relay)
		options[nr++] = relay_option;
	if (cmd->takes_trace)
		options[nr++] = trace_option;
	if (cmd->takes_rule) {
		options[nr++] = rule_options[0];
		options[nr++] = rule_options[1];
		options[nr++] = rule_options[2];
	}
	if (cmd->takes_session)
		options[nr++] = session_option;
	if (cmd->session_opts) {
		options[nr++] = session_opts[0];
		options[nr++] = session_opts[1];
		options[nr++] = session_opts[2];
		options[nr++] = session_opts[3];
		options[nr++] = session_opts[4];
		options[nr++] = session_opts[5];
		options[nr++] = session_opts[6];
		options[nr++] = session_opts[7];
		options[nr++] = session_opts[8];
		options[nr++] = session_opts[9];
		options[nr++] = session_opts[10];
	}
	if (cmd->rotation_opts) {
		options[nr++] = rotation_opts[0];
		options[nr++] = rotation_opts[1];
		options[nr++] = session_opts[5];
		options[nr++] = session_opts[6];
	}
	if (cmd->takes_trigger) {
		options[nr++] = rule_options[0];
		options[nr++] = trigger_options[0];
		options[nr++] = trigger_options[1];
		options[nr++] = trigger_options[2];
	}
	if (cmd->takes_tracker) {
		options[nr++] = tracker_options[0];
		options[nr++] = tracker_options[1];
		options[nr++] = tracker_options[2];
		options[nr++] = tracker_options[3];
	}
	options[nr++] = help_option;
	options[nr] = end;
	/* popt names the program by argv[0] in its help. */
	snprintf(name, sizeof(name), "ustctl %s", cmd->name);
	argv[0] = name;
	pc = poptGetContext(name, argc, argv, options, 0);
	*pcp = pc;
	poptSetOtherOptionHelp(pc, cmd->args);
	while ((rc = poptGetNextOpt(pc)) == OPT_HELP)
		help = true;
	if (help) {
		ustctl_out_cancel();
		ustctl_print_command_help(pc, cmd);
		return USTCTL_HELP_SHOWN;
	}
	if (rc < -1)
		return ustctl_usage_error(cmd, "%s: %s",
					  poptBadOption(pc, POPT_BADOPTION_NOALIAS),
					  poptStrerror(rc));
	if (*trace && !**trace)
		return ustctl_usage_error(cmd, "-t needs a trace name");
	if (*trace && strlen(*trace) >= USTCOMM_CTL_TRACE_NAME_MAX)
		return ustctl_usage_error(cmd, "-t %.20s...: a trace name has at most %u bytes",
					  *trace, USTCOMM_CTL_TRACE_NAME_MAX - 1);
	if (*dir && !**dir)
		return ustctl_usage_error(cmd, "-o needs a directory");
	if (o->relay && !*o->relay)
		return ustctl_usage_error(cmd, "-r needs a URL");
	if (o->relay && *dir)
		return ustctl_usage_error(cmd, "-o and -r both say where the trace goes: give one");
	if (o->session && *trace)
		return ustctl_usage_error(cmd, "-s names a session, -t a trace of a process: give one");
	if (o->buffers_pid && o->buffers_uid)
		return ustctl_usage_error(cmd, "--buffers-pid and --buffers-uid: a session's buffers are per process or per user, give one");
	args->cmd = cmd;
	args->session = o->session;
	args->subbuf_size = o->subbuf_size;
	args->subbuf_num = o->subbuf_num;
	args->rotate_every = o->rotate_every;
	args->rotate_size = o->rotate_size;
	args->on_rotate = o->on_rotate;
	args->on_rotate_timeout = o->on_rotate_timeout;
	args->tracefile_size = o->tracefile_size;
	args->tracefile_count = o->tracefile_count;
	args->overwrite = o->overwrite;
	args->buffers = o->buffers_uid ? USTCTL_BUFFERS_PER_UID : USTCTL_BUFFERS_PER_PID;
	args->relay = o->relay;
	args->trace = *trace ? *trace : USTCTL_DEFAULT_TRACE;
	args->dir = *dir;
	args->on = o->on;
	args->snapshot = o->snapshot != 0;
	args->at_most = o->at_most;
	args->nr_track_kinds = (o->track_pid != 0) + (o->track_procname != 0) + (o->track_uid != 0);
	args->track_kind = args->nr_track_kinds != 1 ? NULL : o->track_pid ? "pid" :
			   o->track_procname ? "procname" : "uid";
	args->track_all = o->track_all != 0;
	rc = ustctl_parse_rule_options(cmd, o, args);
	if (rc)
		return rc;
	args->argv = poptGetArgs(pc);
	for (nr = 0; args->argv && args->argv[nr]; nr++)
		;
	args->argc = nr;
	/* With -s there is no PID to give. */
	if (nr < cmd->min_args - (o->session ? 1 : 0))
		return ustctl_usage_error(cmd, "missing arguments");
	if (cmd->max_args >= 0 && nr > cmd->max_args)
		return ustctl_usage_error(cmd, "too many arguments, from '%s' on",
					  args->argv[cmd->max_args]);
	return 0;
}

/* ustctl help [COMMAND]: argv[0] is "help". Returns the exit status. */
static int ustctl_help_command(int argc, const char **argv)
{
	const char *help_argv[3] = { NULL, "--help", NULL };
	struct ustctl_global g = { NULL, 0, false };
	struct ustctl_args args = { 0 };
	struct ustctl_opts opts = { 0 };
	const struct ustctl_cmd *cmd;
	poptContext pc = NULL;
	int status;

	if (argc > 2)
		return ustctl_usage_error(NULL, "help takes at most one command, not '%s'", argv[2]);
	if (argc == 1) {
		help_argv[0] = "ustctl";
		ustctl_parse_global(2, help_argv, &g, &status);
		free(g.mi);
		return status;
	}
	cmd = ustctl_find_command(argv[1]);
	if (!cmd)
		return ustctl_usage_error(NULL, "help %s: unknown command", argv[1]);
	help_argv[0] = cmd->name;
	status = ustctl_parse_command(cmd, 2, help_argv, &args, &opts, &pc);
	poptFreeContext(pc);
	return status == USTCTL_HELP_SHOWN ? USTCTL_EXIT_OK : status;
}

int main(int argc, const char **argv)
{
	struct ustctl_global g = { NULL, 0, false };
	struct ustctl_args args = { 0 };
	const struct ustctl_cmd *cmd;
	poptContext pc = NULL;
	struct ustctl_opts opts = { 0 };
	int first, status;

	ustcomm_log_set_prefix("ustctl");
	first = ustctl_parse_global(argc, argv, &g, &status);
	if (!first)
		goto end;
	if (g.timeout_given)
		ustctl_set_timeout(g.timeout_ms);
	/* "ustctl help [COMMAND]", as git and lttng have it: --help of the command or of ustctl. */
	if (!strcmp(argv[first], "help")) {
		status = ustctl_help_command(argc - first, argv + first);
		goto end;
	}
	cmd = ustctl_find_command(argv[first]);
	if (!cmd) {
		status = ustctl_usage_error(NULL, "unknown command '%s'", argv[first]);
		goto end;
	}
	ustctl_out_command(cmd->name);
	status = ustctl_parse_command(cmd, argc - first, argv + first, &args, &opts, &pc);
	if (status == USTCTL_HELP_SHOWN)
		status = USTCTL_EXIT_OK;
	else if (status == 0)
		status = cmd->run(&args);
end:
	poptFreeContext(pc);
	free(opts.trace);
	free(opts.dir);
	free(opts.relay);
	free(opts.filter);
	free(opts.loglevel);
	free(opts.loglevel_only);
	free(opts.session);
	free(opts.subbuf_size);
	free(opts.subbuf_num);
	free(opts.rotate_every);
	free(opts.rotate_size);
	free(opts.on_rotate);
	free(opts.on_rotate_timeout);
	free(opts.tracefile_size);
	free(opts.tracefile_count);
	free(opts.on);
	free(opts.at_most);
	free(g.mi);
	return ustctl_out_end(status);
}
