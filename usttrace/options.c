/* SPDX-License-Identifier: GPL-2.0-only */
/* usttrace's command line: parsed and checked before anything starts. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <ust/version.h>
#include "libustcomm/bufsize.h"
#include "libustcomm/event_context.h"
#include "libustcomm/log.h"
#include "libustcomm/loglevel.h"
#include "libustcomm/pattern.h"
#include "libustcomm/protocol.h"
#include "libustcomm/relay_url.h"
#include "libustcomm/shm_layout.h"
#include "usttrace/options.h"

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

/* Thread buffers of the ust_func channel when functions are traced: a
 * program's threads up to this many write without atomic operations. */
#define USTTRACE_THREAD_BUFFERS_DEFAULT	8

/* A --subbuf-size or --subbuf-num checked already, or 0 when not given. */
uint32_t usttrace_u32(const char *text)
{
	uint32_t v = 0;

	if (text && ustcomm_parse_pow2(text, 1, UINT32_MAX, &v) < 0)
		v = 0;
	return v;
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
int usttrace_check_context(const char *what, const char *ctx)
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

enum { USTTRACE_OPT_HELP = 1000, USTTRACE_OPT_VERSION, USTTRACE_OPT_FUNC_FILTER,
       USTTRACE_OPT_FUNC_EXCLUDE, USTTRACE_OPT_PLT_ARGS, USTTRACE_OPT_PLT_RET };


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
		ut->thread_buffers ? "--thread-buffers" :
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

int usttrace_parse(struct usttrace *ut, poptContext *pcp, int argc, const char **argv)
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
		{ "thread-buffers", '\0', POPT_ARG_STRING, &ut->thread_buffers, 0,
		  "buffers of each channel that a thread writes alone, without atomic operations, beside the per-CPU ones (default: 8 for the function events' channel ust_func when they are traced, none for the others; 0: per-CPU buffers only; usttrace(1))",
		  "N" },
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
	if (ut->thread_buffers) {
		char *end;
		unsigned long n;

		errno = 0;
		n = strtoul(ut->thread_buffers, &end, 10);
		if (errno || *end || !*ut->thread_buffers || ut->thread_buffers[0] == '-' ||
		    n > UST_THREAD_BUFFERS_MAX) {
			ustcomm_err("--thread-buffers %s: expected a number from 0 to %u",
				    ut->thread_buffers, UST_THREAD_BUFFERS_MAX);
			ret = -EINVAL;
			goto end;
		}
		ut->nr_thread_buffers = (uint32_t)n;
		ut->thread_buffers_all = true;
	} else if (usttrace_traces_functions(ut)) {
		ut->nr_thread_buffers = USTTRACE_THREAD_BUFFERS_DEFAULT;
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
