/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The command table (command_table.h): above every command, which it
 * names, so that the commands and the checks they share (command.c) never
 * call back up into it.
 */
#include <string.h>
#include "libustcomm/common.h"
#include "ustctl/command.h"
#include "ustctl/command_table.h"

#define SUBBUF_SIZE_HELP \
	"BYTES is a power of two from 4096 to 64M; k (1024) and M (1048576)\n" \
	"suffixes are allowed. Only before the trace is allocated.\n"
#define SUBBUF_NUM_HELP \
	"N is a power of two from 2 to 256. Only before the trace is allocated.\n"

const struct ustctl_cmd ustctl_commands[] = {
	{ "list-pids", "", "list the processes that can be controlled",
	  "Lists the processes that have a control socket in the run directory\n"
	  "($UST_RUNDIR/apps), one per line, and removes the sockets of processes\n"
	  "that died.\n",
	  false, 0, 0, ustctl_cmd_list_pids },
	{ "list-markers", "PID", "list the markers and events of a process",
	  "Lists every marker and event of process PID: its name, whether it is\n"
	  "enabled, its format (quoted) or its fields (in parentheses), and the\n"
	  "objects (executable, libraries) holding its sites.\n",
	  false, 1, 1, ustctl_cmd_list_markers },
	{ "enable-marker", "[-t TRACE] [--filter EXPR] [--loglevel[-only] LEVEL] PID PATTERN... | -s NAME [--filter EXPR] [--loglevel[-only] LEVEL] PATTERN...",
	  "enable markers and events",
	  "Enables the markers and events matching each PATTERN: a full name\n"
	  "(channel:name or provider:name), the classic channel/name, or a glob\n"
	  "such as 'ust:*' or '*'. A pattern also applies to objects the program\n"
	  "loads later. --loglevel WARNING keeps the events of that level or more\n"
	  "severe, --loglevel-only WARNING those of exactly it. --filter EXPR\n"
	  "records an event only when EXPR holds for its fields, as in\n"
	  "'status >= 500 && path == \"/api*\"' or '$ctx.vtid == 1234'; it is\n"
	  "checked against the fields of the events the pattern matches.\n"
	  "With -s NAME instead of PID, the rules go to ustd's session NAME,\n"
	  "for every program it traces, now and later; the filter is then\n"
	  "checked for its syntax only.\n",
	  true, 2, -1, ustctl_cmd_enable_marker, .takes_rule = true, .takes_session = true },
	{ "disable-marker", "[-t TRACE] PID PATTERN... | -s NAME PATTERN...",
	  "disable markers and events",
	  "Disables the markers and events matching each PATTERN (see\n"
	  "enable-marker), in process PID or in ustd's session NAME.\n",
	  true, 2, -1, ustctl_cmd_disable_marker, .takes_session = true },
	{ "create-trace", "[-t TRACE] [-o DIR | -r URL] PID...", "create a trace",
	  "Creates trace TRACE in each process. It goes where its ustd puts\n"
	  "traces, or under DIR (created if needed; relative to the current\n"
	  "directory), or to the lttng-relayd at URL,\n"
	  "net://HOST[:CONTROL_PORT[:DATA_PORT]] (ports 5342 and 5343 by\n"
	  "default), which must accept connections now. The choice is fixed once\n"
	  "the trace's buffers are allocated.\n",
	  true, 1, -1, ustctl_cmd_trace_op, NULL, "created", .takes_dir = true,
	  .takes_relay = true },
	{ "alloc-trace", "[-t TRACE] PID...", "allocate the buffers of a trace",
	  "Allocates the buffers of trace TRACE in each process and hands them to\n"
	  "ustd; the sub-buffer sizes and counts are fixed from then on.\n",
	  true, 1, -1, ustctl_cmd_trace_op,
	  ustctl_alloc_trace, "allocated" },
	{ "start-trace", "[-t TRACE] PID...", "start recording",
	  "Starts recording trace TRACE in each process.\n",
	  true, 1, -1, ustctl_cmd_trace_op,
	  ustctl_start_trace, "started" },
	{ "stop-trace", "[-t TRACE] PID...", "stop recording",
	  "Stops recording trace TRACE in each process.\n",
	  true, 1, -1, ustctl_cmd_trace_op,
	  ustctl_stop_trace, "stopped" },
	{ "destroy-trace", "[-t TRACE] PID...", "destroy a trace once it is on disk",
	  "Destroys trace TRACE in each process; returns once ustd has written all\n"
	  "of it to disk.\n",
	  true, 1, -1, ustctl_cmd_trace_op,
	  ustctl_destroy_trace, "destroyed" },
	{ "force-switch", "[-t TRACE] PID...", "hand the current packets to ustd",
	  "Closes the current packet of every buffer of trace TRACE in each\n"
	  "process, so that ustd writes what was recorded so far.\n",
	  true, 1, -1, ustctl_cmd_trace_op,
	  ustctl_force_switch, "switched" },
	{ "snapshot", "[-o DIR] [-t TRACE] PID... | -s NAME [-o DIR]",
	  "write a flight-recorder trace's buffers to disk",
	  "Has ustd copy what the buffers of trace TRACE hold now into a new\n"
	  "directory, one per process, in DIR (default: ustd's output directory;\n"
	  "created if needed), and prints that directory. The trace goes on\n"
	  "recording. Only for flight-recorder traces: programs started with\n"
	  "UST_OVERWRITE=1 (usttrace --overwrite). Each process may take the\n"
	  "timeout plus 10 s to answer.\n"
	  "With -s NAME, a snapshot of every process of ustd's session NAME, as\n"
	  "lttng snapshot record: one new directory, DIR/snapshot-N (default\n"
	  "<session dir>/snapshots/snapshot-N), holding a directory per process,\n"
	  "which babeltrace2 reads merged. Refused for a session not created\n"
	  "with --overwrite, and for one that is not active.\n",
	  true, 1, -1, ustctl_cmd_snapshot, .takes_dir = true, .takes_session = true },
	{ "add-context", "[-t TRACE] PID CHANNEL CONTEXT... | -s NAME CHANNEL CONTEXT...",
	  "record contexts with each event",
	  "Records each CONTEXT with every event of CHANNEL in trace TRACE, or of\n"
	  "every channel when CHANNEL is '*': vpid, vtid, procname, pthread_id,\n"
	  "ip (the address of the instrumentation site), and the thread's perf\n"
	  "counters perf:thread:cycles, perf:thread:instructions,\n"
	  "perf:thread:cache-misses and perf:thread:page-faults, counted in user\n"
	  "space only. babeltrace2 shows them before each event's fields. Only\n"
	  "before the trace is allocated; list-contexts says which perf counters\n"
	  "this machine has. With -s NAME instead of PID, the session NAME's\n"
	  "traces record them (before the session's first start).\n",
	  true, 3, -1, ustctl_cmd_add_context, .takes_session = true },
	{ "list-contexts", "", "list the contexts add-context knows",
	  "Lists the contexts add-context accepts, their size in each event, and\n"
	  "for perf counters this machine lacks, why.\n",
	  false, 0, 0, ustctl_cmd_list_contexts },
	{ "set-subbuf-size", "[-t TRACE] PID CHANNEL/BYTES", "set a channel's sub-buffer size",
	  "Sets the sub-buffer (packet) size of CHANNEL in trace TRACE.\n" SUBBUF_SIZE_HELP,
	  true, 2, 2, ustctl_cmd_set_subbuf },
	{ "set-subbuf-num", "[-t TRACE] PID CHANNEL/N", "set a channel's sub-buffer count",
	  "Sets the number of sub-buffers per buffer of CHANNEL in trace TRACE.\n"
	  SUBBUF_NUM_HELP,
	  true, 2, 2, ustctl_cmd_set_subbuf },
	{ "get-subbuf-size", "[-t TRACE] PID CHANNEL", "print a channel's sub-buffer size",
	  "Prints the sub-buffer size of CHANNEL in trace TRACE, in bytes.\n",
	  true, 2, 2, ustctl_cmd_get_subbuf },
	{ "get-subbuf-num", "[-t TRACE] PID CHANNEL", "print a channel's sub-buffer count",
	  "Prints the number of sub-buffers per buffer of CHANNEL in trace TRACE.\n",
	  true, 2, 2, ustctl_cmd_get_subbuf },
	{ "set-blocking-timeout", "[-t TRACE] PID CHANNEL/TIMEOUT",
	  "wait for ustd instead of discarding when a buffer is full",
	  "Sets how long a writer that finds a buffer of CHANNEL full (or of every\n"
	  "channel without its own setting, when CHANNEL is '*') waits for ustd to\n"
	  "free a sub-buffer before it discards the event: 0 never waits (the\n"
	  "default), inf waits as long as ustd lives, other values are\n"
	  "microseconds, or with a suffix us, ms or s (500ms), up to about 71\n"
	  "minutes. A writer in a signal handler never waits; after a wait that\n"
	  "timed out, the buffer's writers discard at once until ustd frees a\n"
	  "sub-buffer again. Takes effect at once, even while the trace runs.\n",
	  true, 2, 2, ustctl_cmd_set_blocking },
	{ "get-blocking-timeout", "[-t TRACE] PID CHANNEL", "print a channel's blocking timeout",
	  "Prints the blocking timeout of CHANNEL in trace TRACE: inf, or\n"
	  "microseconds (0: never waits).\n",
	  true, 2, 2, ustctl_cmd_get_blocking },
	{ "set-tracefile", "[-t TRACE] PID CHANNEL/SIZE[/COUNT] | -s NAME CHANNEL/SIZE[/COUNT]",
	  "bound the disk a channel's trace files take",
	  "Has ustd cut each stream of CHANNEL in trace TRACE (of every channel\n"
	  "without its own setting, when CHANNEL is '*') into files\n"
	  "<channel>_<cpu>_<k> of at most SIZE bytes of whole packets (k, M or G\n"
	  "suffix allowed; at least 4096; 0: one file per stream) and keep only\n"
	  "the newest COUNT of them (0 or absent: all), as LTTng's\n"
	  "--tracefile-size and --tracefile-count. Only before the trace is\n"
	  "allocated. With -s NAME instead of PID, the limits are session NAME's\n"
	  "(before its first start; SIZE at least 4096): ustd gives them to the\n"
	  "streams of every program of the session, in place of their own.\n",
	  true, 2, 2, ustctl_cmd_set_tracefile, .takes_session = true },
	{ "get-tracefile", "[-t TRACE] PID CHANNEL", "print a channel's tracefile size and count",
	  "Prints the tracefile size (bytes, 0: one file) and count (0: all) of\n"
	  "CHANNEL in trace TRACE, as SIZE/COUNT.\n",
	  true, 2, 2, ustctl_cmd_get_tracefile },
	{ "set-sock-path", "PID PATH", "choose the ustd a process reports to",
	  "Makes process PID send the traces it starts from now on to the ustd\n"
	  "listening on PATH.\n",
	  false, 2, 2, ustctl_cmd_set_sock_path },
	{ "get-sock-path", "PID", "print the ustd socket of a process",
	  "Prints the path of the ustd socket process PID reports its traces to.\n",
	  false, 1, 1, ustctl_cmd_get_sock_path },
	{ "save-session", "[-t TRACE] PID FILE.xml | -s NAME FILE.xml",
	  "save a trace's or a session's settings to a file",
	  "Writes the output (when one was chosen), the enable and disable rules\n"
	  "and the channel settings of trace TRACE in process PID to FILE.xml, a\n"
	  "session file that load-session and usttrace --session read.\n"
	  "With -s NAME, writes ustd's session NAME whole: its name, output\n"
	  "(directory or relayd URL), flight-recorder mode, channel settings with their contexts\n"
	  "and tracefile limits, rules, rotation schedule, triggers and process\n"
	  "trackers, and says so: how many rules, channel settings, tracefile\n"
	  "limits, triggers and trackers, then the schedule and what the trackers\n"
	  "track, a line each (load-session without PID says the same).\n",
	  true, 2, 2, ustctl_cmd_save_session, .takes_session = true },
	{ "load-session", "[-t TRACE] PID FILE.xml | [-s NAME] FILE.xml", "apply a session file",
	  "Reads FILE.xml and applies it to trace TRACE in process PID: first the\n"
	  "output (as create-trace -o or -r; the trace's buffers must not be\n"
	  "allocated yet), then the channel settings, then the rules in order.\n"
	  "Without PID, creates a session in ustd from the file (saved with\n"
	  "save-session -s), named as in the file or NAME, with everything the\n"
	  "file holds, or nothing when any of it is refused; start it with\n"
	  "start-session.\n"
	  "FILE may also be a file of LTTng's \"lttng save\" (lttng-tools 2.13):\n"
	  "what UST honours of it is loaded (name, output, the user-space domain's\n"
	  "channels, events, contexts, snapshot mode, rotation, vpid and vuid\n"
	  "trackers as pid and uid trackers), each thing it does not is named in a\n"
	  "warning; one with no user-space event is refused.\n",
	  true, 1, 2, ustctl_cmd_load_session, .takes_session = true },
	{ "info", "PID", "describe a process",
	  "Prints the name of process PID, its libust version, and its trace and\n"
	  "the trace's state.\n",
	  false, 1, 1, ustctl_cmd_info },
	{ "create-session", "[-o DIR | -r URL] [--overwrite] [--buffers-pid | --buffers-uid] [--subbuf-size BYTES] [--subbuf-num N] [--tracefile-size BYTES [--tracefile-count N]] [--rotate-every DURATION] [--rotate-size BYTES] [--on-rotate CMD [--on-rotate-timeout DURATION]] NAME",
	  "create a session in ustd, for every program",
	  "Creates session NAME in ustd: a set of rules and channel settings\n"
	  "that, once started, applies to every program of yours linked with\n"
	  "-lust, those running and those started later. Its traces go in\n"
	  "DIR/NAME-YYYYMMDD-HHMMSS/<procname>-<pid>/ (DIR: ustd's output\n"
	  "directory by default), which babeltrace2 reads whole, merged by time.\n"
	  "--overwrite makes its traces flight recorders. NAME: letters, digits,\n"
	  "'_', '.' and '-', at most 47. Add rules with enable-marker -s NAME.\n"
	  "-r net://HOST[:CONTROL_PORT[:DATA_PORT]] streams every trace of the\n"
	  "session to that lttng-relayd instead, as one relay session NAME (one\n"
	  "for live viewers), in HOSTNAME/NAME-YYYYMMDD-HHMMSS/<procname>-<pid>/\n"
	  "under relayd's output; if relayd goes away, the rest goes to the same\n"
	  "layout in ustd's output directory. Not with --overwrite or --rotate-*.\n"
	  "--buffers-uid: the processes of one user share one set of buffers per\n"
	  "channel and CPU, held by ustd, as LTTng's --buffers-uid (manual 4.6);\n"
	  "--buffers-pid (the default): each process has its own. Per-user\n"
	  "buffers are for local sessions that are no flight recorder in this\n"
	  "version: not with --overwrite or -r.\n"
	  SUBBUF_SIZE_HELP
	  "--rotate-every DURATION (100ms to 31 days: 500ms, 1s, 10m, 2h) and\n"
	  "--rotate-size BYTES (k, M, G suffixes) archive the current chunk on a\n"
	  "schedule, as rotate-session does. --on-rotate CMD runs the shell command\n"
	  "CMD with each archived chunk's path as its last argument; ustd reports\n"
	  "its failure and kills it after --on-rotate-timeout (default 5m).\n"
	  "--tracefile-size BYTES (at least 4096) cuts each stream of every\n"
	  "program of the session into files of at most BYTES, of which\n"
	  "--tracefile-count N are kept (set-tracefile -s sets them per channel).\n",
	  false, 1, 1, ustctl_cmd_create_session, .takes_dir = true, .takes_relay = true,
	  .session_opts = true },
	{ "start-session", "NAME", "start a session in every program",
	  "Starts session NAME: every running program whose events its rules\n"
	  "match starts its trace of the session, and so does every program that\n"
	  "starts while the session is active, from its first event on. Returns\n"
	  "once the running programs answered. A process holds one trace: those\n"
	  "that match but trace another session are left alone, and counted by\n"
	  "the session they trace.\n",
	  false, 1, 1, ustctl_cmd_session_op },
	{ "stop-session", "NAME", "stop a session's traces",
	  "Stops the traces of session NAME; programs that start now no longer\n"
	  "join it. start-session resumes it in the same directory.\n",
	  false, 1, 1, ustctl_cmd_session_op },
	{ "destroy-session", "NAME", "end a session; its traces are then complete on disk",
	  "Ends the traces of session NAME in every program (ustd writes their\n"
	  "last events first) and forgets the session.\n",
	  false, 1, 1, ustctl_cmd_session_op },
	{ "rotate-session", "NAME", "archive a session's current chunk",
	  "Closes off the current chunk of session NAME, every process's trace\n"
	  "since the session started or last rotated, as a complete trace of its\n"
	  "own in <session dir>/archives/<begin>-<end>-<n>/ (times as\n"
	  "YYYYMMDDTHHMMSS+HHMM, n from 0), and prints its path. Tracing goes on\n"
	  "into the next chunk; each packet is in exactly one chunk. An active\n"
	  "session rotates at any time, a stopped one once.\n",
	  false, 1, 1, ustctl_cmd_rotate_session },
	{ "enable-rotation", "-s NAME [--every DURATION] [--size BYTES] [--on-rotate CMD [--on-rotate-timeout DURATION]]",
	  "rotate a session on a schedule",
	  "Sets the rotation schedule of session NAME, at any time: --every\n"
	  "DURATION (100ms to 31 days: 500ms, 1s, 10m, 2h) and --size BYTES (k,\n"
	  "M, G suffixes) archive the current chunk as rotate-session does;\n"
	  "--on-rotate CMD runs the shell command CMD with each chunk's path as\n"
	  "its last argument, killed after --on-rotate-timeout (default 5m). What\n"
	  "is not given keeps its setting. A flight-recorder session has no\n"
	  "rotation.\n",
	  false, 0, 0, ustctl_cmd_enable_rotation, .takes_session = true, .rotation_opts = true },
	{ "disable-rotation", "-s NAME", "stop rotating a session on a schedule",
	  "Removes the rotation schedule of session NAME, --on-rotate command\n"
	  "included; rotate-session still rotates it.\n",
	  false, 0, 0, ustctl_cmd_disable_rotation, .takes_session = true },
	{ "list-sessions", "[NAME]", "list ustd's sessions, or one in detail",
	  "Lists ustd's sessions: name, state, number of programs tracing for\n"
	  "it, number of rules, directory; then, indented, its rotation schedule\n"
	  "and its triggers with their counts.\n"
	  "With NAME, session NAME in detail, as lttng list NAME: its state,\n"
	  "output, channels (sub-buffers, tracefile limits, contexts), rules\n"
	  "(patterns, log levels, filters), rotation schedule and chunks\n"
	  "archived, triggers, trackers, the processes tracing for it (pid and\n"
	  "name), the bytes in its directory and the events its processes\n"
	  "discarded, those that ended included. An unknown NAME fails (exit 1).\n",
	  false, 0, 1, ustctl_cmd_list_sessions },
	{ "clear-session", "NAME", "discard what a session recorded so far",
	  "Discards what session NAME recorded so far while it goes on tracing,\n"
	  "as lttng clear: for a session written to disk, the files of its\n"
	  "current chunk (every process's trace since the first start or the\n"
	  "last rotation, those of processes that ended included; archived\n"
	  "chunks stay); for a flight-recorder session, what its buffers hold\n"
	  "(the next snapshot begins after the clear; snapshots taken stay).\n"
	  "Refused for a session streamed to lttng-relayd.\n",
	  false, 1, 1, ustctl_cmd_clear_session },
	{ "track", "-s NAME --pid PID... | --procname NAME... | --uid UID... | --pid|--procname|--uid --all",
	  "restrict a session to some processes",
	  "Adds values to a process tracker of session NAME, as lttng track. A\n"
	  "session takes every process; once a kind is tracked, only processes\n"
	  "whose pid, name (its first 15 characters, as /proc/PID/comm) or real\n"
	  "uid is in the list of that kind join it, running ones (now, when the\n"
	  "session is active) and those started later. A process must pass\n"
	  "every kind tracked. --all: every process of that kind again. A fork\n"
	  "child is tested with its own pid: a tracked pid's child does not\n"
	  "trace (when its parent joined through ustd, not by itself, ustd\n"
	  "stops the child's trace when it says hello).\n",
	  false, 0, -1, ustctl_cmd_track, .takes_session = true, .takes_tracker = true },
	{ "untrack", "-s NAME --pid PID... | --procname NAME... | --uid UID... | --pid|--procname|--uid --all",
	  "remove processes from a session's trackers",
	  "Removes values from a process tracker of session NAME, as lttng\n"
	  "untrack. A process of the session that no longer passes the trackers\n"
	  "stops recording (its trace so far stays in the session's directory);\n"
	  "tracked again, it records again. Untracking the last value of a kind\n"
	  "leaves the session with no process of that kind; --all does so at\n"
	  "once (track --all takes every process again).\n",
	  false, 0, -1, ustctl_cmd_track, .takes_session = true, .takes_tracker = true },
	{ "add-trigger", "[-t TRACE] PID | -s NAME, --on PATTERN [--filter EXPR] --snapshot [-o DIR] [--at-most N/MINUTE]",
	  "take a snapshot when an event is recorded",
	  "Adds a trigger to process PID: whenever an event matching PATTERN is\n"
	  "recorded by trace TRACE and EXPR holds for its fields (as in\n"
	  "enable-marker --filter), ustd writes a snapshot of the trace's buffers\n"
	  "into a new directory in DIR (default: ustd's output directory), as the\n"
	  "snapshot command does; it holds the event and what came before it.\n"
	  "--at-most N/MINUTE takes at most N snapshots in any minute (1 to 600);\n"
	  "ustd counts and reports the firings beyond. The program itself tells\n"
	  "ustd at most once a millisecond per trigger. Only events that are\n"
	  "recorded fire a trigger, and snapshots need a flight-recorder trace\n"
	  "(UST_OVERWRITE=1, usttrace --overwrite). Prints the trigger's number.\n"
	  "With -s NAME instead of PID, the trigger is session NAME's (created\n"
	  "with --overwrite): a matching event in any of its programs, present\n"
	  "or started later, makes ustd snapshot every program of the session into\n"
	  "one new directory, <session dir>/triggers/trigger-ID/firing-K/ (or\n"
	  "DIR/NAME-trigger-ID/firing-K/), a sub-directory per process;\n"
	  "--at-most counts the snapshots of the whole session.\n",
	  true, 1, 1, ustctl_cmd_add_trigger, .takes_dir = true, .takes_trigger = true,
	  .takes_session = true },
	{ "list-triggers", "[-t TRACE] PID | -s NAME", "list the triggers of a process or session",
	  "Lists the triggers of process PID: number, pattern, filter, snapshot\n"
	  "directory, rate limit, and how many events fired each, how many\n"
	  "firings the program told ustd of and how many it held back. With\n"
	  "-s NAME, the triggers of session NAME: number, pattern, filter, the\n"
	  "trigger's directory, rate limit, and how many firings ustd heard of\n"
	  "from all the session's processes, snapshotted (firing-K directories\n"
	  "written), over the limit, failed (no directory written).\n",
	  true, 1, 1, ustctl_cmd_list_triggers, .takes_session = true },
	{ "remove-trigger", "[-t TRACE] PID ID | -s NAME ID", "remove a trigger",
	  "Removes trigger ID (see list-triggers) from process PID, or with\n"
	  "-s NAME from session NAME and every program of it.\n",
	  true, 2, 2, ustctl_cmd_remove_trigger, .takes_session = true },
};

const size_t ustctl_nr_commands = UST_ARRAY_SIZE(ustctl_commands);

const struct ustctl_cmd *ustctl_find_command(const char *name)
{
	size_t i;

	for (i = 0; i < ustctl_nr_commands; i++)
		if (!strcmp(ustctl_commands[i].name, name))
			return &ustctl_commands[i];
	return NULL;
}
