/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The trace of this process and the rules that enable its events.
 *
 * One trace at a time, named ("auto" by default), moving through
 * none -> created -> allocated -> started <-> stopped -> (destroyed) none.
 * Allocation connects to ustd and creates the buffers of every enabled
 * event's channel; start makes the enabled sites write. The enable rules
 * (pattern, enable or disable; the last matching rule wins) and the
 * channel settings belong to the process and outlive traces (rules.h).
 *
 * Every function here runs under ust_lock(), from a constructor, the exit
 * path, or the control server, which may be a signal handler: they are
 * async-signal-safe (system calls, ustcomm_format, ust_zalloc; see
 * control.c for the argument). They return 0 or a negative errno and, on
 * failure, leave the reason in words in ust_trace_error().
 */
#ifndef UST_TRACE_H
#define UST_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include "libust/registry.h"
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/shm_layout.h"
#include "libustcomm/strbuf.h"

enum ust_trace_state {
	UST_TRACE_NONE,
	UST_TRACE_CREATED,
	UST_TRACE_ALLOCATED,
	UST_TRACE_STARTED,
	UST_TRACE_STOPPED,
};

/* Start-up settings, taken from the environment in a normal context. */
struct ust_trace_config {
	char procname[17];
	char hostname[65];
	char daemon_path[108];		/* fits a sockaddr_un */
	uint32_t nr_cpus;		/* possible CPUs: one buffer each */
	/* Thread buffers (thread_buffer.h, UST_THREAD_BUFFERS): nr_threads
	 * for the channel thread_channel, or for every channel if "". */
	uint32_t nr_threads;
	char thread_channel[UST_SHM_CHANNEL_NAME_MAX];
	/* Sub-buffers of channels without settings; def_num 0: as many as
	 * ust_subbuf_num_default() gives the channel's buffers. */
	uint32_t def_size, def_num;
	int overwrite;			/* flight recorder (UST_OVERWRITE) */
	/* Buffers per user: a session's (SET_OVERWRITE's third argument);
	 * the channels are ustd's shared rings (trace_uid.c). */
	int per_uid;
};

void ust_trace_init(const struct ust_trace_config *config);

const char *ust_trace_error(void);
/* The name of the trace (or "") and its state's name. */
const char *ust_trace_name(void);
const char *ust_trace_procname(void);
const char *ust_trace_state_name(void);
enum ust_trace_state ust_trace_state(void);
/* Makes the pages of every buffer not made yet (channel.h). */
void ust_trace_populate(void);
/*
 * One buffer whose pages are still to be made, or NULL: for the listener
 * thread, which makes them (ust_rb_populate()) after ust_unlock(), so that
 * the program's threads are not kept waiting for the lock meanwhile
 * (milliseconds a buffer). A buffer's memory is never unmapped while
 * another thread may touch it (channel.h).
 */
struct ust_rb *ust_trace_unpopulated(void);

/* output: where the trace goes (trace_output.h); NULL or "" keeps what
 * ust_trace_set_output() chose, or ustd's choice. */
int ust_trace_create(const char *name, const char *output);
int ust_trace_alloc(const char *name);
int ust_trace_start(const char *name);
int ust_trace_stop(const char *name);
/* Flushes, tells ustd and waits (bounded) until it has written everything. */
int ust_trace_destroy(const char *name);
int ust_trace_force_switch(const char *name);
/*
 * Flight recorder: closes the open packets and has ustd write the rings'
 * contents as a trace in a new directory under dir (absolute; "" for
 * ustd's output directory) while tracing goes on; waits (bounded) for it
 * and puts that directory's path in path.
 */
int ust_trace_snapshot(const char *name, const char *dir, char *path, size_t path_size);

struct ust_rule_spec;
/* Adds a rule (rules.h) and applies the rules to every known event;
 * returns how many events the rule matches. */
int ust_trace_add_rule(const char *name, const struct ust_rule_spec *spec);
/* A plain enable (or disable) rule for each of nr patterns, all or none
 * (ENABLE_MARKER, DISABLE_MARKER): the matches of each summed. */
int ust_trace_add_marker_rules(const char *name, const char *const *patterns, size_t nr,
			       int enable);
/* The events a plain rule of pattern (no level, no filter) matches now:
 * ENABLE_MARKER's answer per pattern. */
uint32_t ust_trace_marker_matches(const char *pattern, int enable);

struct ust_trigger_spec;
/* Adds a trigger (trigger.h) to trace name and applies it to every known
 * event; *id is its number. */
int ust_trace_add_trigger(const char *name, const struct ust_trigger_spec *spec, uint32_t *id);
/* Removes trigger id of trace name; its events stop firing at once. */
int ust_trace_remove_trigger(const char *name, uint32_t id);

/*
 * LOAD_SESSION (ctl_protocol.h): the output, the channel settings and the
 * rules of msg, all or nothing. Returns the number of rules the process
 * holds, or a negative errno with everything as it was.
 */
int ust_trace_load_session(const struct ustcomm_ctl_msg *msg);

int ust_trace_set_subbuf(const char *name, const char *channel, int is_num, uint32_t value);
/* Records context (a name of event_context.h) with every event of channel
 * ("*": of every channel); only before the buffers are allocated. */
int ust_trace_add_context(const char *name, const char *channel, const char *context);
int ust_trace_get_subbuf(const char *name, const char *channel, int is_num, uint32_t *value);
/* The blocking timeout of channel ("*": of every channel without its own),
 * as users write it (libustcomm/blocking.h); at any time, applied at once
 * to the buffers that exist. get gives the timeout channel has. */
int ust_trace_set_blocking(const char *name, const char *channel, const char *value);
int ust_trace_get_blocking(const char *name, const char *channel, char *value, size_t len);
/* Bounded disk (libustcomm/bufsize.h) of channel ("*": of every channel
 * without its own): limits "SIZE[/COUNT]", SIZE as users write it, COUNT
 * decimal (absent: 0); only before the buffers are allocated. */
int ust_trace_set_tracefile(const char *name, const char *channel, const char *limits);
/* The limits channel has: its own, else those of "*", else 0 and 0. */
int ust_trace_get_tracefile(const char *name, const char *channel, uint64_t *size,
			    uint32_t *count);
/* Gives each channel's buffers the blocking timeout its settings say. */
void ust_trace_apply_blocking(void);
/* Flight-recorder mode (UST_OVERWRITE) of the trace's buffers; only
 * before they are allocated. */
int ust_trace_set_overwrite(const char *name, int overwrite);
/* Buffers per user (1) or per process (0), before the buffers are made. */
int ust_trace_set_per_uid(const char *name, int per_uid);
/* The selected trace, when it has buffers per user and its ustd is gone:
 * ended (1), so that its slot is free for the session the next ustd
 * resumes; else 0. Async-signal-safe. */
int ust_trace_end_lost_uid(void);
/* Until the buffers are allocated; destroying the trace forgets it. */
int ust_trace_set_output(const char *name, const char *output);
int ust_trace_set_daemon_path(const char *path);
const char *ust_trace_daemon_path(void);

/* Appends the GET_SESSION reply strings (ctl_protocol.h) to sb, and
 * their number to *nr. */
int ust_trace_describe_session(const char *name, struct ustcomm_strbuf *sb, uint32_t *nr);

/* An event appeared (object loaded): the rules and the running trace apply. */
void ust_trace_event_added(struct ust_event_state *ev);
/* fn runs first in ust_trace_event_added(), under ust_lock: the layer
 * above that starts traces by itself (session_join.h) meets the event
 * before the rules do. Set once, at load time (startup.c). */
void ust_trace_on_event_added(void (*fn)(const struct ust_event_state *ev));

/* Process exit: ends the trace as destroy does. */
void ust_trace_exit(void);

/*
 * A ustd (re)started at path asks for the trace: reconnect to it, describe
 * the trace again and hand it the existing buffers. 0 when there is
 * nothing to hand over (no trace, or no buffers yet); -EALREADY when the
 * trace is connected to that ustd, -EBUSY when another live ustd has it.
 */
int ust_trace_reconnect(const char *path);

/*
 * fork() child (trace_fork.c): forgets the parent's trace, keeps the rules
 * and settings, and, when the parent's trace was started, starts one of
 * its own (new buffers, its own connection to ustd, so its own trace
 * directory) at the child's first event or first control request.
 * Returns 1 when the child's trace waits for that, else 0.
 */
int ust_trace_after_fork_child(void);
/* fn runs, under ust_lock, once a fork() child's trace has been made at
 * its first event (possibly in a signal handler: async-signal-safe). */
void ust_trace_fork_on_resume(void (*fn)(void));
/* Under ust_lock: the child's trace now, if it waits for its first event. */
int ust_trace_fork_resume_locked(void);

#endif
