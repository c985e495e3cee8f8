/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The control protocol between a controller (libustctl: ustctl, usttrace,
 * third parties) and an application's control socket, apps/<pid> in the
 * run directory.
 *
 * One request, one reply, in order, on a stream connection. Both are a
 * fixed header followed by payload_len bytes holding exactly nr_strings
 * NUL-terminated strings, one after the other: the arguments of a request,
 * the results of a reply. A reply with status < 0 (a negative errno) holds
 * one string, the reason in words. Decoding checks the magic, the version,
 * the lengths, that every string is terminated inside the payload, that the
 * count is exact and, for requests, the arity of the command; nothing is
 * read before that.
 *
 * The decoder allocates nothing and calls nothing but memchr(): the
 * application runs it in signal context.
 */
#ifndef USTCOMM_CTL_PROTOCOL_H
#define USTCOMM_CTL_PROTOCOL_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include "libustcomm/common.h"
#include "libustcomm/filter_bytecode.h"

#define USTCOMM_CTL_MAGIC		0x55535443u	/* "USTC" */
#define USTCOMM_CTL_VERSION		5u
/* Requests are small: names, patterns, a path... */
#define USTCOMM_CTL_MAX_REQUEST		65536u
/* ...but for LOAD_SESSION, which carries a whole rule set. */
#define USTCOMM_CTL_RULES_MAX		1024u	/* rules a program holds */
#define USTCOMM_CTL_SESSION_CHANNELS_MAX 65u	/* settings: 64 channels and "*" */
/* Strings per channel in LOAD_SESSION. */
#define USTCOMM_CTL_SESSION_CHANNEL_ARGS 5u
#define USTCOMM_CTL_SESSION_MAX_ARGS	(3u + USTCOMM_CTL_SESSION_CHANNEL_ARGS * USTCOMM_CTL_SESSION_CHANNELS_MAX + \
					 5u * USTCOMM_CTL_RULES_MAX)
/* Each rule at its longest: pattern, level, filter text and its bytecode
 * in hexadecimal (filter_bytecode.h); plus room for the output and the
 * channels. */
#define USTCOMM_CTL_MAX_SESSION_REQUEST	(USTCOMM_CTL_MAX_REQUEST + USTCOMM_CTL_RULES_MAX * \
	(8u + 256u + 8u + (UST_FILTER_TEXT_MAX + 1u) + \
	 2u * (UST_FILTER_CODE_MAX + UST_FILTER_DATA_MAX + 64u) + 1u))
/* Replies list every event of a program. */
#define USTCOMM_CTL_MAX_REPLY		(16u << 20)
#define USTCOMM_CTL_MAX_ARGS		256u
/* How long an application waits for ustd to write a snapshot; controllers
 * add it to their own timeout for USTCOMM_CTL_SNAPSHOT. */
#define USTCOMM_CTL_SNAPSHOT_WAIT_MS	10000
/* Rotation of a session (SESSION_ROTATION): the shortest and longest
 * period, the bound of an --on-rotate command, and the smallest size. */
#define USTCOMM_ROTATE_EVERY_MIN_US	100000ull		/* 100 ms */
#define USTCOMM_ROTATE_EVERY_MAX_US	(31ull * 86400 * 1000000)	/* 31 days */
#define USTCOMM_ON_ROTATE_TIMEOUT_US	(300ull * 1000000)	/* default: 5 min */
#define USTCOMM_ON_ROTATE_TIMEOUT_MIN_US 100000ull
#define USTCOMM_ON_ROTATE_TIMEOUT_MAX_US (86400ull * 1000000)
#define USTCOMM_ROTATE_SIZE_MIN		4096ull
#define USTCOMM_ON_ROTATE_MAX		4096u	/* bytes of the command */
/* Strings per channel in SESSION_DESCRIBE and SESSION_CHANNEL's
 * arguments after the name. */
#define USTCOMM_CTL_DESCRIBE_CHANNEL_ARGS 7u
/* Trace names: what a directory name and a CTF env string can hold. */
#define USTCOMM_CTL_TRACE_NAME_MAX	64u

/*
 * The argument lists (request strings) of each command. TRACE is a trace
 * name, "" for the default ("auto").
 */
enum ustcomm_ctl_cmd {
	/* () -> (pid, procname, version, trace name or "", trace state) */
	USTCOMM_CTL_INFO = 1,
	/* () -> per event, 7 strings: full name, "enabled"|"disabled",
	 * "format" or "fields" kind, the format or "type name, ..." list,
	 * the objects holding its sites, separated by ", ", its log level
	 * (0-14), and its fields as "type name, ..." for markers too */
	USTCOMM_CTL_LIST_MARKERS = 2,
	/* (TRACE, PATTERN...) -> (number of events now matched, then the
	 * number each PATTERN matches; programs of before send the first
	 * only) */
	USTCOMM_CTL_ENABLE_MARKER = 3,
	USTCOMM_CTL_DISABLE_MARKER = 4,
	/* (TRACE[, OUTPUT]) -> (): OUTPUT as in SET_OUTPUT, "" or absent for
	 * the output set before (default: ustd's choice) */
	USTCOMM_CTL_CREATE_TRACE = 5,
	/* (TRACE) -> () */
	USTCOMM_CTL_ALLOC_TRACE = 6,
	USTCOMM_CTL_START_TRACE = 7,
	USTCOMM_CTL_STOP_TRACE = 8,
	USTCOMM_CTL_DESTROY_TRACE = 9,
	USTCOMM_CTL_FORCE_SWITCH = 10,
	/* (TRACE, CHANNEL, VALUE in decimal) -> () */
	USTCOMM_CTL_SET_SUBBUF_SIZE = 11,
	USTCOMM_CTL_SET_SUBBUF_NUM = 12,
	/* (TRACE, CHANNEL) -> (VALUE in decimal) */
	USTCOMM_CTL_GET_SUBBUF_SIZE = 13,
	USTCOMM_CTL_GET_SUBBUF_NUM = 14,
	/* (PATH) -> () */
	USTCOMM_CTL_SET_SOCK_PATH = 15,
	/* () -> (PATH) */
	USTCOMM_CTL_GET_SOCK_PATH = 16,
	/* (TRACE) -> the output, the rules, then the channels:
	 * (OUTPUT, nr_rules, per rule "enable"|"disable", PATTERN, LEVEL and FILTER,
	 *  per channel CHANNEL or "*", SUBBUF_SIZE, SUBBUF_NUM (0 for "*"
	 *  without settings: the default), its own CONTEXTS, separated
	 *  by commas, and its own BLOCKING timeout, "" for none (version 4)) */
	USTCOMM_CTL_GET_SESSION = 17,
	/* (TRACE, DIR: absolute, or "" for ustd's output directory) ->
	 * (the snapshot's directory) */
	USTCOMM_CTL_SNAPSHOT = 18,
	/* (PATH of a ustd socket) -> (): a ustd that started there asks the
	 * application to report its trace to it (ustd restarted) */
	USTCOMM_CTL_RECONNECT = 19,
	/* (TRACE, PATTERN, LEVEL: "", "<=N" or "==N", FILTER: the expression
	 * or "", BYTECODE: its compiled program in hexadecimal or "") ->
	 * (number of events the rule matches now) */
	USTCOMM_CTL_ENABLE_RULE = 20,
	/* (TRACE, CHANNEL or "*" for every channel, CONTEXT: a name of
	 * event_context.h) -> (); before the trace's buffers are allocated */
	USTCOMM_CTL_ADD_CONTEXT = 21,
	/* (TRACE, OUTPUT: "" for ustd's choice, an absolute directory or a
	 * relayd URL, trace_output.h) -> (); before the buffers are allocated */
	USTCOMM_CTL_SET_OUTPUT = 22,
	/*
	 * A whole session, applied all or nothing: (TRACE, OUTPUT or "" to
	 * keep it, NR_CHANNELS, per channel CHANNEL or "*", SUBBUF_SIZE and
	 * SUBBUF_NUM ("0": keep), its CONTEXTS separated by commas and its
	 * BLOCKING timeout (blocking.h's spelling, "": keep), then
	 * per rule "enable"|"disable", PATTERN, LEVEL, FILTER and BYTECODE as
	 * in ENABLE_RULE) -> (number of rules the program holds now). Up to
	 * USTCOMM_CTL_MAX_SESSION_REQUEST bytes and
	 * USTCOMM_CTL_SESSION_MAX_ARGS strings. Every value is checked and
	 * the rules are added to a copy of the program's rules before anything
	 * changes; any refusal leaves the program as it was.
	 */
	USTCOMM_CTL_LOAD_SESSION = 23,
	/* (TRACE, CHANNEL or "*", TIMEOUT: blocking.h's spelling) -> ();
	 * at any time, applied at once to existing buffers */
	USTCOMM_CTL_SET_BLOCKING_TIMEOUT = 24,
	/* (TRACE, CHANNEL) -> (TIMEOUT: "inf" or microseconds in decimal) */
	USTCOMM_CTL_GET_BLOCKING_TIMEOUT = 25,
	/* (TRACE, CHANNEL or "*", LIMITS: "SIZE[/COUNT]", SIZE bytes with
	 * an optional k, M or G suffix, "0" for one file, COUNT decimal, "0"
	 * or absent to keep all) -> (); bounded disk (bufsize.h), before the
	 * buffers are allocated (version 5) */
	USTCOMM_CTL_SET_TRACEFILE = 26,
	/* (TRACE, CHANNEL) -> ("SIZE/COUNT", both decimal) */
	USTCOMM_CTL_GET_TRACEFILE = 27,
	/* (TRACE, PATTERN, FILTER: the expression or "", BYTECODE: as in
	 * ENABLE_RULE, DIR: absolute or "" for the trace's directory,
	 * AT_MOST: snapshots a minute in decimal, "0" for no limit) ->
	 * (ID of the new trigger) */
	USTCOMM_CTL_ADD_TRIGGER = 30,
	/* (TRACE) -> per trigger ID, PATTERN, FILTER, DIR, AT_MOST, then
	 * FIRED (matching events recorded), NOTIFIED (told to ustd), LIMITED
	 * (held back by libust's rate limit), DROPPED (could not be sent:
	 * no ustd, its socket full) and the reason of the last drop, "" */
	USTCOMM_CTL_LIST_TRIGGERS = 31,
	/* (TRACE, ID) -> () */
	USTCOMM_CTL_REMOVE_TRIGGER = 32,
	/*
	 * Sessions (version 5): requests to ustd's session socket
	 * (rundir.h's ustcomm_session_socket_path), never to a program.
	 * NAME is a session name (ustcomm_session_name_valid).
	 * (NAME, OUTPUT: absolute directory or "" for ustd's, OVERWRITE "0"
	 * or "1", SUBBUF_SIZE and SUBBUF_NUM in decimal, "0" for the
	 * default[, BUFFERS: "pid", the default, each process its own
	 * buffers, or "uid", the processes of one user share them]) -> (the
	 * session's directory). BUFFERS "uid" is refused with OVERWRITE "1"
	 * and with a relayd OUTPUT for now. libustctl sends BUFFERS only for
	 * "uid": a ustd of before took exactly 5 strings and refuses 6
	 * (ustcomm_ctl_check_request: "the wrong number of arguments"), so
	 * per-user buffers are never silently made per process.
	 */
	USTCOMM_CTL_SESSION_CREATE = 35,
	/* (NAME, then per rule "enable"|"disable", PATTERN, LEVEL, FILTER and
	 * BYTECODE as in ENABLE_RULE) -> (number of rules the session holds);
	 * a running session applies them to its programs at once */
	USTCOMM_CTL_SESSION_RULES = 36,
	/* (NAME) -> (number of programs the session traces now); start:
	 * then the patterns of enable rules no running program matched, then,
	 * when programs that match were left alone because they trace
	 * another session, "" (no pattern is empty) and per session they
	 * trace its NAME ("" for a trace of no session) and their COUNT */
	USTCOMM_CTL_SESSION_START = 37,
	USTCOMM_CTL_SESSION_STOP = 38,
	/* (NAME) -> () */
	USTCOMM_CTL_SESSION_DESTROY = 39,
	/* () -> per session, 6 strings: NAME, state ("created", "active",
	 * "stopped"), directory, overwrite "0"|"1", number of programs,
	 * number of rules */
	USTCOMM_CTL_SESSION_LIST = 40,
	/* (NAME, CHANNEL or "*", CONTEXT) -> (); before the first start */
	USTCOMM_CTL_SESSION_CONTEXT = 41,
	/* 42: never implemented; SESSION_DESCRIBE (55) took its place. Not
	 * to be reused, so that an old ustctl is refused rather than
	 * misunderstood. */
	/* to a program: (TRACE, "0"|"1"[, BUFFERS "pid"|"uid"]) -> ();
	 * flight-recorder mode of the trace and, when given, whether its
	 * buffers are its own or ustd's per user (protocol.h), before its
	 * buffers are allocated. A program of before refuses BUFFERS, so a
	 * per-user session never gets a process that writes its own. */
	USTCOMM_CTL_SET_OVERWRITE = 43,
	/* to a program: (NAME of a session, then PATTERN and LEVEL of each
	 * of its enable rules, as in ENABLE_RULE, or none to skip the test)
	 * -> (STATE: "free", "nomatch" (none of its events is selected by a
	 * rule), "busy" (it traces for something else), "waiting" (it read
	 * the session at start and starts it at its first matching event), or
	 * the state of its trace NAME: "created", "allocated", "started",
	 * "stopped"; then "1" or "0" per rule given: whether it selects one
	 * of the program's events now; programs of before send STATE only) */
	USTCOMM_CTL_SESSION_STATE = 44,
	/* (NAME) -> (the archived chunk's directory): rotation, ustd's
	 * session socket only */
	USTCOMM_CTL_SESSION_ROTATE = 45,
	/* (NAME, EVERY: microseconds in decimal, "0" for none, SIZE: bytes
	 * in decimal, "0" for none, ON_ROTATE: a shell command or "",
	 * ON_ROTATE_TIMEOUT: microseconds in decimal, "0" for the default)
	 * -> (); the session's rotation schedule, at any time */
	USTCOMM_CTL_SESSION_ROTATION = 46,
	/* (NAME, PATTERN, FILTER, BYTECODE as in ENABLE_RULE, DIR: absolute
	 * or "" for the session's directory, AT_MOST: snapshots a minute in
	 * decimal, "0" for no limit) -> (the trigger's number in the
	 * session); flight-recorder sessions only: a matching event in any of
	 * the session's programs snapshots all of them */
	USTCOMM_CTL_SESSION_TRIGGER = 47,
	/* (NAME) -> per trigger of the session, 9 strings: ID, PATTERN,
	 * FILTER, DIR (the trigger's own: firing-K/ go in it), AT_MOST,
	 * then in decimal the firings, the snapshots taken (firing-K/
	 * written), the firings over AT_MOST and the firings that failed (no
	 * firing-K/ written); the firings are the sum of the other three */
	USTCOMM_CTL_SESSION_LIST_TRIGGERS = 48,
	/* (NAME, ID) -> (); the trigger leaves the session and its programs */
	USTCOMM_CTL_SESSION_REMOVE_TRIGGER = 49,
	/*
	 * (NAME) -> the whole session, what save-session -s writes: OUTPUT
	 * ("" for ustd's directory), OVERWRITE "0"|"1", NR_CHANNELS, per
	 * channel USTCOMM_CTL_DESCRIBE_CHANNEL_ARGS strings (CHANNEL,
	 * SUBBUF_SIZE, SUBBUF_NUM, CONTEXTS, BLOCKING, TRACEFILE_SIZE,
	 * TRACEFILE_COUNT, as SESSION_CHANNEL takes them), NR_RULES, per rule
	 * "enable"|"disable", PATTERN, LEVEL and FILTER, the rotation's EVERY,
	 * SIZE, ON_ROTATE and ON_ROTATE_TIMEOUT as SESSION_ROTATION takes
	 * them, NR_TRIGGERS, per trigger PATTERN, FILTER, DIR ("" for the
	 * session's directory) and AT_MOST, then NR_TRACKED and per tracker
	 * value KIND and VALUE as SESSION_STATUS has them (a ustd of before
	 * trackers ends after the triggers), then "uid" when the session's
	 * buffers are per user (create-session's BUFFERS), nothing when they
	 * are per process: a libustctl of before per-user buffers reads the
	 * description of a per-process session as ever and refuses that of a
	 * per-user one as malformed, rather than save it as per process
	 */
	USTCOMM_CTL_SESSION_DESCRIBE = 55,
	/* (NAME, CHANNEL or "*", SUBBUF_SIZE, SUBBUF_NUM ("0": keep),
	 * BLOCKING (blocking.h's spelling, "": keep), TRACEFILE_SIZE and
	 * TRACEFILE_COUNT in decimal ("0" and "0": keep)) -> (); a channel's
	 * settings, before the session's first start */
	USTCOMM_CTL_SESSION_CHANNEL = 56,
	/*
	 * (NAME) -> what list-sessions NAME shows beside SESSION_DESCRIBE:
	 * STATE, DIR, RELAY URL or "", OVERWRITE "0"|"1", CHUNKS archived,
	 * CHUNK_BEGIN (seconds since the epoch, "0" before the first start),
	 * BYTES in the session's directory, DISCARDED events (its processes,
	 * those that ended included), NR_TRACKED, per tracker value KIND
	 * ("pid", "procname", "uid") and VALUE, then per process of the
	 * session PID and PROCNAME
	 */
	USTCOMM_CTL_SESSION_STATUS = 57,
	/* (NAME, DIR: absolute or "" for the session's directory) -> (the
	 * directory holding one snapshot per process, number of processes);
	 * flight-recorder sessions only */
	USTCOMM_CTL_SESSION_SNAPSHOT = 58,
	/* (NAME) -> (number of processes whose trace was cleared); what the
	 * session recorded so far is discarded, archived chunks kept */
	USTCOMM_CTL_SESSION_CLEAR = 59,
	/* (NAME, "1" track or "0" untrack, KIND, VALUE...) -> (number of
	 * values of KIND tracked now); VALUE "*" with "0": all of KIND */
	USTCOMM_CTL_SESSION_TRACK = 60,
	/* In the published file only, after a session's LOAD_SESSION when it
	 * has trackers: (NAME, then per tracked value KIND and VALUE); a
	 * program joins only when, for every KIND present, one VALUE is its
	 * own (pid, procname as /proc/PID/comm says, real uid) */
	USTCOMM_CTL_SESSION_TRACKERS = 61,
	USTCOMM_CTL_CMD_MAX = 61,
};

struct ustcomm_ctl_header {
	uint32_t magic;
	uint16_t version;
	uint16_t cmd;			/* a reply repeats its request's */
	int32_t status;			/* requests: 0; replies: 0 or -errno */
	uint32_t nr_strings;
	uint32_t payload_len;
	uint32_t reserved;		/* 0 */
};

/* A decoded message: strings point into the caller's buffer. */
struct ustcomm_ctl_msg {
	uint16_t cmd;
	int32_t status;
	uint32_t nr_strings;
	const char *payload;
	uint32_t payload_len;
};

/*
 * Decodes the message at the start of buf. Returns the number of bytes it
 * takes (header + payload) with *msg filled, 0 when buf holds only part of
 * it, or -EPROTO when it is malformed (-EMSGSIZE: longer than max_payload).
 * Async-signal-safe.
 */
USTCOMM_API ssize_t ustcomm_ctl_decode(const void *buf, size_t len, uint32_t max_payload,
				       struct ustcomm_ctl_msg *msg);
/* The longest payload and the most strings a request of cmd may have. */
USTCOMM_API uint32_t ustcomm_ctl_max_request(uint16_t cmd);
USTCOMM_API uint32_t ustcomm_ctl_max_args(uint16_t cmd);

/* Requests only: the command is known and has the right number of strings. */
USTCOMM_API int ustcomm_ctl_check_request(const struct ustcomm_ctl_msg *msg);

/* A session name: 1 to USTCOMM_SESSION_NAME_MAX - 1 characters of
 * [A-Za-z0-9_.-], not starting with '.' or '-', and not "auto" (the
 * default trace's name: a session's trace in a program carries its name). */
#define USTCOMM_SESSION_NAME_MAX	48u
USTCOMM_API int ustcomm_session_name_valid(const char *name);

/*
 * A whole message (header and the nr strings of args) in a malloc'd
 * buffer: a request (reply 0, status 0) or a reply. Returns 0, -E2BIG
 * when it is longer than the command (or any reply) allows, or -ENOMEM.
 * Not for signal context.
 */
USTCOMM_API int ustcomm_ctl_encode(uint16_t cmd, int32_t status, int reply,
				   const char *const *args, size_t nr, char **out,
				   size_t *out_len);

/* Walks the strings of a decoded message: start with *pos = NULL. Returns
 * the next string or NULL after the last. Async-signal-safe. */
USTCOMM_API const char *ustcomm_ctl_next(const struct ustcomm_ctl_msg *msg, const char **pos);

/* Writes a header for nr strings of payload_len bytes. */
USTCOMM_API void ustcomm_ctl_header_init(struct ustcomm_ctl_header *hdr, uint16_t cmd,
					 int32_t status, uint32_t nr_strings,
					 uint32_t payload_len);

/* The command's ustctl spelling ("list-markers"), for messages. */
USTCOMM_API const char *ustcomm_ctl_cmd_name(uint16_t cmd);

#endif
