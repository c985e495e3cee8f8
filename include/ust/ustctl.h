/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * libustctl: control of running programs linked with -lust, the C API that
 * ustctl and usttrace are built on. See ustctl(3).
 *
 * Every function returns 0 (or a count) on success and a negative errno on
 * failure; ustctl_last_error() then describes the cause in words, naming
 * the process. Functions are thread-safe; the last error is per thread.
 */
#ifndef UST_USTCTL_H
#define UST_USTCTL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The trace name used when a function is given NULL or "". */
#define USTCTL_DEFAULT_TRACE	"auto"

/* The cause of this thread's last failure; never NULL. */
const char *ustctl_last_error(void);
/*
 * 1 when that failure was found in the caller's arguments before anything
 * was sent to a program (a filter that does not compile or fits none of
 * the events it would apply to, a trace name too long, a malformed
 * output, a session with too many rules): nothing changed anywhere.
 * 0 when a request failed: the program is gone, did not answer in time,
 * or refused (its reason is the message), or relayd cannot be reached.
 */
int ustctl_last_error_is_input(void);

/*
 * What this thread's calls since the last take accepted but the user
 * should hear of (a filter naming a field that none of the events its
 * rule matches has), one per line; NULL when nothing. The caller frees it.
 */
char *ustctl_take_warnings(void);

/*
 * How long to wait for a program to answer, in milliseconds (default 5000):
 * it bounds connecting, sending and receiving. A program that is stopped,
 * blocks the control signal in every thread or no longer accepts
 * connections does not answer: the call then fails with -ETIMEDOUT.
 */
void ustctl_set_timeout(int ms);

/* The processes that have a control socket in the run directory, sorted.
 * Sockets left by processes that died are removed on the way. */
int ustctl_list_pids(pid_t **pids, size_t *nr);

struct ustctl_info {
	pid_t pid;
	char procname[32];
	char version[32];		/* libust's */
	char trace[64];			/* "" when the process has no trace */
	char state[16];			/* "none", "created", "allocated", "started", "stopped" */
};
int ustctl_get_info(pid_t pid, struct ustctl_info *info);
/* ustctl_get_info() and, in control (len bytes), how the process serves
 * its control socket: "signal SIGURG, ..." or "listener thread (why)";
 * "" for a program of libust 2.0, which does not say. */
int ustctl_get_info_control(pid_t pid, struct ustctl_info *info, char *control, size_t len);

struct ustctl_marker {
	char *name;			/* "channel:name" or "provider:name" */
	int enabled;
	int is_format;			/* 1: a trace_mark format; 0: typed fields */
	char *format;			/* the format, or "type name, ..." */
	char *objects;			/* the objects holding its sites, ", "-separated */
	int loglevel;			/* enum ust_loglevel of <ust/core.h>, 0-14 */
	char *fields;			/* "type name, ...", markers included */
};
int ustctl_list_markers(pid_t pid, struct ustctl_marker **markers, size_t *nr);
void ustctl_free_markers(struct ustctl_marker *markers, size_t nr);

/*
 * Patterns are names or globs ("ust:*", "*"), "channel:name" or the
 * classic "channel/name". They also apply to events that appear later
 * (libraries loaded afterwards). Returns the number of events they now match.
 */
int ustctl_enable_marker(pid_t pid, const char *trace, const char *const *patterns,
			 size_t nr);
int ustctl_disable_marker(pid_t pid, const char *trace, const char *const *patterns,
			  size_t nr);
/* ustctl_enable_marker(), and per_pattern[i] (nr of them): the events
 * patterns[i] matches now, or -1 when the program does not say (a libust
 * of before): 0 names a pattern that matches nothing yet. */
int ustctl_enable_marker_matches(pid_t pid, const char *trace, const char *const *patterns,
				 size_t nr, int *per_pattern);

int ustctl_create_trace(pid_t pid, const char *trace);
/*
 * Creates the trace with its output: a directory (relative ones are taken
 * from the caller's working directory; created by ustd if needed) or an
 * lttng-relayd URL, net://HOST[:CONTROL_PORT[:DATA_PORT]], whose ports
 * must accept a connection now (-ECONNREFUSED, -ETIMEDOUT, -EHOSTUNREACH
 * with the URL and the cause in the last error otherwise). NULL or "":
 * the output set before with ustctl_set_output(), else ustd's choice
 * (its output directory, or its --relay).
 */
int ustctl_create_trace_output(pid_t pid, const char *trace, const char *output);
/* The same choice, before the trace's buffers are allocated; it holds
 * until the trace is destroyed. */
int ustctl_set_output(pid_t pid, const char *trace, const char *output);
int ustctl_alloc_trace(pid_t pid, const char *trace);
int ustctl_start_trace(pid_t pid, const char *trace);
int ustctl_stop_trace(pid_t pid, const char *trace);
/* Returns once ustd has the whole trace on disk (or the wait timed out). */
int ustctl_destroy_trace(pid_t pid, const char *trace);
int ustctl_force_switch(pid_t pid, const char *trace);

/*
 * Records context (vpid, vtid, procname, pthread_id, ip, perf:thread:cycles,
 * perf:thread:instructions, perf:thread:cache-misses or
 * perf:thread:page-faults) with every event of channel, "*" for every
 * channel; only before allocation. -EEXIST when the channel records it
 * already; a perf counter this machine lacks fails with the reason.
 */
int ustctl_add_context(pid_t pid, const char *trace, const char *channel, const char *context);
/* Whether a context name is known: 0 or -EINVAL with the last error set. */
int ustctl_context_check(const char *context);
/* The known context names, NULL after the last; whether the perf counter
 * of a name can be counted here (0, or -errno with the last error set). */
const char *ustctl_context_name(size_t i);
int ustctl_context_available(const char *context);

/* Sub-buffer geometry of a channel (powers of two); only before allocation. */
int ustctl_set_subbuf_size(pid_t pid, const char *trace, const char *channel, uint32_t size);
int ustctl_set_subbuf_num(pid_t pid, const char *trace, const char *channel, uint32_t num);
int ustctl_get_subbuf_size(pid_t pid, const char *trace, const char *channel, uint32_t *size);
int ustctl_get_subbuf_num(pid_t pid, const char *trace, const char *channel, uint32_t *num);

/*
 * The blocking timeout of a channel ("*": of every channel without its
 * own), LTTng-UST's --blocking-timeout: how long a writer that finds the
 * channel's ring full waits for ustd to release a sub-buffer before it
 * discards the event. In microseconds: 0 never waits (discard, the
 * default), USTCTL_BLOCKING_INF waits as long as ustd lives, other values
 * up to USTCTL_BLOCKING_MAX. A wait ends early when ustd dies, and never
 * happens in a signal handler. It may be set at any time and applies at
 * once. get gives the timeout the channel has.
 */
#define USTCTL_BLOCKING_INF	UINT32_MAX
#define USTCTL_BLOCKING_MAX	(UINT32_MAX - 1u)
int ustctl_set_blocking_timeout(pid_t pid, const char *trace, const char *channel, uint32_t us);
int ustctl_get_blocking_timeout(pid_t pid, const char *trace, const char *channel, uint32_t *us);
/* Users' spelling, "0", "inf" or microseconds with an optional suffix us,
 * ms or s ("250ms"), to microseconds: 0, or -EINVAL with the last error set. */
int ustctl_blocking_timeout_parse(const char *text, uint32_t *us);

/*
 * Bounded disk of a channel ("*": of every channel without its own),
 * LTTng's --tracefile-size and --tracefile-count: ustd cuts each stream
 * of the channel into files of at most size bytes of whole packets (at
 * least USTCTL_TRACEFILE_SIZE_MIN; 0: one file per stream) and keeps only
 * the newest count of them (0: all; a count needs a size). Only before
 * the trace's buffers are allocated. get gives the limits the channel has.
 */
#define USTCTL_TRACEFILE_SIZE_MIN	4096u
int ustctl_set_tracefile(pid_t pid, const char *trace, const char *channel, uint64_t size,
			 uint32_t count);
int ustctl_get_tracefile(pid_t pid, const char *trace, const char *channel, uint64_t *size,
			 uint32_t *count);
/* Users' spelling, "SIZE[/COUNT]" with an optional k, M or G suffix on
 * SIZE ("1M/4"): 0, or -EINVAL with the last error set. */
int ustctl_tracefile_parse(const char *text, uint64_t *size, uint32_t *count);

/*
 * Flight-recorder traces (the program started with UST_OVERWRITE=1): ustd
 * copies what the buffers hold now into a new directory in dir, which it
 * creates if needed; the trace goes on recording. dir NULL or "" means
 * ustd's output directory; a relative dir is taken from the caller's
 * working directory. *path (malloc'd) is the snapshot's directory, which
 * babeltrace2 reads as a trace. The wait is the timeout plus the 10 s the
 * program gives ustd to write the snapshot. A trace that is written to disk
 * as it goes (the default) has no snapshot: -EINVAL.
 */
int ustctl_snapshot(pid_t pid, const char *trace, const char *dir, char **path);

/*
 * Triggers (manual 3.5): when an event matching pattern is
 * recorded in process pid and filter (NULL or "" for none) holds for it,
 * ustd writes a snapshot of the flight-recorder trace into a new directory
 * under dir (NULL or "": ustd's output directory; relative paths are made
 * absolute here), at most at_most times a minute (0: no limit). The filter
 * is compiled and checked against the process's events as
 * ustctl_enable_rule() does. *id is the trigger's number in the process.
 */
int ustctl_add_trigger(pid_t pid, const char *trace, const char *pattern, const char *filter,
		       const char *dir, unsigned at_most, unsigned *id);

struct ustctl_trigger {
	unsigned id;
	char *pattern;
	char *filter;			/* "" for none */
	char *dir;			/* "" for ustd's output directory */
	unsigned at_most;		/* snapshots a minute, 0: no limit */
	uint64_t fired;			/* matching events recorded */
	uint64_t notified;		/* firings told to ustd */
	uint64_t limited;		/* held back by the program's rate limit */
	uint64_t dropped;		/* could not be sent: no ustd, its socket full */
	char *drop_reason;		/* why the last one could not, "" */
};

/* The triggers of process pid, in the order they were added. */
int ustctl_list_triggers(pid_t pid, const char *trace, struct ustctl_trigger **triggers,
			 size_t *nr);
void ustctl_free_triggers(struct ustctl_trigger *triggers, size_t nr);
/* Removes trigger id: its events stop firing at once. */
int ustctl_remove_trigger(pid_t pid, const char *trace, unsigned id);

/* Which ustd the program reports its traces to. */
int ustctl_set_sock_path(pid_t pid, const char *path);
/* *path is malloc'd. */
int ustctl_get_sock_path(pid_t pid, char **path);

/* How a rule selects by log level (0 EMERG, most severe, to 14 DEBUG). */
enum ustctl_loglevel_match {
	USTCTL_LOGLEVEL_ANY = 0,
	USTCTL_LOGLEVEL_RANGE,		/* the level or more severe (--loglevel) */
	USTCTL_LOGLEVEL_ONLY,		/* exactly the level (--loglevel-only) */
};

/* What a session file holds: enable/disable rules in order, channel settings. */
struct ustctl_rule {
	int enable;
	char *pattern;
	int loglevel_match;		/* enum ustctl_loglevel_match */
	int loglevel;
	char *filter;			/* enable rules: an expression, NULL for none */
};

/*
 * Adds one rule: with a log level, it matches the events of that level
 * (or more severe); with a filter, an event it enables is recorded only
 * when the filter holds for its arguments (or another enable rule lets it
 * through). The filter is compiled here and checked against the fields of
 * the events the pattern matches now: an unknown field, a type that does
 * not fit or a syntax error fails with -EINVAL and the column in the
 * last error. Returns the number of events the rule matches.
 */
int ustctl_enable_rule(pid_t pid, const char *trace, const struct ustctl_rule *rule);

/*
 * Compiles a filter without a program to check it against: its syntax and
 * literals. 0, or -EINVAL with the column and the reason in the last error.
 */
int ustctl_filter_check(const char *filter);
/* What ustctl_enable_rule() checks before it sends anything: the rule,
 * its filter's syntax and that the filter fits at least one of the events
 * its pattern matches in process pid. Sends nothing that changes it. */
int ustctl_rule_check(pid_t pid, const struct ustctl_rule *rule);

/* Log level names ("WARNING", "TRACE_WARNING" or "4") to numbers, -EINVAL
 * when unknown; numbers to names (NULL when out of range). */
int ustctl_loglevel_parse(const char *name);
const char *ustctl_loglevel_name(int level);
/* A channel's settings; name "*" holds those of every channel. */
struct ustctl_channel_conf {
	char *name;
	uint32_t subbuf_size;		/* 0: the default */
	uint32_t subbuf_num;
	char **contexts;		/* recorded with each event, in order */
	size_t nr_contexts;
	/* 0: the blocking timeout of "*", else none; 1: blocking_timeout. */
	int has_blocking_timeout;
	uint32_t blocking_timeout;	/* microseconds, or USTCTL_BLOCKING_INF */
};
struct ustctl_session {
	/* Where the trace goes: an absolute directory or an lttng-relayd URL
	 * (net://HOST[:CONTROL_PORT[:DATA_PORT]]); NULL or "" for ustd's
	 * choice. */
	char *output;
	struct ustctl_rule *rules;
	size_t nr_rules;
	struct ustctl_channel_conf *channels;
	size_t nr_channels;
};
void ustctl_session_free(struct ustctl_session *session);

/* The running program's rules and channel settings. */
int ustctl_get_session(pid_t pid, const char *trace, struct ustctl_session **session);
/* Applies the output (when set), channel settings, then rules in order
 * (ustctl_enable_rule). */
int ustctl_apply_session(pid_t pid, const char *trace, const struct ustctl_session *session);

/* Session files (XML, validated against ust-session.xsd). A bad file fails
 * with -EINVAL and ustctl_last_error() giving its line and the reason. */
int ustctl_session_read(const char *file, struct ustctl_session **session);
int ustctl_session_write(const char *file, const struct ustctl_session *session);

/*
 * Sessions held by ustd (the ustd of UST_DAEMON_SOCKET, else of the run
 * directory): a name, an output directory, channel settings, contexts and
 * rules that apply to every -lust program of the user, running or started
 * later. Each trace of a program lands in
 * OUTPUT/NAME-YYYYMMDD-HHMMSS/<procname>-<pid>/. These calls talk to ustd,
 * not to programs; ustctl_last_error() names ustd.
 */
struct ustctl_session_info {
	char name[48];
	char state[16];			/* "created", "active", "stopped" */
	char *dir;			/* the session's directory */
	int overwrite;
	unsigned nr_processes;		/* programs tracing for it now */
	unsigned nr_rules;
};
/* output: an absolute directory, NULL or "" for ustd's, or an
 * lttng-relayd URL net://HOST[:CONTROL_PORT[:DATA_PORT]] (a streamed
 * session: ustd connects to relayd now, and fails when it cannot);
 * subbuf sizes 0 for the default. *dir (malloc'd) is the session's
 * directory (of a streamed session: the local one, for what relayd
 * cannot take, named like the session's directory at relayd). */
int ustctl_create_session(const char *name, const char *output, int overwrite,
			  uint32_t subbuf_size, uint32_t subbuf_num, char **dir);
/* A session's buffers (symbol version LIBUSTCTL_4.5_BUFFERS). */
enum ustctl_buffers {
	USTCTL_BUFFERS_PER_PID,		/* each process its own: the default */
	USTCTL_BUFFERS_PER_UID,		/* the processes of one user share one
					 * set per channel and CPU, held by ustd */
};
/* ustctl_create_session() with the session's buffers (enum
 * ustctl_buffers). Per user is refused for a flight recorder (overwrite)
 * and a streamed session in this version, and by a ustd of before per-user
 * buffers (which is said). */
int ustctl_create_session_buffers(const char *name, const char *output, int overwrite,
				  uint32_t subbuf_size, uint32_t subbuf_num, int buffers,
				  char **dir);
/* Adds rules (as ustctl_enable_rule takes them), all or nothing; an
 * active session applies them to its programs. Returns the number of
 * rules the session holds. */
int ustctl_session_add_rules(const char *name, const struct ustctl_rule *rules, size_t nr);
/* Records context with every event of channel ("*": every channel) in
 * the session's traces; before its first start. */
int ustctl_session_add_context(const char *name, const char *channel, const char *context);
/* Each returns once every program concerned answered (or its time ran
 * out): start and stop the number of programs that trace the session. */
int ustctl_start_session(const char *name);
int ustctl_stop_session(const char *name);
/*
 * The running programs start-session left alone: one of the session's
 * rules selects one of their events, but they trace another session
 * already (a process holds one trace), counted by that session.
 */
struct ustctl_session_busy {
	char *session;			/* "": a trace of no session of ustd's */
	unsigned programs;
};
/* ustctl_start_session(), with *busy (free with ustctl_free_session_busy)
 * the programs left alone, by session: *nr of them, 0 when none. */
int ustctl_start_session_busy(const char *name, struct ustctl_session_busy **busy, size_t *nr);
void ustctl_free_session_busy(struct ustctl_session_busy *busy, size_t nr);
/* Ends the session's traces (their last events are on disk when it
 * returns) and forgets it. */
int ustctl_destroy_session(const char *name);
/* stop-session (destroy 0) or destroy-session, telling also the events
 * the session's traces discarded so far, as their packet contexts count
 * them (*discarded) and, when they are written by ustd to local files,
 * the session directory they are in (*dir, to free; NULL otherwise: a
 * streamed session, or a ustd that does not tell, and *discarded is 0).
 * Returns what the two above return. */
int ustctl_end_session(const char *name, int destroy, uint64_t *discarded, char **dir);
int ustctl_list_sessions(struct ustctl_session_info **sessions, size_t *nr);
void ustctl_free_session_infos(struct ustctl_session_info *sessions, size_t nr);

/*
 * A session's status (list-sessions NAME), beside its settings
 * (ustctl_describe_session()) and triggers. Trackers: KIND "pid",
 * "procname" or "uid" and VALUE; a kind that tracks a set of values has
 * an entry with VALUE "" (which alone means: no process of that kind);
 * a kind without any entry takes every process.
 */
struct ustctl_session_tracker {
	char *kind;
	char *value;
};
struct ustctl_session_process {
	pid_t pid;
	char *procname;
};
struct ustctl_session_status {
	char *state;			/* "created", "active", "stopped" */
	char *dir;			/* the session's (local) directory */
	char *relay;			/* the lttng-relayd URL, or NULL */
	int overwrite;
	unsigned chunks;		/* archived by rotations so far */
	int64_t chunk_begin;		/* the current chunk's, epoch s; 0: never started */
	uint64_t bytes;			/* in the session's directory now */
	uint64_t discarded;		/* events, ended processes included */
	struct ustctl_session_tracker *trackers;
	size_t nr_trackers;
	struct ustctl_session_process *processes;	/* tracing for it now */
	size_t nr_processes;
};
int ustctl_session_status(const char *name, struct ustctl_session_status **status);
void ustctl_session_status_free(struct ustctl_session_status *status);
/* A snapshot of every program of flight-recorder session name into one
 * new directory under dir (NULL: <session dir>/snapshots), *path
 * (malloc'd), a sub-directory per program. Returns the programs
 * snapshotted; refused for a session not in flight-recorder mode. */
int ustctl_snapshot_session(const char *name, const char *dir, char **path);
/* Discards what session name recorded so far (as lttng clear), tracing
 * going on: a session on disk loses its current chunk's files (archived
 * chunks stay), a flight recorder its buffers' contents. Returns the
 * programs whose trace was cleared. */
int ustctl_clear_session(const char *name);
/* Tracks (track 1) or untracks values of kind ("pid", "procname",
 * "uid") in session name; the one value "*" tracks every process of the
 * kind again (track) or none (untrack). Returns the values of kind
 * tracked now. */
int ustctl_session_track(const char *name, int track, const char *kind,
			 const char *const *values, size_t nr);

/*
 * Rotation: a session's current chunk, archived as
 * <session dir>/archives/<begin>-<end>-<n>/, is a complete trace of its own
 * while tracing goes on into the next. A schedule: every every_us
 * microseconds and/or once the chunk holds size bytes (0: not), and
 * on_rotate, a shell command run with each chunk's path as its last
 * argument (NULL: none), killed after on_rotate_timeout_us (0: 5 min).
 */
struct ustctl_rotation {
	uint64_t every_us;
	uint64_t size;
	const char *on_rotate;
	uint64_t on_rotate_timeout_us;
};
int ustctl_set_session_rotation(const char *name, const struct ustctl_rotation *r);
/* Rotates now; *chunk (malloc'd) is the archived chunk's directory. */
int ustctl_rotate_session(const char *name, char **chunk);

/*
 * A trigger of flight-recorder session name: an event matching pattern
 * (and filter, if not NULL) in any program of the session makes ustd
 * snapshot every program of the session into one new directory under
 * dir (NULL: the session's directory), at most at_most times a minute
 * (0: no limit). *id is the trigger's number in the session.
 */
int ustctl_session_add_trigger(const char *name, const char *pattern, const char *filter,
			       const char *dir, unsigned at_most, unsigned *id);

struct ustctl_session_trigger {
	unsigned id;
	char *pattern;
	char *filter;			/* "" for none */
	char *dir;			/* the trigger's: firing-K/ go in it */
	unsigned at_most;		/* snapshots a minute, 0: no limit */
	uint64_t fired;			/* firings ustd heard of, any process */
	/* firing-K/ directories written: one snapshot of the session per
	 * firing, of every process that could be snapshotted */
	uint64_t snapshots;
	uint64_t over_limit;		/* firings over at_most, not snapshotted */
	/* firings with no firing-K/: no process could be snapshotted, or
	 * the directory could not be made; fired = the other three */
	uint64_t failed;
};

/* The triggers of session name, in the order they were added. */
int ustctl_session_list_triggers(const char *name, struct ustctl_session_trigger **triggers,
				 size_t *nr);
void ustctl_free_session_triggers(struct ustctl_session_trigger *triggers, size_t nr);
/* Removes trigger id from session name and from its programs. */
int ustctl_session_remove_trigger(const char *name, unsigned id);

/* Convenience: get + write, read + apply (with the tracefile limits of
 * ustctl_get_session_extra() and ustctl_apply_session_extra() since
 * LIBUSTCTL_4.1_SFILE). */
int ustctl_save_session(pid_t pid, const char *trace, const char *file);
int ustctl_load_session(pid_t pid, const char *trace, const char *file);

/*
 * Session files of sessions held by ustd, and tracefile limits in session
 * files (symbol version LIBUSTCTL_4.1_SFILE). What a file holds beyond
 * struct ustctl_session comes in a structure of its own: struct
 * ustctl_session and struct ustctl_channel_conf, which callers hold in
 * arrays, keep their size, and so libustctl.so.4 its ABI. A file with
 * none of it is written as before (version 1), and every file (version 1
 * or 2) reads with ustctl_session_read(), which leaves these parts out.
 */
struct ustctl_tracefile_conf {
	char *channel;			/* "*": every channel */
	uint64_t size;			/* at least USTCTL_TRACEFILE_SIZE_MIN */
	uint32_t count;			/* 0: keep every file */
};
struct ustctl_trigger_conf {
	char *pattern;
	char *filter;			/* NULL or "": none */
	char *dir;			/* NULL or "": the session's directory */
	unsigned at_most;		/* snapshots a minute, 0: no limit */
};
struct ustctl_session_extra {
	char *name;			/* the ustd session's; NULL for none */
	int overwrite;			/* a flight-recorder session */
	struct ustctl_tracefile_conf *tracefiles;
	size_t nr_tracefiles;
	/* every_us, size and on_rotate all 0: no schedule; on_rotate is
	 * malloc'd in what libustctl returns */
	struct ustctl_rotation rotation;
	struct ustctl_trigger_conf *triggers;
	size_t nr_triggers;
	/* Since LIBUSTCTL_4.4_TRACKERS: the session's process trackers, as
	 * struct ustctl_session_status holds them (a kind with the value ""
	 * tracks a set of values, even none). Appended: an extra read or
	 * described by libustctl is allocated by it; one a caller fills for
	 * ustctl_session_file_write() is zeroed first. */
	struct ustctl_session_tracker *trackers;
	size_t nr_trackers;
	/* Since LIBUSTCTL_4.5_BUFFERS: enum ustctl_buffers (0, per process,
	 * in a structure zeroed first). Appended, as trackers were. */
	int buffers;
};
void ustctl_session_extra_free(struct ustctl_session_extra *extra);
/*
 * The trackers of extra as the requests that make them, one per kind
 * present, in the order pid, procname, uid: fn(arg, 1, kind, values, nr)
 * for a kind that tracks values, fn(arg, 0, kind, {"*"}, 1) for one that
 * tracks none (as ustctl_session_track() takes them). Stops at the first
 * negative return of fn and returns it; 0, or -ENOMEM.
 */
int ustctl_session_extra_track_each(const struct ustctl_session_extra *extra,
				    int (*fn)(void *arg, int track, const char *kind,
					      const char *const *values, size_t nr),
				    void *arg);
/* The limits extra holds for channel (its own, not those of "*"), or NULL. */
const struct ustctl_tracefile_conf *ustctl_session_extra_tracefile(
	const struct ustctl_session_extra *extra, const char *channel);
/* As ustctl_session_read() and _write(), with the extra parts (extra
 * NULL on writing: none). */
int ustctl_session_file_read(const char *file, struct ustctl_session **session,
			     struct ustctl_session_extra **extra);
int ustctl_session_file_write(const char *file, const struct ustctl_session *session,
			      const struct ustctl_session_extra *extra);

/* A process's tracefile limits of the channels session holds settings
 * of (the trace's own, from ustctl_get_session()); and a file applied
 * whole to a process: the limits, then ustctl_apply_session(), all or
 * nothing. The other extra parts concern ustd's sessions only. */
int ustctl_get_session_extra(pid_t pid, const char *trace, const struct ustctl_session *session,
			     struct ustctl_session_extra **extra);
int ustctl_apply_session_extra(pid_t pid, const char *trace, const struct ustctl_session *session,
			       const struct ustctl_session_extra *extra);

/* Tracefile limits of channel ("*": every channel) in ustd's session
 * name, before its first start; ustd gives them to the streams of its
 * programs, in place of the programs' own. */
int ustctl_session_set_tracefile(const char *name, const char *channel, uint64_t size,
				 uint32_t count);
/* Ustd's session name as a session file would hold it (extra->name is
 * name; output "" when the session writes in ustd's directory). */
int ustctl_describe_session(const char *name, struct ustctl_session **session,
			    struct ustctl_session_extra **extra);
/* Creates ustd's session name (NULL: extra's) with all of session and
 * extra; on any refusal the session is destroyed again: nothing changed.
 * *dir (malloc'd) is the session's directory. */
int ustctl_create_session_from(const char *name, const struct ustctl_session *session,
			       const struct ustctl_session_extra *extra, char **dir);
/* Convenience: describe + write; read + create (name NULL: the file's). */
int ustctl_save_ustd_session(const char *name, const char *file);
int ustctl_load_ustd_session(const char *file, const char *name, char **dir);

/*
 * The files ustd keeps of its own sessions, to resume them when it starts
 * again (symbol version LIBUSTCTL_4.4_RESUME): a session file (version 2)
 * with a <resume> element last, which ustctl_session_file_read() and
 * load-session leave out.
 */
enum ustctl_resume_state {
	USTCTL_RESUME_CREATED,
	USTCTL_RESUME_ACTIVE,
	USTCTL_RESUME_STOPPED,
};
struct ustctl_session_resume {
	int state;			/* enum ustctl_resume_state */
	char *dir;			/* the session's directory, absolute */
	unsigned chunks;		/* rotation: chunks archived so far */
	long long chunk_begin;		/* and when the current one began (Unix
					 * time; 0: before the first start) */
};
/* SESSION_DESCRIBE's strings (ustd's description of session name, as
 * ustctl_describe_session() reads them) to a session and its extra parts. */
int ustctl_session_from_description(const char *name, const char *const *args, size_t nr,
				    struct ustctl_session **session,
				    struct ustctl_session_extra **extra);
/* Written whole under a temporary name, then renamed over file. */
int ustctl_session_resume_write(const char *file, const struct ustctl_session *session,
				const struct ustctl_session_extra *extra,
				const struct ustctl_session_resume *resume);
/* A file without a <resume> element fails with -ENODATA. */
int ustctl_session_resume_read(const char *file, struct ustctl_session **session,
			       struct ustctl_session_extra **extra,
			       struct ustctl_session_resume *resume);
void ustctl_session_resume_release(struct ustctl_session_resume *resume);

#ifdef __cplusplus
}
#endif

#endif
