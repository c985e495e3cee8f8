/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * usttrace: trace a program from its first instruction to its exit, like
 * strace. Starts a private ustd (or uses the user's, with -s), runs the
 * program with the environment that makes libust trace at start-up, and
 * once the program is gone has ustd write everything out.
 *
 * Which processes are traced: the program, and the children it forks
 * (libust gives each a trace of its own). Programs it executes in
 * children are not: UST_TRACE_PID names the one process the environment
 * starts tracing in. With -f (follow) every descendant is traced, executed
 * or forked; usttrace becomes their subreaper (PR_SET_CHILD_SUBREAPER), so
 * that orphans are reparented to it, and waits until every one has exited
 * (each has then had its trace written: libust's exit waits for ustd).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <popt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <ust/ustctl.h>
#include <ust/version.h>
#include "libustcomm/blocking.h"
#include "libustcomm/bufsize.h"
#include "libustcomm/event_context.h"
#include "libustcomm/log.h"
#include "libustcomm/loglevel.h"
#include "libustcomm/loss.h"
#include "libustcomm/pattern.h"
#include "libustcomm/protocol.h"
#include "libustcomm/relay_url.h"
#include "libustcomm/rundir.h"
#include "libustcomm/shm_layout.h"
#include "libustcomm/strbuf.h"
#include "usttrace/memory.h"
#include "usttrace/plt.h"
#include "usttrace/rules.h"
#include "usttrace/unmatched.h"
#include "usttrace/view.h"

#define USTTRACE_READY_TIMEOUT_MS	10000

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
	char *func_time;			/* --func-time, as given */
	struct usttrace_plt plt;		/* --plt, -A, -R */
};

static const int usttrace_signals[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction usttrace_orig_actions[UST_ARRAY_SIZE(usttrace_signals)];
static volatile sig_atomic_t usttrace_got_signal;
static volatile sig_atomic_t usttrace_program_pid;

static void usttrace_on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;

	usttrace_got_signal = sig;
	/* A signal from the terminal (SI_KERNEL) has reached the program
	 * already: it is in our process group. Forward only what was sent to
	 * usttrace alone, so that the program never gets one signal twice. */
	if (usttrace_program_pid > 0 && si->si_code != SI_KERNEL)
		kill(usttrace_program_pid, sig);
	errno = saved_errno;
}

/* A signal usttrace was started with ignored (nohup, `&` in a script) stays
 * ignored, for usttrace and for the program. */
static void usttrace_install_signals(void)
{
	struct sigaction sa = { .sa_sigaction = usttrace_on_signal,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	size_t i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < UST_ARRAY_SIZE(usttrace_signals); i++) {
		sigaction(usttrace_signals[i], NULL, &usttrace_orig_actions[i]);
		if (usttrace_orig_actions[i].sa_handler != SIG_IGN)
			sigaction(usttrace_signals[i], &sa, NULL);
	}
}

/* In a child before exec: a signal must reach the new program, not a copy
 * of our handler. */
static void usttrace_restore_signals(void)
{
	size_t i;

	for (i = 0; i < UST_ARRAY_SIZE(usttrace_signals); i++)
		sigaction(usttrace_signals[i], &usttrace_orig_actions[i], NULL);
}

static void usttrace_block_signals(sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < UST_ARRAY_SIZE(usttrace_signals); i++)
		sigaddset(&set, usttrace_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

static int usttrace_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

static void usttrace_describe_status(char *buf, size_t len, int status)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "ended with wait status %#x", status);
}

/*
 * Does a -m pattern name libust-func's events? Function tracing writes two
 * events per call, faster than any other instrumentation: a run that
 * discards some has a profile with holes, so usttrace makes such a run
 * lossless unless told otherwise.
 */
static bool usttrace_traces_functions(const struct usttrace *ut)
{
	const char *p = ut->patterns.buf;

	while (p && *p) {
		if (!strncmp(p, USTCOMM_FUNC_PROVIDER, strlen(USTCOMM_FUNC_PROVIDER)))
			return true;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return false;
}

/* A --subbuf-size or --subbuf-num checked already, or 0 when not given. */
static uint32_t usttrace_u32(const char *text)
{
	uint32_t v = 0;

	if (text && ustcomm_parse_pow2(text, 1, UINT32_MAX, &v) < 0)
		v = 0;
	return v;
}

static pid_t usttrace_wait(pid_t pid, int *status)
{
	pid_t ret;

	do
		ret = waitpid(pid, status, 0);
	while (ret < 0 && errno == EINTR);
	return ret;
}

/* Accepts a power of two within [min, max] (k and M suffixes allowed);
 * keeps its text for the environment, where libust reads it the same way. */
static int usttrace_check_pow2(const char *opt, const char *arg, uint32_t min, uint32_t max,
			       const char *what)
{
	uint32_t v;

	if (ustcomm_parse_pow2(arg, min, max, &v) < 0) {
		ustcomm_err("%s %s: %s must be a power of two from %" PRIu32 " to %" PRIu32
			    " (k and M suffixes allowed)", opt, arg, what, min, max);
		return -EINVAL;
	}
	return 0;
}

/* --tracefile-size and --tracefile-count, as libust will take them. */
static int usttrace_check_tracefile(const struct usttrace *ut)
{
	uint64_t v;

	if (ut->tracefile_size &&
	    (ustcomm_parse_size(ut->tracefile_size, 0, UST_TRACEFILE_SIZE_MAX, &v) < 0 ||
	     (v && v < UST_TRACEFILE_SIZE_MIN))) {
		ustcomm_err("--tracefile-size %s: expected bytes from %llu (k, M and G suffixes allowed), or 0 for one file",
			    ut->tracefile_size, UST_TRACEFILE_SIZE_MIN);
		return -EINVAL;
	}
	if (!ut->tracefile_count)
		return 0;
	if (!ut->tracefile_size) {
		ustcomm_err("--tracefile-count needs --tracefile-size: it counts the files each stream is cut into");
		return -EINVAL;
	}
	if (ustcomm_parse_size(ut->tracefile_count, 0, UST_TRACEFILE_COUNT_MAX, &v) < 0 ||
	    strpbrk(ut->tracefile_count, "kKmMgG")) {
		ustcomm_err("--tracefile-count %s: expected a number of files up to %u (0: keep all)",
			    ut->tracefile_count, UST_TRACEFILE_COUNT_MAX);
		return -EINVAL;
	}
	return 0;
}

/* A context's name, checked, and whether this machine can record it. */
static int usttrace_check_context(const char *what, const char *ctx)
{
	if (ustctl_context_available(ctx) < 0) {
		ustcomm_err("%s %s: %s", what, ctx, ustctl_last_error());
		return -EINVAL;
	}
	return 0;
}

/* --context CTX[,CTX...]: each once. */
static int usttrace_add_contexts(struct usttrace *ut, const char *list)
{
	char *copy, *tok, *save = NULL;
	unsigned bit;
	int ret = 0;

	if (!list[strspn(list, ",")]) {
		ustcomm_err("--context needs a context such as vtid or procname (see ustctl list-contexts)");
		return -EINVAL;
	}
	copy = strdup(list);
	if (!copy) {
		ustcomm_err("out of memory");
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		ret = usttrace_check_context("--context", tok);
		if (ret)
			break;
		bit = 1u << ustcomm_ctx_parse(tok);
		if (ut->contexts_seen & bit) {
			ustcomm_err("--context %s: given twice", tok);
			ret = -EINVAL;
			break;
		}
		ut->contexts_seen |= bit;
		ustcomm_strbuf_printf(&ut->contexts, "%s%s", ut->contexts.len ? "+" : "", tok);
	}
	free(copy);
	return ret;
}

/*
 * usttrace's own failures exit with a status no traced program is likely to
 * return, as env(1) and timeout(1) do: 1 or 2 would read as the program's.
 */
#define USTTRACE_EXIT_FAILURE	125
#define USTTRACE_EXIT_CANNOT_RUN	126
#define USTTRACE_EXIT_NOT_FOUND	127

enum { USTTRACE_OPT_HELP = 1000, USTTRACE_OPT_VERSION, USTTRACE_OPT_FUNC_FILTER,
       USTTRACE_OPT_FUNC_EXCLUDE, USTTRACE_OPT_PLT_ARGS, USTTRACE_OPT_PLT_RET };

/* usttrace_parse() after --help or --version: nothing more to do. */
#define USTTRACE_DONE	1

static void usttrace_print_help(poptContext pc)
{
	poptPrintHelp(pc, stdout, 0);
	printf("\nExit status: the program's, or 128 plus the signal that killed it;\n"
	       "%d when usttrace itself failed (options, memory, ustd), %d when the\n"
	       "program cannot be executed, %d when it is not found. See usttrace(1).\n",
	       USTTRACE_EXIT_FAILURE, USTTRACE_EXIT_CANNOT_RUN, USTTRACE_EXIT_NOT_FOUND);
}

/* -p PID: a pid, no program, and only the options that apply to a
 * program already running (its buffers and settings are its own). */
static int usttrace_check_attach(struct usttrace *ut, int follow, int overwrite)
{
	const char *refused = follow ? "-f" : overwrite ? "--overwrite" :
		ut->session_file ? "--session" : ut->subbuf_size ? "--subbuf-size" :
		ut->subbuf_num ? "--subbuf-num" : ut->blocking ? "--blocking-timeout" :
		ut->tracefile_size ? "--tracefile-size" :
		ut->tracefile_count ? "--tracefile-count" : NULL;
	char *end;
	long pid;

	errno = 0;
	pid = strtol(ut->attach_arg, &end, 10);
	if (!ut->attach_arg[0] || *end || errno || pid <= 0 || pid > INT_MAX) {
		ustcomm_err("-p %s: expected the pid of a running program", ut->attach_arg);
		return -EINVAL;
	}
	if (ut->argv && ut->argv[0]) {
		ustcomm_err("-p %s and a program to run (%s): give one or the other",
			    ut->attach_arg, ut->argv[0]);
		return -EINVAL;
	}
	if (refused) {
		ustcomm_err("-p cannot be used with %s: the running program's settings are its own (see ustctl(1) to change them)",
			    refused);
		return -EINVAL;
	}
	ut->attach_pid = (pid_t)pid;
	return 0;
}

/*
 * --plt: for a program started here (the dynamic linker loads the audit
 * library at exec), its libraries found, and the events it writes
 * enabled: the library calls as function events (with the statedump that
 * names their objects) and their names, arguments and return values;
 * without -m, every event as before, these included.
 */
static int usttrace_check_plt(struct usttrace *ut)
{
	int ret;

	if (!ut->plt.on)
		return 0;
	if (ut->attach_arg) {
		ustcomm_err("--plt, -A and -R apply to a program usttrace starts, not with -p: the dynamic linker loads the audit library when the program starts");
		return -EINVAL;
	}
	ret = usttrace_plt_find(&ut->plt);
	if (ret < 0)
		return ret;
	if (!ut->patterns.len)
		ustcomm_strbuf_printf(&ut->patterns, "*");
	if (!usttrace_traces_functions(ut))
		ustcomm_strbuf_printf(&ut->patterns, ",%s*", USTCOMM_FUNC_PROVIDER);
	ustcomm_strbuf_printf(&ut->patterns, ",ust_plt:*");
	return ut->patterns.err;
}

/*
 * Returns 0 with the options in ut, USTTRACE_DONE after --help or --version,
 * or -EINVAL after saying what is wrong.
 */
/* --func-filter and --func-exclude: a line of UST_FUNC_RECORD. */
static int usttrace_add_func_name(struct usttrace *ut, char kind, const char *name)
{
	if (!*name || strchr(name, '\n')) {
		ustcomm_err("--func-%s needs the name of a function, as its symbol table has it",
			    kind == 'F' ? "filter" : "exclude");
		return -EINVAL;
	}
	ustcomm_strbuf_printf(&ut->func_record, "%c %s\n", kind, name);
	return ut->func_record.err;
}

/* --func-depth and --func-time, and the filters of function tracing only
 * for a program started here: libust-func reads them once, at start. */
static int usttrace_check_func_record(struct usttrace *ut)
{
	char *end;
	unsigned long depth;

	if (ut->func_depth) {
		errno = 0;
		depth = strtoul(ut->func_depth, &end, 10);
		if (errno || *end || !*ut->func_depth || depth == 0 || depth > UINT32_MAX ||
		    ut->func_depth[0] == '-') {
			ustcomm_err("--func-depth %s: expected a depth from 1", ut->func_depth);
			return -EINVAL;
		}
		ustcomm_strbuf_printf(&ut->func_record, "D %lu\n", depth);
	}
	if (ut->func_time) {
		static const struct {
			const char *suffix;
			unsigned long long ns;
		} units[] = { { "", 1000 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
			      { "s", 1000000000 } };
		unsigned long long n;
		size_t i;

		errno = 0;
		n = strtoull(ut->func_time, &end, 10);
		for (i = 0; i < UST_ARRAY_SIZE(units) && strcmp(end, units[i].suffix); i++)
			;
		if (errno || end == ut->func_time || ut->func_time[0] == '-' ||
		    i == UST_ARRAY_SIZE(units) || n > UINT64_MAX / units[i].ns) {
			ustcomm_err("--func-time %s: expected a time in microseconds, or with a suffix ns, us, ms or s",
				    ut->func_time);
			return -EINVAL;
		}
		ustcomm_strbuf_printf(&ut->func_record, "T %llu\n", n * units[i].ns);
	}
	if (ut->func_record.len && ut->attach_arg) {
		ustcomm_err("--func-filter, --func-exclude, --func-depth and --func-time apply to a program usttrace starts, not with -p: libust-func reads them when the program starts");
		return -EINVAL;
	}
	return ut->func_record.err;
}

static int usttrace_parse(struct usttrace *ut, poptContext *pcp, int argc, const char **argv)
{
	const char *output;
	char *pattern, **target;
	int shared = 0, verbose = 0, follow = 0, overwrite = 0, summary = 0, rc, ret = 0;
	uint32_t blocking_us;
	struct poptOption options[] = {
		{ "output", 'o', POPT_ARG_STRING, NULL, 'o',
		  "write the trace under DIR (default: $HOME/ust-traces)", "DIR" },
		{ "marker", 'm', POPT_ARG_STRING, NULL, 'm',
		  "enable the markers and events matching PATTERN (repeatable; default: all)",
		  "PATTERN" },
		{ "filter", '\0', POPT_ARG_STRING, &ut->filter, 0,
		  "record the events of the -m patterns (default: all) only when EXPR holds for their fields",
		  "EXPR" },
		{ "loglevel", '\0', POPT_ARG_STRING, &ut->loglevel, 0,
		  "only the events of the -m patterns of LEVEL or more severe", "LEVEL" },
		{ "loglevel-only", '\0', POPT_ARG_STRING, &ut->loglevel_only, 0,
		  "only the events of the -m patterns of exactly LEVEL", "LEVEL" },
		{ "context", 'c', POPT_ARG_STRING, NULL, 'c',
		  "record CTX with every event: vpid, vtid, procname, pthread_id, ip, perf:thread:cycles, perf:thread:instructions, perf:thread:cache-misses, perf:thread:page-faults (repeatable; a list separated by ',' too)",
		  "CTX" },
		{ "relay", 'r', POPT_ARG_STRING, &ut->relay, 0,
		  "stream the trace to the lttng-relayd at URL, net://HOST[:CONTROL_PORT[:DATA_PORT]], instead of writing it under DIR (DIR keeps what relayd could not take if it goes away)",
		  "URL" },
		{ "live-timer", '\0', POPT_ARG_STRING, &ut->live_timer, 0,
		  "with --relay: send what was recorded every USEC microseconds, for live viewers (default 1000000; 0: not live)",
		  "USEC" },
		{ "relay-backlog", '\0', POPT_ARG_STRING, &ut->relay_backlog, 0,
		  "with --relay: how much of the trace ustd keeps in memory for a relayd that is behind before writing it under DIR too (default 64M; ustd(1))",
		  "SIZE" },
		{ "shared", 's', POPT_ARG_NONE, &shared, 0,
		  "use the ustd already running for this user instead of a private one", NULL },
		{ "subbuf-size", '\0', POPT_ARG_STRING, &ut->subbuf_size, 0,
		  "sub-buffer size in bytes, a power of two (k and M suffixes allowed)", "BYTES" },
		{ "subbuf-num", '\0', POPT_ARG_STRING, &ut->subbuf_num, 0,
		  "sub-buffers per buffer, a power of two", "N" },
		{ "blocking-timeout", '\0', POPT_ARG_STRING, &ut->blocking, 0,
		  "when a buffer is full, wait up to TIMEOUT for ustd instead of discarding: 0 (never; the default, but with -m patterns of ust_func: events, whose default is inf), inf (as long as ustd lives) or microseconds (us, ms, s suffixes allowed); never in signal handlers",
		  "TIMEOUT" },
		{ "tracefile-size", '\0', POPT_ARG_STRING, &ut->tracefile_size, 0,
		  "cut each stream into files of at most BYTES of whole packets (k, M, G suffixes allowed; at least 4096)",
		  "BYTES" },
		{ "tracefile-count", '\0', POPT_ARG_STRING, &ut->tracefile_count, 0,
		  "with --tracefile-size: keep only the newest N files of each stream", "N" },
		{ "session", '\0', POPT_ARG_STRING, &ut->session_file, 0,
		  "start with the output, rules and channel settings of a session file (ustctl save-session); -m adds rules after them, -o and --relay override its output",
		  "FILE.xml" },
		{ "follow", 'f', POPT_ARG_NONE, &follow, 0,
		  "trace every descendant, executed programs too, and wait until all have exited",
		  NULL },
		{ "overwrite", '\0', POPT_ARG_NONE, &overwrite, 0,
		  "flight recorder: keep the buffers' last contents, written at exit", NULL },
		{ "summary", '\0', POPT_ARG_NONE, &summary, 0,
		  "when the program has exited, print a summary of each trace on stderr", NULL },
		{ "perfetto", '\0', POPT_ARG_STRING, &ut->perfetto, 0,
		  "when the program has exited, write the timeline for Perfetto UI to FILE: Trace Event JSON, or Perfetto's protobuf format when FILE ends in .pftrace",
		  "FILE" },
		{ "pid", 'p', POPT_ARG_STRING, &ut->attach_arg, 0,
		  "attach to the running program PID (linked with libust) instead of starting one: trace it until Ctrl-C or until it exits",
		  "PID" },
		{ "func-filter", 'F', POPT_ARG_STRING, NULL, USTTRACE_OPT_FUNC_FILTER,
		  "function tracing: record only the calls of FUNC and of what it calls (repeatable)",
		  "FUNC" },
		{ "func-exclude", 'N', POPT_ARG_STRING, NULL, USTTRACE_OPT_FUNC_EXCLUDE,
		  "function tracing: record neither the calls of FUNC nor what it calls (repeatable)",
		  "FUNC" },
		{ "func-depth", 'D', POPT_ARG_STRING, &ut->func_depth, 0,
		  "function tracing: record calls at most DEPTH deep (from --func-filter's function, else from the top)",
		  "DEPTH" },
		{ "func-time", 't', POPT_ARG_STRING, &ut->func_time, 0,
		  "function tracing: record only the calls lasting TIME or more (microseconds, or with a suffix ns, us, ms or s)",
		  "TIME" },
		{ "plt", '\0', POPT_ARG_NONE, &ut->plt.on, 0,
		  "function tracing: trace the program's library calls through the PLT (x86-64, glibc's LD_AUDIT; not with LD_BIND_NOW set, nor calls compiled with -fno-plt), with the events ust_func: and ust_plt:",
		  NULL },
		{ "argument", 'A', POPT_ARG_STRING, NULL, USTTRACE_OPT_PLT_ARGS,
		  "with --plt (implied): record the integer and pointer arguments of the library function FUNC, the first N (1 to 6; all 6 without @N) (repeatable)",
		  "FUNC[@N]" },
		{ "retval", 'R', POPT_ARG_STRING, NULL, USTTRACE_OPT_PLT_RET,
		  "with --plt (implied): record the integer or pointer return value of the library function FUNC (repeatable)",
		  "FUNC" },
		{ "verbose", 'v', POPT_ARG_NONE, &verbose, 0, "say what happens", NULL },
		{ "help", 'h', POPT_ARG_NONE, NULL, USTTRACE_OPT_HELP, "show this help", NULL },
		/* -? as popt's autohelp had it, for whoever learned it there. */
		{ NULL, '?', POPT_ARG_NONE | POPT_ARGFLAG_DOC_HIDDEN, NULL, USTTRACE_OPT_HELP,
		  NULL, NULL },
		{ "version", 'V', POPT_ARG_NONE, NULL, USTTRACE_OPT_VERSION, "print the version",
		  NULL },
		POPT_TABLEEND
	};
	poptContext pc;

	/* Options end at PROGRAM: its own options are not ours. */
	pc = poptGetContext("usttrace", argc, argv, options, POPT_CONTEXT_POSIXMEHARDER);
	*pcp = pc;
	poptSetOtherOptionHelp(pc, "[OPTION...] [--] PROGRAM [ARG...]\n   or: usttrace [OPTION...] -p PID");
	while ((rc = poptGetNextOpt(pc)) == 'm' || rc == 'c' || rc == 'o' ||
	       rc == USTTRACE_OPT_HELP || rc == USTTRACE_OPT_VERSION || rc == USTTRACE_OPT_FUNC_FILTER ||
	       rc == USTTRACE_OPT_FUNC_EXCLUDE || rc == USTTRACE_OPT_PLT_ARGS ||
	       rc == USTTRACE_OPT_PLT_RET) {
		/* At once, whatever else is given: the answer is all that is asked. */
		if (rc == USTTRACE_OPT_HELP || rc == USTTRACE_OPT_VERSION) {
			if (rc == USTTRACE_OPT_HELP)
				usttrace_print_help(pc);
			else
				printf("usttrace (ust) %s\n", UST_VERSION);
			ret = USTTRACE_DONE;
			goto end;
		}
		pattern = poptGetOptArg(pc);
		if (rc == 'o') {
			/* The last -o wins; the ones before are freed. */
			free(ut->output_arg);
			ut->output_arg = pattern;
			continue;
		}
		if (rc == USTTRACE_OPT_PLT_ARGS || rc == USTTRACE_OPT_PLT_RET) {
			ret = usttrace_plt_add(&ut->plt, rc == USTTRACE_OPT_PLT_ARGS ? 'A' : 'R',
					       pattern);
		} else if (rc == USTTRACE_OPT_FUNC_FILTER || rc == USTTRACE_OPT_FUNC_EXCLUDE) {
			ret = usttrace_add_func_name(ut, rc == USTTRACE_OPT_FUNC_FILTER ? 'F' : 'N',
						     pattern);
		} else if (rc == 'c') {
			ret = usttrace_add_contexts(ut, pattern);
		} else if (!*pattern) {
			ustcomm_err("-m needs a pattern such as 'ust:*' or 'provider:event'");
			ret = -EINVAL;
		} else if (strchr(pattern, ',')) {
			ustcomm_err("-m %s: a pattern cannot contain ','; give one -m per pattern",
				    pattern);
			ret = -EINVAL;
		} else {
			ustcomm_strbuf_printf(&ut->patterns, "%s%s", ut->patterns.len ? "," : "",
					      pattern);
		}
		free(pattern);
		if (ret < 0)
			goto end;
	}
	if (rc < -1) {
		ustcomm_err("%s: %s (see usttrace --help)",
			    poptBadOption(pc, POPT_BADOPTION_NOALIAS), poptStrerror(rc));
		ret = -EINVAL;
		goto end;
	}
	if (ut->patterns.err) {
		ret = ut->patterns.err;
		ustcomm_err("%s", strerror(-ret));
		goto end;
	}
	ret = usttrace_check_func_record(ut);
	if (ret < 0)
		goto end;
	ret = usttrace_check_plt(ut);
	if (ret < 0)
		goto end;
	ut->argv = (char **)poptGetArgs(pc);
	if (ut->attach_arg) {
		ret = usttrace_check_attach(ut, follow, overwrite);
		if (ret < 0)
			goto end;
	} else if (!ut->argv || !ut->argv[0]) {
		ustcomm_err("no program to trace: usttrace [OPTION...] [--] PROGRAM [ARG...]");
		ret = -EINVAL;
		goto end;
	}
	/* Before the checks below: the session's output counts as --relay
	 * (then -o keeps its meaning, the fallback) or as -o, unless the
	 * command line gives that option itself. */
	if (ut->session_file &&
	    ustctl_session_file_read(ut->session_file, &ut->session, &ut->session_extra) < 0) {
		ustcomm_err("--session: %s", ustctl_last_error());
		ret = -EINVAL;
		goto end;
	}
	output = ut->session ? ut->session->output : NULL;
	target = !output ? NULL : output[0] == '/' ? &ut->output_arg : &ut->relay;
	if (target && !*target) {
		*target = strdup(output);
		if (!*target) {
			ustcomm_err("out of memory");
			ret = -ENOMEM;
			goto end;
		}
	}
	if (shared && ut->output_arg) {
		ustcomm_err("-o cannot be used with -s: the running ustd decides where traces go (its own -o)");
		ret = -EINVAL;
		goto end;
	}
	if (ut->relay) {
		struct ustcomm_relay_url url;
		const char *why;

		if (shared || summary || ut->perfetto) {
			ustcomm_err("--relay cannot be used with %s: %s", shared ? "-s" : summary ? "--summary" : "--perfetto",
				    shared ? "the running ustd decides where traces go (its own --relay)" :
				    "the trace is read where it was written, and relayd writes it on its own machine");
			ret = -EINVAL;
			goto end;
		}
		if (ustcomm_relay_url_parse(ut->relay, &url, &why) < 0) {
			ustcomm_err("--relay %s: %s (expected net://HOST[:CONTROL_PORT[:DATA_PORT]])",
				    ut->relay, why);
			ret = -EINVAL;
			goto end;
		}
	}
	if (ut->relay_backlog && !ut->relay) {
		ustcomm_err("--relay-backlog %s: only with --relay", ut->relay_backlog);
		ret = -EINVAL;
		goto end;
	}
	if (ut->live_timer && (!ut->relay || !ut->live_timer[0] ||
			       strspn(ut->live_timer, "0123456789") != strlen(ut->live_timer))) {
		ustcomm_err(ut->relay ? "--live-timer %s: expected microseconds (0: not live)" :
			    "--live-timer %s: only with --relay", ut->live_timer);
		ret = -EINVAL;
		goto end;
	}
	if (shared && (summary || ut->perfetto)) {
		ustcomm_err("--summary and --perfetto read the trace where it was written: they cannot be used with -s");
		ret = -EINVAL;
		goto end;
	}
	if (ut->loglevel && ut->loglevel_only) {
		ustcomm_err("give --loglevel or --loglevel-only, not both");
		ret = -EINVAL;
		goto end;
	}
	if ((ut->loglevel && ustctl_loglevel_parse(ut->loglevel) < 0) ||
	    (ut->loglevel_only && ustctl_loglevel_parse(ut->loglevel_only) < 0)) {
		ustcomm_err("unknown log level '%s': give " USTCOMM_LOGLEVEL_CHOICES,
			    ut->loglevel ? ut->loglevel : ut->loglevel_only);
		ret = -EINVAL;
		goto end;
	}
	if (ut->filter && ustctl_filter_check(ut->filter) < 0) {
		ustcomm_err("--filter: %s", ustctl_last_error());
		ret = -EINVAL;
		goto end;
	}
	if (ut->perfetto && !*ut->perfetto) {
		ustcomm_err("--perfetto needs the name of the file to write (.json, or .pftrace for Perfetto's protobuf format)");
		ret = -EINVAL;
		goto end;
	}
	if (ut->subbuf_size &&
	    usttrace_check_pow2("--subbuf-size", ut->subbuf_size, UST_SUBBUF_SIZE_MIN,
				UST_SUBBUF_SIZE_MAX, "the sub-buffer size in bytes") < 0) {
		ret = -EINVAL;
		goto end;
	}
	if (ut->subbuf_num &&
	    usttrace_check_pow2("--subbuf-num", ut->subbuf_num, UST_SUBBUF_NUM_MIN,
				UST_SUBBUF_NUM_MAX, "the number of sub-buffers") < 0) {
		ret = -EINVAL;
		goto end;
	}
	if (ut->blocking && ustctl_blocking_timeout_parse(ut->blocking, &blocking_us) < 0) {
		ustcomm_err("--blocking-timeout: %s", ustctl_last_error());
		ret = -EINVAL;
		goto end;
	}
	if (ut->blocking && blocking_us && overwrite) {
		ustcomm_err("--blocking-timeout and --overwrite exclude each other: a flight recorder never waits for ustd");
		ret = -EINVAL;
		goto end;
	}
	if (!ut->blocking && !overwrite && !ut->session_file && usttrace_traces_functions(ut)) {
		ut->blocking = strdup("inf");
		if (!ut->blocking) {
			ret = -ENOMEM;
			ustcomm_err("out of memory");
			goto end;
		}
		ustcomm_note("function tracing is lossless: the program waits for ustd when a buffer is full (--blocking-timeout 0 discards instead)");
	}
	ret = usttrace_check_tracefile(ut);
	if (ret < 0)
		goto end;
	ut->shared = shared;
	ut->follow = follow;
	ut->overwrite = overwrite;
	ut->verbose = verbose;
	ut->summary = summary;
end:
	return ret;
}

/*
 * The rule every -m pattern gets (enable, --filter, the log level) in
 * rule, and a copy of the patterns, ","-separated ("*" without -m), for
 * strtok_r(); NULL when out of memory, said.
 */
static char *usttrace_rule_patterns(const struct usttrace *ut, struct ustctl_rule *rule)
{
	const char *level = ut->loglevel ? ut->loglevel : ut->loglevel_only;
	char *copy;

	*rule = (struct ustctl_rule){ .enable = 1, .filter = ut->filter };
	if (level) {
		rule->loglevel = ustctl_loglevel_parse(level);
		rule->loglevel_match = ut->loglevel ? USTCTL_LOGLEVEL_RANGE : USTCTL_LOGLEVEL_ONLY;
	}
	copy = strdup(ut->patterns.len ? ut->patterns.buf : "*");
	if (!copy)
		ustcomm_err("out of memory");
	return copy;
}

/* The -m patterns (all events without), each with the level and filter options. */
static int usttrace_pattern_rules(struct usttrace *ut)
{
	const char *level = ut->loglevel ? ut->loglevel : ut->loglevel_only;
	struct ustctl_rule rule;
	char *copy, *tok, *save = NULL;
	int ret = 0;

	if (!ut->patterns.len && !ut->filter && !level)
		return 0;
	copy = usttrace_rule_patterns(ut, &rule);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && ret >= 0; tok = strtok_r(NULL, ",", &save)) {
		rule.pattern = tok;
		ret = usttrace_rule_append(&ut->autoprobe, &rule, "-m");
	}
	free(copy);
	return ret;
}

/*
 * What the program's environment says about events and channels: the
 * session's rules in order, then the -m patterns, for UST_AUTOPROBE (a
 * disable rule with a leading '-'); the session's channels, then the
 * --context, --blocking-timeout and --tracefile-size ones for every
 * channel ("*"), for UST_CHANNELS, as
 * name:SIZE:NUM[:CTX+CTX...][@TIMEOUT][%FILESIZE/COUNT] (an empty SIZE
 * or NUM keeps the default).
 * Returns 0, or -EINVAL after saying what is wrong with the session's
 * contents.
 */
static int usttrace_settings(struct usttrace *ut)
{
	const struct ustctl_session *session = ut->session;
	const struct ustctl_channel_conf *c;
	char blocking[UST_BLOCKING_TEXT_MAX];
	size_t i, j;
	int ret = 0;

	for (i = 0; session && i < session->nr_rules; i++) {
		ret = usttrace_rule_append(&ut->autoprobe, &session->rules[i], ut->session_file);
		if (ret < 0)
			goto end;
	}
	ret = usttrace_pattern_rules(ut);
	if (ret < 0)
		goto end;
	for (i = 0; session && i < session->nr_channels; i++) {
		c = &session->channels[i];
		ustcomm_strbuf_printf(&ut->channels, "%s%s:", i ? "," : "", c->name);
		if (c->subbuf_size)
			ustcomm_strbuf_printf(&ut->channels, "%" PRIu32, c->subbuf_size);
		ustcomm_strbuf_printf(&ut->channels, ":");
		if (c->subbuf_num)
			ustcomm_strbuf_printf(&ut->channels, "%" PRIu32, c->subbuf_num);
		for (j = 0; j < c->nr_contexts; j++) {
			ret = usttrace_check_context(ut->session_file, c->contexts[j]);
			if (ret < 0)
				goto end;
			ustcomm_strbuf_printf(&ut->channels, "%s%s", j ? "+" : ":", c->contexts[j]);
		}
		if (c->has_blocking_timeout) {
			ustcomm_blocking_format(blocking, sizeof(blocking), c->blocking_timeout);
			ustcomm_strbuf_printf(&ut->channels, "@%s", blocking);
		}
	}
	for (i = 0; ut->session_extra && i < ut->session_extra->nr_tracefiles; i++) {
		const struct ustctl_tracefile_conf *tf = &ut->session_extra->tracefiles[i];

		ustcomm_strbuf_printf(&ut->channels, "%s%s::%%%" PRIu64 "/%" PRIu32,
				      ut->channels.len ? "," : "", tf->channel, tf->size, tf->count);
	}
	if (ut->contexts.len)
		ustcomm_strbuf_printf(&ut->channels, "%s*:::%s", ut->channels.len ? "," : "",
				      ut->contexts.buf);
	if (ut->blocking)
		ustcomm_strbuf_printf(&ut->channels, "%s*::@%s", ut->channels.len ? "," : "",
				      ut->blocking);
	if (ut->tracefile_size)
		ustcomm_strbuf_printf(&ut->channels, "%s*::%%%s/%s", ut->channels.len ? "," : "",
				      ut->tracefile_size,
				      ut->tracefile_count ? ut->tracefile_count : "0");
	ret = ut->autoprobe.err ? ut->autoprobe.err : ut->channels.err;
	if (ret < 0)
		ustcomm_err("%s", strerror(-ret));
end:
	return ret;
}

/* Is anything listening on path? */
static bool usttrace_ustd_listening(const char *path)
{
	int fd = ustcomm_connect(path);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* A private run directory, inside the user's when its path leaves room for
 * the socket name, else in /tmp. */
static int usttrace_make_rundir(struct usttrace *ut)
{
	struct sockaddr_un addr;
	char base[PATH_MAX];
	int n;

	if (ustcomm_rundir(base, sizeof(base)) < 0 ||
	    strlen(base) + sizeof("/usttrace-XXXXXX/ustd") > sizeof(addr.sun_path))
		snprintf(base, sizeof(base), "/tmp");
	n = snprintf(ut->rundir, sizeof(ut->rundir), "%s/usttrace-XXXXXX", base);
	if (n < 0 || (size_t)n >= sizeof(ut->rundir))
		return -ENAMETOOLONG;
	if (!mkdtemp(ut->rundir)) {
		n = -errno;
		ustcomm_err("cannot create a private run directory in %s: %s", base,
			    strerror(-n));
		ut->rundir[0] = '\0';
		return n;
	}
	snprintf(ut->sock_path, sizeof(ut->sock_path), "%s/ustd", ut->rundir);
	return 0;
}

/*
 * $UST_USTD, else the ustd installed next to usttrace, else the ustd of the
 * build tree usttrace runs from (usttrace/usttrace beside ustd/ustd, or
 * usttrace/.libs/usttrace under libtool), else ustd in PATH: so that the
 * tools of a build tree work together without any setting.
 */
static void usttrace_find_ustd(char *buf, size_t len)
{
	static const char *const beside[] = { "ustd", "../ustd/ustd", "../../ustd/ustd" };
	const char *env = getenv("UST_USTD");
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;
	size_t i;

	if (env && env[0]) {
		snprintf(buf, len, "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			slash[1] = '\0';
			for (i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
				if ((size_t)snprintf(buf, len, "%s%s", exe, beside[i]) < len &&
				    access(buf, X_OK) == 0)
					return;
			}
		}
	}
	snprintf(buf, len, "ustd");
}

static void usttrace_exec_ustd(struct usttrace *ut, const char *ustd, int ready_fd,
			       pid_t parent)
{
	char fd_arg[16];
	const char *argv[14] = { ustd, "-o", ut->output, "-s", ut->sock_path,
				 "--ready-fd", fd_arg };
	int argc = 7;

	if (ut->relay) {
		argv[argc++] = "--relay";
		argv[argc++] = ut->relay;
	}
	if (ut->live_timer) {
		argv[argc++] = "--live-timer";
		argv[argc++] = ut->live_timer;
	}
	if (ut->relay_backlog) {
		argv[argc++] = "--relay-backlog";
		argv[argc++] = ut->relay_backlog;
	}
	if (ut->verbose)
		argv[argc++] = "-v";

	/* ustd must finish when usttrace says so, not when the terminal's ^C
	 * reaches the foreground group, and must not outlive usttrace. */
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(1);
	usttrace_restore_signals();
	snprintf(fd_arg, sizeof(fd_arg), "%d", ready_fd);
	if (strchr(ustd, '/'))
		execv(ustd, (char **)argv);
	else
		execvp(ustd, (char **)argv);
	ustcomm_err("cannot run %s: %s; set UST_USTD to the path of ustd", ustd, strerror(errno));
	_exit(127);
}

/* Waits, boundedly, for the ready byte of ustd. */
static int usttrace_wait_ready(struct usttrace *ut, int fd)
{
	struct timespec start, now;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char status_text[128], byte;
	long elapsed = 0;
	int status, n, ret = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		n = poll(&pfd, 1, (int)(USTTRACE_READY_TIMEOUT_MS - elapsed));
		if (n > 0)
			break;
		if (n < 0 && errno != EINTR) {
			ret = -errno;
			ustcomm_err("waiting for ustd: %s", strerror(errno));
			goto end;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
		if (elapsed >= USTTRACE_READY_TIMEOUT_MS) {
			ustcomm_err("ustd (pid %d) was not ready within %d s; giving up",
				    (int)ut->ustd_pid, USTTRACE_READY_TIMEOUT_MS / 1000);
			kill(ut->ustd_pid, SIGKILL);
			usttrace_wait(ut->ustd_pid, &status);
			ut->ustd_pid = 0;
			ret = -ETIMEDOUT;
			goto end;
		}
	}
	do
		n = read(fd, &byte, 1);
	while (n < 0 && errno == EINTR);
	if (n == 1)
		goto end;
	/* End of file: ustd exited (or closed the pipe) without being ready. */
	usttrace_wait(ut->ustd_pid, &status);
	ut->ustd_pid = 0;
	usttrace_describe_status(status_text, sizeof(status_text), status);
	ustcomm_err("ustd %s before it was ready", status_text);
	ret = -ECHILD;
end:
	return ret;
}

static int usttrace_start_ustd(struct usttrace *ut)
{
	char ustd[PATH_MAX];
	pid_t parent = getpid();
	int pipefd[2], ready_fd, ret;

	usttrace_find_ustd(ustd, sizeof(ustd));
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		ret = -errno;
		ustcomm_err("pipe: %s", strerror(errno));
		return ret;
	}
	ut->ustd_pid = fork();
	if (ut->ustd_pid < 0) {
		ret = -errno;
		ustcomm_err("fork: %s", strerror(errno));
		ut->ustd_pid = 0;
		close(pipefd[0]);
		close(pipefd[1]);
		return ret;
	}
	if (ut->ustd_pid == 0) {
		/* dup() drops close-on-exec: only ustd gets this end. */
		ready_fd = dup(pipefd[1]);
		if (ready_fd < 0)
			_exit(127);
		usttrace_exec_ustd(ut, ustd, ready_fd, parent);
	}
	close(pipefd[1]);
	ret = usttrace_wait_ready(ut, pipefd[0]);
	close(pipefd[0]);
	if (ret == 0 && ut->verbose)
		fprintf(stderr, "usttrace: private ustd (pid %d, %s) listening on %s\n",
			(int)ut->ustd_pid, ustd, ut->sock_path);
	return ret;
}

/* In the program's process, before exec. */
static void usttrace_setenv_program(const struct usttrace *ut)
{
	char pid[16];

	setenv("UST_TRACE", "1", 1);
	if (ut->follow) {
		unsetenv("UST_TRACE_PID");
	} else {
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		setenv("UST_TRACE_PID", pid, 1);
	}
	if (ut->overwrite)
		setenv("UST_OVERWRITE", "1", 1);
	setenv("UST_AUTOPROBE", ut->autoprobe.len ? ut->autoprobe.buf : "1", 1);
	if (ut->channels.len)
		setenv("UST_CHANNELS", ut->channels.buf, 1);
	setenv("UST_DAEMON_SOCKET", ut->sock_path, 1);
	if (ut->subbuf_size)
		setenv("UST_SUBBUF_SIZE", ut->subbuf_size, 1);
	if (ut->subbuf_num)
		setenv("UST_SUBBUF_NUM", ut->subbuf_num, 1);
	if (ut->func_record.len)
		setenv("UST_FUNC_RECORD", ut->func_record.buf, 1);
	if (ut->plt.on)
		usttrace_plt_setenv(&ut->plt);
}

/* Are our children only ustd (or nobody)? Orphaned descendants are
 * reparented to us before their parent can be reaped, so then every
 * descendant has exited. */
static int usttrace_only_ustd_left(const struct usttrace *ut)
{
	char path[64], buf[4096];
	ssize_t n;
	char *p, *end;
	long pid;
	int fd, only = 1;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)getpid(), (int)getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	for (p = buf; *p; p = end) {
		pid = strtol(p, &end, 10);
		if (end == p)
			break;
		if (pid != ut->ustd_pid)
			only = 0;
	}
	return only;
}

/* -f: reaps every descendant until none is left; the program's status in *status. */
static void usttrace_wait_all(struct usttrace *ut, pid_t program, int *status)
{
	char text[128];
	pid_t pid;
	int st;

	for (;;) {
		if (usttrace_only_ustd_left(ut) == 1)
			break;
		pid = waitpid(-1, &st, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;		/* ECHILD: nobody left, not even ustd (-s) */
		}
		if (pid == program) {
			*status = st;
			usttrace_program_pid = 0;
		} else if (pid == ut->ustd_pid) {
			usttrace_describe_status(text, sizeof(text), st);
			ustcomm_err("ustd %s while the programs ran; their traces may be incomplete",
				    text);
			ut->ustd_pid = 0;
		}
	}
}

/*
 * Runs the program and waits for it. Returns 0 with its wait status in
 * *status, -EINTR when a signal came before it was started, or the negative
 * errno its exec failed with (said on stderr).
 */
static int usttrace_run_program(struct usttrace *ut, pid_t *pid, int *status)
{
	int pipefd[2], err, n, ret = 0;
	sigset_t old;

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		ret = -errno;
		ustcomm_err("pipe: %s", strerror(errno));
		return ret;
	}
	/* Until its pid is known, a signal for the program waits. */
	usttrace_block_signals(&old);
	if (usttrace_got_signal) {
		ret = -EINTR;
		goto unblock;
	}
	*pid = fork();
	if (*pid < 0) {
		ret = -errno;
		ustcomm_err("fork: %s", strerror(errno));
		goto unblock;
	}
	if (*pid == 0) {
		close(pipefd[0]);
		usttrace_restore_signals();
		sigprocmask(SIG_SETMASK, &old, NULL);
		usttrace_setenv_program(ut);
		execvp(ut->argv[0], ut->argv);
		err = errno;
		while (write(pipefd[1], &err, sizeof(err)) < 0 && errno == EINTR)
			;
		_exit(err == EACCES ? USTTRACE_EXIT_CANNOT_RUN : USTTRACE_EXIT_NOT_FOUND);
	}
	usttrace_program_pid = *pid;
unblock:
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(pipefd[1]);
	if (ret == 0) {
		/* Close-on-exec: end of file means the program is running. */
		do
			n = read(pipefd[0], &err, sizeof(err));
		while (n < 0 && errno == EINTR);
		if (ut->follow && n != (int)sizeof(err))
			usttrace_wait_all(ut, *pid, status);
		else
			usttrace_wait(*pid, status);
		usttrace_program_pid = 0;
		if (n == (int)sizeof(err)) {
			ustcomm_err("cannot run %s: %s", ut->argv[0], strerror(err));
			ret = -err;
		}
	}
	close(pipefd[0]);
	return ret;
}

/* Is name <procname>-<pid>-<YYYYMMDD-HHMMSS>[-N], stamped no earlier than
 * usttrace started? pid 0: any pid. */
static bool usttrace_is_trace_of(const char *name, pid_t pid, const char *start_stamp)
{
	char needle[32];
	const char *p, *stamp;
	size_t i;

	snprintf(needle, sizeof(needle), "-%d-", (int)pid);
	for (p = strchr(name, '-'); p; p = strchr(p + 1, '-')) {
		if (pid) {
			if (strncmp(p, needle, strlen(needle)))
				continue;
			stamp = p + strlen(needle);
		} else {
			for (stamp = p + 1; *stamp >= '0' && *stamp <= '9'; stamp++)
				;
			if (stamp == p + 1 || *stamp != '-')
				continue;
			stamp++;
		}
		for (i = 0; i < 15; i++)
			if (i == 8 ? stamp[i] != '-' : (stamp[i] < '0' || stamp[i] > '9'))
				break;
		if (i < 15 || (stamp[15] != '\0' && stamp[15] != '-'))
			continue;
		if (strncmp(stamp, start_stamp, 15) >= 0)
			return true;
	}
	return false;
}

/* A program killed by a signal did not end its trace: ustd rescued it
 * from the buffers. Says so before the directories are named, so that
 * "trace written" is never all that is said of a killed program. */
static void usttrace_say_killed(const struct usttrace *ut, pid_t pid, int status)
{
	int sig = WTERMSIG(status);

	fprintf(stderr, "usttrace: %s (pid %d) was killed by signal %d (%s)%s\n", ut->argv[0],
		(int)pid, sig, strsignal(sig),
		sig == SIGKILL ? ": the kernel's OOM killer sends this one too (see dmesg)" : "");
}

/* Names the trace directories the program (pid) got in the output;
 * with -f, those of every process traced since usttrace started. Returns
 * them (NULL-terminated, to free with usttrace_free_dirs()) in *dirs.
 * The program's own directory is "rescued" when it was killed. */
static size_t usttrace_report(const struct usttrace *ut, pid_t pid, int status, char ***dirs)
{
	bool killed = WIFSIGNALED(status);
	struct dirent *de;
	size_t found = 0;
	char **grown;
	DIR *dir;

	*dirs = NULL;
	if (killed)
		usttrace_say_killed(ut, pid, status);
	if (ut->shared) {
		fprintf(stderr, "usttrace: traced pid %d: the trace is in the output directory of the ustd serving %s, in a directory named *-%d-*%s\n",
			(int)pid, ut->sock_path, (int)pid,
			ut->follow ? " (its descendants: named after their pids)" : "");
		return 0;
	}
	if (ut->relay)
		fprintf(stderr, "usttrace: traced pid %d: the trace was streamed to lttng-relayd at %s, session *-%d-*%s\n",
			(int)pid, ut->relay, (int)pid,
			ut->follow ? " (its descendants: named after their pids)" : "");
	dir = opendir(ut->output);
	if (!dir) {
		if (!ut->relay || errno != ENOENT)
			ustcomm_err("cannot read %s: %s", ut->output, strerror(errno));
		return 0;
	}
	while ((de = readdir(dir))) {
		if (!usttrace_is_trace_of(de->d_name, ut->follow ? 0 : pid, ut->start_stamp))
			continue;
		if (ut->relay)
			fprintf(stderr, "usttrace: part of the trace that relayd could not take is in %s/%s\n",
				ut->output, de->d_name);
		else if (killed && usttrace_is_trace_of(de->d_name, pid, ut->start_stamp))
			fprintf(stderr, "usttrace: trace rescued to %s/%s: what the program recorded until it was killed\n",
				ut->output, de->d_name);
		else
			fprintf(stderr, "usttrace: trace written to %s/%s\n", ut->output, de->d_name);
		grown = realloc(*dirs, (found + 2) * sizeof(**dirs));
		if (!grown || asprintf(&grown[found], "%s/%s", ut->output, de->d_name) < 0) {
			ustcomm_err("%s", strerror(ENOMEM));
			*dirs = grown;
			break;
		}
		*dirs = grown;
		grown[++found] = NULL;
	}
	closedir(dir);
	if (!found && !ut->relay)
		fprintf(stderr, "usttrace: no trace was %s for pid %d in %s (is the program linked with libust?)\n",
			killed ? "rescued" : "written", (int)pid, ut->output);
	return found;
}

static void usttrace_free_dirs(char **dirs)
{
	char **d;

	for (d = dirs; d && *d; d++)
		free(*d);
	free(dirs);
}

/* --summary and --perfetto, once the traces are complete. A failure there
 * does not change usttrace's exit status, which is the program's; it is
 * said on stderr. */
static void usttrace_view(const struct usttrace *ut, char **dirs, size_t nr_dirs)
{
	size_t i;

	if (!nr_dirs)
		return;
	for (i = 0; ut->summary && i < nr_dirs; i++)
		usttrace_view_summary(dirs[i]);
	if (ut->perfetto)
		usttrace_view_perfetto(dirs, nr_dirs, ut->perfetto);
}

/* Events the buffers discarded, as the packet contexts written count
 * them: said on stderr whatever else usttrace says, since a trace that
 * misses most of its events looks complete to whoever did not ask
 * babeltrace2. The exit status stays the program's. */
static void usttrace_report_loss(char **dirs, size_t nr_dirs)
{
	struct ustcomm_loss loss = USTCOMM_LOSS_INIT;
	char what[PATH_MAX + 64];
	size_t i;
	int ret;

	for (i = 0; i < nr_dirs; i++) {
		ret = ustcomm_loss_scan(&loss, dirs[i], 0);
		if (ret < 0)
			ustcomm_err("cannot count the events discarded in %s: %s", dirs[i],
				    strerror(-ret));
	}
	if (nr_dirs == 1)
		snprintf(what, sizeof(what), "counted in the packets of %s", dirs[0]);
	else
		snprintf(what, sizeof(what), "counted in the packets of the %zu traces above",
			 nr_dirs);
	ustcomm_loss_warn(ustcomm_loss_total(&loss), what);
	ustcomm_loss_free(&loss);
}

/* Has the private ustd write out everything and waits for it. */
/*
 * ustd writes what its programs left in their buffers before it exits on
 * SIGTERM: milliseconds, seconds for a slow disk. The wait has a bound all
 * the same: past USTTRACE_USTD_SAY_MS the user is told what usttrace waits
 * for, past USTTRACE_USTD_KILL_MS ustd is killed and that is said.
 */
#define USTTRACE_USTD_SAY_MS	10000
#define USTTRACE_USTD_KILL_MS	60000

/* Whether pid exited within ms (pidfd; without one, a wait in 10 ms steps). */
static bool usttrace_exits_within(pid_t pid, int ms)
{
	struct pollfd pfd = { .fd = -1, .events = POLLIN };
	siginfo_t si;
	bool gone = false;

#ifdef SYS_pidfd_open
	pfd.fd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	if (pfd.fd >= 0) {
		/* A second Ctrl-C interrupts the poll: waited for anyway,
		 * in 100 ms steps, so that the bound stays. */
		for (; ms > 0 && !gone; ms -= 100) {
			int n = poll(&pfd, 1, ms < 100 ? ms : 100);

			gone = n > 0;
		}
		close(pfd.fd);
		return gone;
	}
	for (; ms > 0 && !gone; ms -= 10) {
		si.si_pid = 0;
		gone = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
			si.si_pid == pid;
		if (!gone)
			poll(NULL, 0, 10);
	}
	return gone;
}

static pid_t usttrace_wait_ustd(pid_t pid, int *status)
{
	if (!usttrace_exits_within(pid, USTTRACE_USTD_SAY_MS)) {
		ustcomm_err("still waiting for ustd (pid %d) to write the trace out", (int)pid);
		if (!usttrace_exits_within(pid, USTTRACE_USTD_KILL_MS - USTTRACE_USTD_SAY_MS)) {
			ustcomm_err("ustd (pid %d) did not finish within %d s of SIGTERM: killed; the trace may be incomplete",
				    (int)pid, USTTRACE_USTD_KILL_MS / 1000);
			kill(pid, SIGKILL);
		}
	}
	return usttrace_wait(pid, status);
}

static void usttrace_stop_ustd(struct usttrace *ut)
{
	char text[128];
	int status;

	if (ut->ustd_pid <= 0)
		return;
	kill(ut->ustd_pid, SIGTERM);
	if (usttrace_wait_ustd(ut->ustd_pid, &status) > 0 &&
	    !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		usttrace_describe_status(text, sizeof(text), status);
		ustcomm_err("ustd %s; the trace may be incomplete", text);
	}
	ut->ustd_pid = 0;
}

static void usttrace_remove_rundir(struct usttrace *ut)
{
	if (!ut->rundir[0])
		return;
	/* ustd removes its socket when it exits cleanly. */
	if (unlink(ut->sock_path) < 0 && errno != ENOENT)
		ustcomm_err("cannot remove %s: %s", ut->sock_path, strerror(errno));
	if (rmdir(ut->rundir) < 0)
		ustcomm_err("cannot remove %s: %s", ut->rundir, strerror(errno));
}

static int usttrace_prepare(struct usttrace *ut)
{
	struct tm tm;
	time_t now = time(NULL);
	int ret;

	strftime(ut->start_stamp, sizeof(ut->start_stamp), "%Y%m%d-%H%M%S",
		 localtime_r(&now, &tm));
	if (ut->shared) {
		ret = ustcomm_daemon_socket_path(ut->sock_path, sizeof(ut->sock_path));
		if (ret < 0)
			return ret;
		if (!usttrace_ustd_listening(ut->sock_path)) {
			ustcomm_err("no ustd is listening on %s: start `ustd` or drop -s",
				    ut->sock_path);
			return -ENOENT;
		}
		return 0;
	}
	if (ut->output_arg) {
		snprintf(ut->output, sizeof(ut->output), "%s", ut->output_arg);
	} else if (ustcomm_default_output_dir(ut->output, sizeof(ut->output)) < 0) {
		ustcomm_err("cannot tell the home directory: give the output directory with -o");
		return -ENOENT;
	}
	ret = usttrace_make_rundir(ut);
	if (ret < 0)
		return ret;
	return usttrace_start_ustd(ut);
}

/* -p: the name of the trace usttrace creates in the program, apart from
 * its own (auto) and those of ustctl users. */
static void usttrace_attach_trace_name(char *buf, size_t len)
{
	snprintf(buf, len, "usttrace-%d", (int)getpid());
}

/* Is the program gone (exited, a zombie included)? pidfd says so when
 * the kernel has it; else its state in /proc. */
static bool usttrace_attach_gone(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && (p[2] == 'Z' || p[2] == 'X');
}

/* Until a signal or until the program is gone: true when it is gone. */
static bool usttrace_attach_wait(pid_t pid)
{
	struct pollfd pfd = { .fd = -1, .events = POLLIN };
	int n;

#ifdef SYS_pidfd_open
	pfd.fd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	while (!usttrace_got_signal) {
		if (pfd.fd >= 0) {
			n = poll(&pfd, 1, 1000);
			if (n > 0)
				break;
		} else {
			poll(NULL, 0, 100);
		}
		if (usttrace_attach_gone(pid))
			break;
	}
	if (pfd.fd >= 0)
		close(pfd.fd);
	return !usttrace_got_signal || usttrace_attach_gone(pid);
}

/* -p: the rules of the -m patterns (all events without), with --filter
 * and the log level, in the program's trace. */
static int usttrace_attach_rules(struct usttrace *ut, const char *trace)
{
	const char *level = ut->loglevel ? ut->loglevel : ut->loglevel_only;
	struct ustctl_rule rule;
	char *copy, *tok, *save = NULL;
	pid_t pid = ut->attach_pid;
	int ret = 0, matched;

	copy = usttrace_rule_patterns(ut, &rule);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (level || ut->filter) {
			rule.pattern = tok;
			ret = ustctl_enable_rule(pid, trace, &rule);
		} else {
			const char *patterns[1] = { tok };

			ret = ustctl_enable_marker_matches(pid, trace, patterns, 1, &matched);
			if (ret >= 0 && matched == 0)
				ustcomm_warn("pid %d: pattern '%s' matches no event of the program now",
					     (int)pid, tok);
		}
		if (ret < 0) {
			ustcomm_err("pid %d: -m %s: %s", (int)pid, tok, ustctl_last_error());
			break;
		}
	}
	free(copy);
	return ret < 0 ? ret : 0;
}

/* -p: the --context ones, for every channel. */
static int usttrace_attach_contexts(struct usttrace *ut, const char *trace)
{
	char *copy, *tok, *save = NULL;
	int ret = 0;

	if (!ut->contexts.len)
		return 0;
	copy = strdup(ut->contexts.buf);
	if (!copy) {
		ustcomm_err("out of memory");
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
		ret = ustctl_add_context(ut->attach_pid, trace, "*", tok);
		if (ret < 0 && ret != -EEXIST) {
			ustcomm_err("pid %d: --context %s: %s", (int)ut->attach_pid, tok,
				    ustctl_last_error());
			break;
		}
		ret = 0;
	}
	free(copy);
	return ret;
}

/*
 * usttrace -p PID: points the program at the private ustd (unless -s),
 * creates a trace of its own in it with the -m rules, starts it, and
 * waits for Ctrl-C (SIGINT, SIGTERM, SIGHUP) or for the program to exit;
 * then stops and destroys the trace (destroy returns once ustd has it on
 * disk) and gives the program back its ustd. Returns usttrace's status.
 */
static int usttrace_attach(struct usttrace *ut)
{
	pid_t pid = ut->attach_pid;
	char trace[64], *old_sock = NULL, **dirs = NULL;
	bool created = false, gone;
	size_t nr_dirs;
	int ret, rc = USTTRACE_EXIT_FAILURE;

	if (kill(pid, 0) < 0 && errno == ESRCH) {
		ustcomm_err("-p %d: no such process", (int)pid);
		return USTTRACE_EXIT_FAILURE;
	}
	/* Is it a program with libust, and can we talk to it? */
	ret = ustctl_get_sock_path(pid, &old_sock);
	if (ret < 0) {
		ustcomm_err("-p %d: %s", (int)pid, ustctl_last_error());
		return USTTRACE_EXIT_FAILURE;
	}
	if (usttrace_prepare(ut) < 0)
		goto out;
	usttrace_attach_trace_name(trace, sizeof(trace));
	if (!ut->shared && ustctl_set_sock_path(pid, ut->sock_path) < 0) {
		ustcomm_err("pid %d: cannot point it at the private ustd: %s", (int)pid,
			    ustctl_last_error());
		goto out;
	}
	if (ustctl_create_trace(pid, trace) < 0) {
		ustcomm_err("pid %d: cannot create trace %s: %s", (int)pid, trace,
			    ustctl_last_error());
		goto restore;
	}
	created = true;
	if (usttrace_attach_contexts(ut, trace) < 0 || usttrace_attach_rules(ut, trace) < 0)
		goto destroy;
	if (ustctl_start_trace(pid, trace) < 0) {
		ustcomm_err("pid %d: cannot start trace %s: %s", (int)pid, trace,
			    ustctl_last_error());
		goto destroy;
	}
	fprintf(stderr, "usttrace: tracing pid %d; Ctrl-C to stop\n", (int)pid);
	gone = usttrace_attach_wait(pid);
	if (gone) {
		/* Its libust wrote the trace out at exit. */
		fprintf(stderr, "usttrace: pid %d has exited\n", (int)pid);
		created = false;
	} else if (ut->verbose) {
		fprintf(stderr, "usttrace: %s: stopping the trace of pid %d\n",
			strsignal(usttrace_got_signal), (int)pid);
	}
	rc = 0;
	if (created && ustctl_stop_trace(pid, trace) < 0 && !usttrace_attach_gone(pid)) {
		ustcomm_err("pid %d: cannot stop trace %s: %s", (int)pid, trace,
			    ustctl_last_error());
		rc = USTTRACE_EXIT_FAILURE;
	}
destroy:
	if (created && ustctl_destroy_trace(pid, trace) < 0 && !usttrace_attach_gone(pid)) {
		ustcomm_err("pid %d: cannot destroy trace %s: %s; the trace may be incomplete",
			    (int)pid, trace, ustctl_last_error());
		rc = USTTRACE_EXIT_FAILURE;
	}
restore:
	if (!ut->shared && !usttrace_attach_gone(pid) &&
	    ustctl_set_sock_path(pid, old_sock) < 0)
		ustcomm_err("pid %d: cannot point it back at %s: %s", (int)pid, old_sock,
			    ustctl_last_error());
	usttrace_stop_ustd(ut);
	if (rc == 0) {
		nr_dirs = usttrace_report(ut, pid, 0, &dirs);
		if (!ut->relay) {
			usttrace_report_loss(dirs, nr_dirs);
			usttrace_warn_unmatched(ut->patterns.buf, dirs, nr_dirs);
		}
		usttrace_view(ut, dirs, nr_dirs);
		usttrace_free_dirs(dirs);
	}
out:
	free(old_sock);
	return rc;
}

int main(int argc, const char **argv)
{
	struct usttrace ut = { .patterns = USTCOMM_STRBUF_INIT,
			       .autoprobe = USTCOMM_STRBUF_INIT,
			       .channels = USTCOMM_STRBUF_INIT,
			       .contexts = USTCOMM_STRBUF_INIT };
	poptContext pc = NULL;
	char **dirs = NULL;
	pid_t pid = 0;
	int status = 0, rc = USTTRACE_EXIT_FAILURE, ret;
	size_t nr_dirs;

	ustcomm_log_set_prefix("usttrace");
	usttrace_install_signals();
	ret = usttrace_parse(&ut, &pc, argc, argv);
	if (ret == USTTRACE_DONE)
		rc = 0;
	if (ret)
		goto end;
	if (usttrace_settings(&ut) < 0)
		goto end;
	/* Before ustd and the program: nothing is started to be refused. */
	if (usttrace_check_memory(usttrace_u32(ut.subbuf_size), usttrace_u32(ut.subbuf_num),
				  ut.session) < 0)
		goto end;
	if (ut.follow && prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		ustcomm_err("-f: cannot become the subreaper of the program's descendants: %s",
			    strerror(errno));
		goto end;
	}
	if (ut.attach_pid) {
		rc = usttrace_attach(&ut);
		goto stop;
	}
	if (usttrace_prepare(&ut) < 0)
		goto stop;
	if (ut.follow && !ut.shared && usttrace_only_ustd_left(&ut) < 0) {
		ustcomm_err("-f needs /proc/PID/task/TID/children (a kernel with CONFIG_PROC_CHILDREN) to tell when every descendant has exited");
		goto stop;
	}
	ret = usttrace_run_program(&ut, &pid, &status);
	if (ret == -EINTR) {
		rc = 128 + usttrace_got_signal;
	} else if (ret < 0 && pid > 0) {
		rc = -ret == EACCES ? USTTRACE_EXIT_CANNOT_RUN : USTTRACE_EXIT_NOT_FOUND;
	} else if (ret == 0) {
		rc = usttrace_exit_code(status);
		usttrace_stop_ustd(&ut);
		nr_dirs = usttrace_report(&ut, pid, status, &dirs);
		if (!ut.relay) {
			usttrace_report_loss(dirs, nr_dirs);
			usttrace_warn_unmatched(ut.patterns.buf, dirs, nr_dirs);
		}
		usttrace_view(&ut, dirs, nr_dirs);
		usttrace_free_dirs(dirs);
	}
stop:
	usttrace_stop_ustd(&ut);
	usttrace_remove_rundir(&ut);
end:
	ustcomm_strbuf_free(&ut.patterns);
	ustcomm_strbuf_free(&ut.autoprobe);
	ustcomm_strbuf_free(&ut.channels);
	ustcomm_strbuf_free(&ut.func_record);
	ustcomm_strbuf_free(&ut.plt.record);
	ustcomm_strbuf_free(&ut.contexts);
	free(ut.session_file);
	if (ut.session)
		ustctl_session_free(ut.session);
	ustctl_session_extra_free(ut.session_extra);
	free(ut.filter);
	free(ut.loglevel);
	free(ut.loglevel_only);
	free(ut.perfetto);
	free(ut.relay);
	free(ut.live_timer);
	free(ut.relay_backlog);
	free(ut.output_arg);
	free(ut.attach_arg);
	free(ut.subbuf_size);
	free(ut.subbuf_num);
	free(ut.blocking);
	free(ut.func_depth);
	free(ut.func_time);
	free(ut.tracefile_size);
	free(ut.tracefile_count);
	poptFreeContext(pc);
	return rc;
}
