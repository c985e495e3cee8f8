/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * libust's life in the process: at load time it reads the environment,
 * opens the control socket and, when UST_TRACE asks for it, starts a
 * trace; fork() gives the child a socket of its own and, when the parent
 * was tracing, a trace of its own; at exit
 * the trace is flushed to ustd and the socket removed.
 *
 * Environment: UST_TRACE, UST_AUTOPROBE (rules: "pattern,-pattern,..."; an
 * enable rule with a level or a filter is "+LEVEL/FILTER/BYTECODE/pattern",
 * the filter and its bytecode in hexadecimal, as usttrace writes it),
 * UST_CHANNELS ("name:SIZE:NUM[:CTX+CTX...][@TIMEOUT],...": an empty SIZE or NUM
 * keeps the default, name "*" is every channel), UST_SUBBUF_SIZE,
 * UST_SUBBUF_NUM, UST_OVERWRITE, UST_DAEMON_SOCKET, UST_RUNDIR, UST_SIGNAL, UST_CONTROL, UST_DEBUG,
 * UST_TRACE_PID (UST_TRACE applies only in the process of that pid: usttrace
 * without -f traces the program, not what it executes).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/sysinfo.h>
#include <unistd.h>
#include <urcu-bp.h>

#include "libust/control.h"
#include "libust/control_cmd.h"
#include "libust/context.h"
#include "libust/filter_reclaim.h"
#include "libust/lock.h"
#include "libust/objects.h"
#include "libust/perf_counter.h"
#include "libust/registry.h"
#include "libust/rules.h"
#include "libust/session_join.h"
#include "libust/statedump.h"
#include "libust/thread_buffer.h"
#include "libust/trace.h"
#include "libust/tracepoint_internal.h"
#include "libustcomm/blocking.h"
#include "libustcomm/bufsize.h"
#include "libustcomm/filter_bytecode.h"
#include "libustcomm/format.h"
#include "libustcomm/hex.h"
#include "libustcomm/log.h"
#include "libustcomm/loglevel.h"
#include "libustcomm/rundir.h"
#include "libustcomm/shm_layout.h"
#include "libustcomm/signal_name.h"

static int env_is_set(const char *var)
{
	const char *v = getenv(var);

	return v && *v && strcmp(v, "0");
}

/* A buffer geometry variable: a power of two, k and M suffixes allowed;
 * def when unset or wrong (0: the default, which depends on the channel). */
static uint32_t env_size(const char *var, uint32_t def, uint32_t min, uint32_t max)
{
	const char *s = getenv(var);
	uint32_t v;

	if (!s || !*s)
		return def;
	if (ustcomm_parse_pow2(s, min, max, &v) < 0) {
		if (def)
			ustcomm_err("%s=%s is not a power of two between %u and %u; using %u",
				    var, s, min, max, def);
		else
			ustcomm_err("%s=%s is not a power of two between %u and %u; using the default",
				    var, s, min, max);
		return def;
	}
	return v;
}

/* UST_THREAD_BUFFERS: "[CHANNEL:]N", N thread buffers for the channel
 * (all channels without one), as usttrace writes it for function tracing. */
static void env_thread_buffers(struct ust_trace_config *cfg)
{
	const char *s = getenv("UST_THREAD_BUFFERS"), *colon, *num;
	char *end;
	unsigned long v;

	if (!s || !*s)
		return;
	colon = strrchr(s, ':');
	num = colon ? colon + 1 : s;
	errno = 0;
	v = strtoul(num, &end, 10);
	if (errno || *end || !*num || *num == '-' || v > UST_THREAD_BUFFERS_MAX ||
	    (colon && (colon == s || (size_t)(colon - s) >= sizeof(cfg->thread_channel)))) {
		ustcomm_err("UST_THREAD_BUFFERS=%s is not [CHANNEL:]N with N from 0 to %u; no thread buffers",
			    s, UST_THREAD_BUFFERS_MAX);
		return;
	}
	cfg->nr_threads = (uint32_t)v;
	if (colon)
		memcpy(cfg->thread_channel, s, (size_t)(colon - s));
}

/* ustd names the trace directory after it: keep it printable, no '/'. */
static void sanitize_procname(char *name)
{
	char *p;

	for (p = name; *p; p++) {
		if (*p < 0x21 || *p > 0x7e || *p == '/')
			*p = '_';
	}
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		strcpy(name, "unknown");
}

/* UST_TRACE, unless UST_TRACE_PID restricts it to another process. */
static int env_trace(void)
{
	const char *pid = getenv("UST_TRACE_PID");

	if (!env_is_set("UST_TRACE"))
		return 0;
	return !pid || !*pid || atol(pid) == (long)getpid();
}

/* "+LEVEL/FILTER/BYTECODE/pattern": the last field is the pattern, which
 * may hold '/' (the classic "channel/name" spelling). */
static int env_rule(char *tok, struct ust_rule_spec *spec, char *text, void *prog)
{
	char *field[4];
	ssize_t n;
	int i;

	field[0] = tok + 1;
	for (i = 1; i < 4; i++) {
		char *slash = strchr(field[i - 1], '/');

		if (!slash)
			return -EINVAL;
		*slash = '\0';
		field[i] = slash + 1;
	}
	spec->pattern = field[3];
	if (ustcomm_level_spec_parse(field[0], &spec->level_match, &spec->level) < 0)
		return -EINVAL;
	n = ustcomm_hex_decode(field[1], text, UST_FILTER_TEXT_MAX);
	if (n < 0)
		return -EINVAL;
	text[n] = '\0';
	spec->filter = text;
	n = ustcomm_hex_decode(field[2], prog, UST_FILTER_CODE_MAX + UST_FILTER_DATA_MAX + 64);
	if (n < 0 || !n != !*text)
		return -EINVAL;
	spec->prog = prog;
	spec->prog_len = (size_t)n;
	return 0;
}

/* UST_AUTOPROBE: "1" or empty with UST_TRACE means every event. */
static void env_rules(void)
{
	const char *spec = getenv("UST_AUTOPROBE");
	char *copy, *tok, *save = NULL, *text = NULL;
	void *prog = NULL;

	if (!spec || !*spec) {
		if (!env_trace())
			return;
		spec = "*";
	}
	if (!strcmp(spec, "1"))
		spec = "*";
	copy = strdup(spec);
	text = malloc(UST_FILTER_TEXT_MAX + 1);
	prog = malloc(UST_FILTER_CODE_MAX + UST_FILTER_DATA_MAX + 64);
	if (!copy || !text || !prog)
		goto end;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct ust_rule_spec rule = { .pattern = tok, .enable = 1 };

		if (*tok == '-') {
			rule.pattern = tok + 1;
			rule.enable = 0;
		} else if (*tok == '+' && env_rule(tok, &rule, text, prog) < 0) {
			ustcomm_err("UST_AUTOPROBE: malformed rule '%s': expected +LEVEL/FILTER/BYTECODE/PATTERN",
				    tok);
			continue;
		}
		if (ust_trace_add_rule(NULL, &rule) < 0)
			ustcomm_err("UST_AUTOPROBE: %s", ust_trace_error());
	}
end:
	free(copy);
	free(text);
	free(prog);
}

/* The contexts of UST_CHANNELS' channel, "CTX+CTX...". */
static void env_channel_contexts(const char *channel, char *list)
{
	char *ctx, *save = NULL;

	for (ctx = strtok_r(list, "+", &save); ctx; ctx = strtok_r(NULL, "+", &save))
		if (ust_trace_add_context(NULL, channel, ctx) < 0)
			ustcomm_err("UST_CHANNELS: %s", ust_trace_error());
}

/*
 * UST_CHANNELS: "NAME:SIZE:NUM[:CTX+CTX...][@TIMEOUT][%FILESIZE[/COUNT]],..."
 * as usttrace writes it for --session, --context, --blocking-timeout and
 * --tracefile-size/--tracefile-count; NAME "*" is every channel. The
 * contexts come after the sizes because their names hold colons
 * (perf:thread:cycles); the blocking timeout (blocking.h) after an @ and
 * the bounded disk (bufsize.h) after a %, which no other part holds.
 */
static void env_channels(void)
{
	const char *spec = getenv("UST_CHANNELS");
	char *copy, *tok, *save = NULL;

	if (!spec || !*spec)
		return;
	copy = strdup(spec);
	if (!copy)
		return;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *size = strchr(tok, ':'), *num = size ? strchr(size + 1, ':') : NULL;
		char *ctx = num ? strchr(num + 1, ':') : NULL;
		char *tracefile = strchr(tok, '%');
		char *blocking = strchr(tok, '@');
		uint32_t sz, n, us;

		if (tracefile) {
			/* Nothing but FILESIZE[/COUNT] after the %. */
			if (blocking > tracefile || num > tracefile || ctx > tracefile) {
				ustcomm_err("UST_CHANNELS: '%s' is not NAME:SIZE:NUM[:CONTEXTS][@TIMEOUT][%%FILESIZE[/COUNT]]",
					    tok);
				continue;
			}
			*tracefile++ = '\0';
		}
		if (blocking)
			*blocking++ = '\0';
		if (!num || (ctx && blocking && ctx > blocking)) {
			ustcomm_err("UST_CHANNELS: '%s' is not NAME:SIZE:NUM[:CONTEXTS][@TIMEOUT]", tok);
			continue;
		}
		if (blocking && ustcomm_blocking_parse(blocking, &us) < 0) {
			ustcomm_err("UST_CHANNELS: channel %s: blocking timeout '%s' is not 0, inf or microseconds up to %u (suffix us, ms or s allowed)",
				    tok, blocking, UST_BLOCKING_MAX_US);
			continue;
		}
		*size++ = '\0';
		*num++ = '\0';
		if (ctx)
			*ctx++ = '\0';
		/* An empty SIZE or NUM keeps the default. */
		sz = n = 0;
		if ((*size && ustcomm_parse_pow2(size, UST_SUBBUF_SIZE_MIN, UST_SUBBUF_SIZE_MAX,
						 &sz) < 0) ||
		    (*num && ustcomm_parse_pow2(num, UST_SUBBUF_NUM_MIN, UST_SUBBUF_NUM_MAX,
						&n) < 0)) {
			ustcomm_err("UST_CHANNELS: channel %s: sizes must be powers of two (%u to %u bytes, %u to %u sub-buffers)",
				    tok, UST_SUBBUF_SIZE_MIN, UST_SUBBUF_SIZE_MAX,
				    UST_SUBBUF_NUM_MIN, UST_SUBBUF_NUM_MAX);
			continue;
		}
		if ((sz && ust_trace_set_subbuf(NULL, tok, 0, sz) < 0) ||
		    (n && ust_trace_set_subbuf(NULL, tok, 1, n) < 0))
			ustcomm_err("UST_CHANNELS: %s", ust_trace_error());
		if (ctx)
			env_channel_contexts(tok, ctx);
		if (blocking && ust_trace_set_blocking(NULL, tok, blocking) < 0)
			ustcomm_err("UST_CHANNELS: %s", ust_trace_error());
		if (tracefile && ust_trace_set_tracefile(NULL, tok, tracefile) < 0)
			ustcomm_err("UST_CHANNELS: channel %s: %s", tok, ust_trace_error());
	}
	free(copy);
}

/* UST_SIGNAL: a number or a name (signal_name.h). */
static int env_signal(void)
{
	int sig = ustcomm_signal_parse(getenv("UST_SIGNAL"));

	if (sig > 0)
		return sig;
	ustcomm_err("UST_SIGNAL=%s is not a usable signal; using " USTCOMM_SIGNAL_DEFAULT_NAME,
		    getenv("UST_SIGNAL"));
	return ustcomm_signal_parse(NULL);
}

static enum ust_control_mode env_control(void)
{
	const char *s = getenv("UST_CONTROL");

	if (!s || !*s || !strcmp(s, "signal"))
		return UST_CONTROL_SIGNAL;
	if (!strcmp(s, "thread"))
		return UST_CONTROL_THREAD;
	if (!strcmp(s, "none"))
		return UST_CONTROL_NONE;
	ustcomm_err("UST_CONTROL=%s: expected signal, thread or none; using signal", s);
	return UST_CONTROL_SIGNAL;
}

/*
 * fork() copies only the calling thread: every lock another thread held
 * stays held in the child forever. So the parent takes, before forking,
 * each lock the child's libust needs: ust_lock() (the trace, the registry,
 * the allocator, the control server all run under it) and liburcu-bp's
 * (a tracepoint's probe registration synchronizes RCU, and so may the
 * child). A writer in the middle of an event holds nothing: the ring
 * buffer is lock-free, and the child drops the parent's buffers anyway.
 * Also the tracepoint mutex (tracepoint.c), so that a child registering a
 * probe does not wait for a thread that does not exist in it.
 * Order: ust_lock, then the tracepoint mutex (registration takes them in
 * that order), then liburcu-bp's locks: no RCU lock holder ever takes the
 * other two, and nobody waits for a grace period holding them.
 */
static void atfork_prepare(void)
{
	ust_lock();
	ust_tracepoint_fork_lock();
	urcu_bp_before_fork();
}

/* A normal context: a program that replaced libust's handler of the
 * control signal (a daemon resetting its handlers, then forking) gets its
 * listener thread here. */
static void atfork_parent(void)
{
	urcu_bp_after_fork_parent();
	ust_tracepoint_fork_unlock();
	ust_control_check();
	ust_unlock();
}

/*
 * The child shares the parent's buffers (MAP_SHARED) and sockets: it drops
 * them before it can write anything, opens a control socket of its own
 * and, when the parent was traced, a trace of its own.
 * Async-signal-safe, as a child of a multithreaded parent requires.
 */
static void atfork_child(void)
{
	char prefix[32];
	int pending;

	urcu_bp_after_fork_child();
	ust_ctx_after_fork_child();
	ust_filter_reclaim_after_fork_child();
	ustcomm_format(prefix, sizeof(prefix), "ust[%d]", (int)getpid());
	ustcomm_log_set_prefix(prefix);
	pending = ust_trace_after_fork_child();
	/* A child whose trace waits for its first event gets its socket then
	 * too: most such children exec() first, and a socket file left in
	 * apps/ by each would outlive them (trace_fork.c). */
	ust_control_after_fork_child(pending);
	ust_control_check();
	ust_tracepoint_fork_unlock();
	ust_unlock();
}

/*
 * An object registered, in its constructor (objects.c): a normal context.
 * A program whose events joined a session gets its listener thread here,
 * before anyone has to signal it, and one that replaced libust's handler
 * of the control signal gets it too.
 */
static void object_registered(void)
{
	if (ust_trace_state() != UST_TRACE_NONE)
		ust_control_start_thread("the program traces since its events registered");
	ust_control_check();
	ust_control_populate();
}

/* A fork() child's trace was made at its first event (trace_fork.c):
 * its socket now, and its pages before that event goes on. */
static void fork_resumed(void)
{
	ust_control_open();
	ust_control_populate();
}

static void __attribute__((constructor)) ust_init(void)
{
	struct ust_trace_config cfg = { .procname = "" };
	char prefix[32];
	int ncpus, ret;

	/* A guest in the program: no message of ours may block or kill it. */
	ustcomm_log_set_guest();
	ustcomm_format(prefix, sizeof(prefix), "ust[%d]", (int)getpid());
	ustcomm_log_set_prefix(prefix);
	/* Read now: the environment is not for signal context. */
	ustcomm_debug_enabled();
	prctl(PR_GET_NAME, cfg.procname);
	sanitize_procname(cfg.procname);
	gethostname(cfg.hostname, sizeof(cfg.hostname) - 1);
	if (ustcomm_daemon_socket_path(cfg.daemon_path, sizeof(cfg.daemon_path)) < 0)
		cfg.daemon_path[0] = '\0';
	/* Every possible CPU, so that a CPU coming online finds its buffer. */
	ncpus = get_nprocs_conf();
	cfg.nr_cpus = ncpus > 0 ? (uint32_t)ncpus : 1;
	cfg.def_size = env_size("UST_SUBBUF_SIZE", UST_SUBBUF_SIZE_DEFAULT,
				UST_SUBBUF_SIZE_MIN, UST_SUBBUF_SIZE_MAX);
	cfg.def_num = env_size("UST_SUBBUF_NUM", 0,
			       UST_SUBBUF_NUM_MIN, UST_SUBBUF_NUM_MAX);
	cfg.overwrite = env_is_set("UST_OVERWRITE");
	env_thread_buffers(&cfg);

	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	ust_trace_fork_on_resume(fork_resumed);
	ust_objects_on_registered(object_registered);
	ust_lock();
	ust_trace_init(&cfg);
	ust_ctx_init(cfg.procname);
	ust_perf_init();
	if (cfg.nr_threads)
		ust_thread_buffer_init(ust_control_populate_soon);
	env_channels();
	env_rules();
	ust_unlock();
	/*
	 * libust's own events (the statedump's) join the registry like any
	 * object's, here rather than in statedump.c, which stays beneath the
	 * registration of objects (objects.c). After the rules, which its
	 * events meet as they register.
	 */
	ust_register_object2(__start___ust_events, __stop___ust_events, NULL, NULL,
			     UST_DESC_VERSION);
	ust_statedump_refresh(1);
	/* Outside the lock: the signal it blocks is only known from here on. */
	ust_control_init(env_control(), env_signal(), ust_control_handle);
	/* After the socket exists: session_join.c says why. */
	ust_lock();
	ust_trace_on_event_added(ust_session_join_event);
	ust_session_join_init(cfg.daemon_path);
	ust_unlock();
	if (!env_trace())
		return;
	ust_lock();
	ret = ust_trace_create("auto", NULL);
	if (ret >= 0)
		ret = ust_trace_start("auto");
	/* A memory refusal is said even unasked: the user asked for a trace. */
	if (ret == -ENOMEM)
		ustcomm_err("running untraced: %s", ust_trace_error());
	else if (ret < 0)
		ustcomm_dbg("running untraced: %s", ust_trace_error());
	else
		ust_control_start_thread("UST_TRACE: traced from start-up");
	ust_control_populate();
	ust_unlock();
}

static void __attribute__((destructor)) ust_fini(void)
{
	ust_lock();
	ust_trace_exit();
	ust_control_fini();
	ust_unlock();
}
