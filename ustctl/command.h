/* SPDX-License-Identifier: GPL-2.0-only */
/* ustctl's commands: their arguments and what they share (command.c);
 * the table is command_table.h's. */
#ifndef USTCTL_COMMAND_H
#define USTCTL_COMMAND_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <ust/ustctl.h>

/* Exit statuses. */
#define USTCTL_EXIT_OK		0
#define USTCTL_EXIT_FAILED	1	/* a command failed for some process */
#define USTCTL_EXIT_USAGE	2	/* the command line is wrong; nothing was sent */

struct ustctl_cmd;

/* The option values of a command line, as popt stores them (malloc'd). */
struct ustctl_opts {
	char *trace, *dir, *relay, *filter, *loglevel, *loglevel_only;
	char *session, *subbuf_size, *subbuf_num;
	char *rotate_every, *rotate_size, *on_rotate, *on_rotate_timeout;
	char *tracefile_size, *tracefile_count;
	int overwrite;
	int buffers_pid, buffers_uid;	/* create-session */
	char *on, *at_most;		/* add-trigger */
	int snapshot;
	int track_pid, track_procname, track_uid, track_all;	/* track, untrack */
};

/* A parsed command line: the trace (-t) and the positional arguments. */
struct ustctl_args {
	const struct ustctl_cmd *cmd;
	const char *trace;		/* never NULL: USTCTL_DEFAULT_TRACE without -t */
	const char *dir;		/* -o DIR, or NULL */
	const char *relay;		/* -r URL, or NULL */
	/* enable-marker: level and filter (pattern unset, enable 1) */
	struct ustctl_rule rule;
	const char *session;		/* -s NAME: ustd's session, not a PID */
	const char *subbuf_size, *subbuf_num;	/* create-session */
	/* create-session's rotation options as given, NULL when absent */
	const char *rotate_every, *rotate_size, *on_rotate, *on_rotate_timeout;
	/* create-session's --tracefile-size and --tracefile-count as given */
	const char *tracefile_size, *tracefile_count;
	int overwrite;
	/* create-session: enum ustctl_buffers (--buffers-pid, --buffers-uid) */
	int buffers;
	/* add-trigger: --on, --snapshot and --at-most as given (NULL, false:
	 * absent); the filter is rule.filter */
	const char *on;
	bool snapshot;
	const char *at_most;
	/* track, untrack: the kind given (--pid, --procname, --uid; NULL
	 * when none or more than one), and --all */
	const char *track_kind;
	int nr_track_kinds;
	bool track_all;
	const char **argv;
	int argc;
};

struct ustctl_cmd {
	const char *name;
	const char *args;		/* the usage after the name */
	const char *summary;		/* one line, for ustctl --help */
	const char *help;		/* the rest of ustctl COMMAND --help */
	bool takes_trace;		/* -t TRACE */
	int min_args;
	int max_args;			/* -1: any number */
	/* Returns one of the exit statuses. */
	int (*run)(const struct ustctl_args *args);
	/* The trace commands: the libustctl call (create-trace: NULL, it is
	 * ustctl_create_trace_output), and what it did in words. */
	int (*trace_op)(pid_t pid, const char *trace);
	const char *done;
	bool takes_dir;			/* -o DIR */
	bool takes_relay;		/* -r URL, instead of -o DIR */
	bool takes_rule;		/* --filter, --loglevel, --loglevel-only */
	bool takes_session;		/* -s NAME instead of PID */
	/* --overwrite, --subbuf-size, --subbuf-num, the rotation's
	 * --rotate-every, --rotate-size, --on-rotate, --on-rotate-timeout,
	 * --tracefile-size, --tracefile-count, --buffers-pid and
	 * --buffers-uid */
	bool session_opts;
	bool takes_trigger;		/* --on, --filter, --snapshot, --at-most */
	/* enable-rotation: --every, --size, --on-rotate, --on-rotate-timeout */
	bool rotation_opts;
	bool takes_tracker;		/* --pid, --procname, --uid, --all */
};

/* Says what is wrong with the command line, and its usage; returns
 * USTCTL_EXIT_USAGE. */
int ustctl_usage_error(const struct ustctl_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ustctl_print_usage(FILE *fp, const struct ustctl_cmd *cmd);

/* A positive decimal process ID, or a usage error (returns -EINVAL). */
int ustctl_parse_pid(const struct ustctl_cmd *cmd, const char *text, pid_t *pid);
/* PID and CHANNEL/VALUE, the arguments of set-blocking-timeout and
 * set-tracefile (a channel name holds no slash; VALUE may): 0 with
 * *channel allocated and *value in the argument, or the exit status after
 * saying what is wrong (example: a valid CHANNEL/VALUE). */
int ustctl_parse_channel_value(const struct ustctl_args *args, const char *example,
			       pid_t *pid, char **channel, const char **value);
/* PID and CHANNEL, the arguments of the get-* commands of a channel's
 * setting: 0, or the exit status after saying what is wrong. The channel
 * is only checked not to be empty: libust judges the name. */
int ustctl_parse_pid_channel(const struct ustctl_args *args, pid_t *pid);
/* Every argument from first on as a PID; allocated. */
int ustctl_parse_pids(const struct ustctl_args *args, int first, pid_t **pids);

/* Reports a failed libustctl call for pid: what (the command), then
 * ustctl_last_error(), which names the process and says why. */
void ustctl_fail_last(pid_t pid, const char *what);

/*
 * The exit status of a failed libustctl call, reported already: a usage
 * error (and the command's usage line, once) when libustctl found the
 * fault in our arguments before sending anything, else a failure.
 */
int ustctl_call_status(const struct ustctl_cmd *cmd);
/* The worse of two exit statuses. */
int ustctl_worse(int a, int b);

/* Checks made before anything is sent; each reports a usage error. */
int ustctl_check_pattern(const struct ustctl_cmd *cmd, const char *pattern);
int ustctl_check_channel(const struct ustctl_cmd *cmd, const char *channel);
int ustctl_check_session_name_arg(const struct ustctl_cmd *cmd, const char *name);
/* A failed call to ustd about session name: reported, with its exit status. */
int ustctl_session_failed(const struct ustctl_cmd *cmd, const char *name);
/* Opens the MI element of session name, a success. */
void ustctl_session_mi_ok(const char *name);

/* The commands (command_*.c). */
int ustctl_cmd_list_pids(const struct ustctl_args *args);
int ustctl_cmd_list_markers(const struct ustctl_args *args);
int ustctl_cmd_enable_marker(const struct ustctl_args *args);
int ustctl_cmd_disable_marker(const struct ustctl_args *args);
int ustctl_cmd_trace_op(const struct ustctl_args *args);
int ustctl_cmd_add_context(const struct ustctl_args *args);
int ustctl_cmd_list_contexts(const struct ustctl_args *args);
int ustctl_cmd_set_subbuf(const struct ustctl_args *args);
int ustctl_cmd_get_subbuf(const struct ustctl_args *args);
int ustctl_cmd_set_blocking(const struct ustctl_args *args);
int ustctl_cmd_get_blocking(const struct ustctl_args *args);
int ustctl_cmd_set_tracefile(const struct ustctl_args *args);
int ustctl_cmd_get_tracefile(const struct ustctl_args *args);
int ustctl_cmd_set_sock_path(const struct ustctl_args *args);
int ustctl_cmd_get_sock_path(const struct ustctl_args *args);
int ustctl_cmd_info(const struct ustctl_args *args);
int ustctl_cmd_save_session(const struct ustctl_args *args);
int ustctl_cmd_load_session(const struct ustctl_args *args);
int ustctl_cmd_snapshot(const struct ustctl_args *args);
int ustctl_cmd_create_session(const struct ustctl_args *args);
int ustctl_cmd_session_op(const struct ustctl_args *args);
int ustctl_cmd_list_sessions(const struct ustctl_args *args);
int ustctl_cmd_enable_rotation(const struct ustctl_args *args);
int ustctl_cmd_disable_rotation(const struct ustctl_args *args);
/* A session's triggers with their counts, as list-triggers -s prints them
 * (each line after indent), and their MI elements. */
void ustctl_session_triggers_out(const struct ustctl_session_trigger *t, size_t nr,
				 const char *indent);
/* --mi xml: a session's channels, their settings, contexts and
 * tracefile limits (x may be NULL), then the channels with limits only. */
void ustctl_session_channels_mi(const struct ustctl_session *s,
				const struct ustctl_session_extra *x);
/* A session's buffers (enum ustctl_buffers): its MI element <buffers>,
 * and "buffers: per-uid" or "per-pid" on a line after indent (none when
 * indent is NULL). */
void ustctl_session_buffers_out(int buffers, const char *indent);
/* list-sessions NAME */
int ustctl_cmd_session_show(const struct ustctl_args *args);
/* snapshot -s NAME, clear-session, track and untrack */
int ustctl_cmd_session_snapshot(const struct ustctl_args *args);
int ustctl_cmd_clear_session(const struct ustctl_args *args);
int ustctl_cmd_track(const struct ustctl_args *args);
int ustctl_cmd_session_markers(const struct ustctl_args *args, bool enable);
int ustctl_cmd_session_context(const struct ustctl_args *args);
int ustctl_cmd_rotate_session(const struct ustctl_args *args);
/* A rotation schedule: its MI element, or a line after indent (nothing
 * when there is none). */
void ustctl_rotation_out(const struct ustctl_rotation *r, const char *indent);
/* create-session's (and enable-rotation's) rotation options into r
 * (*given: any of them); 0, or the exit status after a usage error. */
int ustctl_rotation_options(const struct ustctl_args *args, struct ustctl_rotation *r,
			    bool *given);
int ustctl_cmd_add_trigger(const struct ustctl_args *args);
int ustctl_cmd_list_triggers(const struct ustctl_args *args);
int ustctl_cmd_remove_trigger(const struct ustctl_args *args);

#endif
