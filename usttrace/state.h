/* SPDX-License-Identifier: GPL-2.0-only */
/* What usttrace's parts share: the command line, as parsed, and what
 * usttrace made of it (its ustd, its directories). */
#ifndef USTTRACE_STATE_H
#define USTTRACE_STATE_H

#include <limits.h>
#include <popt.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <ust/ustctl.h>
#include "libustcomm/strbuf.h"
#include "usttrace/plt.h"

struct usttrace {
	/* command line */
	char *output_arg;
	struct ustcomm_strbuf patterns;	/* -m, joined by ',' */
	bool shared;			/* -s */
	bool follow;			/* -f */
	bool overwrite;			/* --overwrite */
	char *subbuf_size;		/* validated decimal text, or NULL */
	char *subbuf_num;
	char *blocking;			/* --blocking-timeout, as given */
	char *tracefile_size;		/* --tracefile-size, as given */
	char *tracefile_count;		/* --tracefile-count, as given */
	char *session_file;		/* --session */
	struct ustctl_session *session;	/* its contents */
	struct ustctl_session_extra *session_extra;	/* its tracefile limits */
	char *filter;			/* --filter, for every -m */
	char *loglevel;			/* --loglevel, for every -m */
	char *loglevel_only;		/* --loglevel-only, for every -m */
	struct ustcomm_strbuf contexts;	/* --context, joined by '+' */
	unsigned contexts_seen;		/* bit 1 << enum ustcomm_ctx */
	bool verbose;
	bool summary;			/* --summary */
	char *perfetto;			/* --perfetto FILE */
	char *relay;			/* --relay URL */
	char *live_timer;		/* --live-timer USEC */
	char *relay_backlog;		/* --relay-backlog SIZE, for ustd */
	char **argv;			/* PROGRAM ARGS... */
	char *attach_arg;		/* -p PID, as given */
	pid_t attach_pid;		/* -p: the running program to trace */

	char output[PATH_MAX];
	char rundir[PATH_MAX - 16];	/* private, room for "/ustd"; empty with -s */
	char sock_path[PATH_MAX];
	char start_stamp[32];		/* local time, as in trace directory names */
	pid_t ustd_pid;

	/* For the program's environment (usttrace_settings()). */
	struct ustcomm_strbuf autoprobe;	/* UST_AUTOPROBE */
	struct ustcomm_strbuf channels;		/* UST_CHANNELS */
	struct ustcomm_strbuf func_record;	/* UST_FUNC_RECORD (libust-func/func_record.h) */
	char *func_depth;			/* --func-depth, as given */
	char *thread_buffers;			/* --thread-buffers, as given */
	uint32_t nr_thread_buffers;		/* UST_THREAD_BUFFERS: for every */
	bool thread_buffers_all;		/* channel, or for ust_func only */
	char *func_time;			/* --func-time, as given */
	struct usttrace_plt plt;		/* --plt, -A, -R */
};

/*
 * usttrace's own failures exit with a status no traced program is likely to
 * return, as env(1) and timeout(1) do: 1 or 2 would read as the program's.
 */
#define USTTRACE_EXIT_FAILURE	125
#define USTTRACE_EXIT_CANNOT_RUN	126
#define USTTRACE_EXIT_NOT_FOUND	127

/* usttrace_parse() after --help or --version: nothing more to do. */
#define USTTRACE_DONE	1

#endif
