/* SPDX-License-Identifier: LGPL-2.1-only */
/* What the parts of libustctl share; nothing here is exported. */
#ifndef USTCTL_INTERNAL_H
#define USTCTL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/loglevel.h"

/*
 * The library is built with -fvisibility=hidden; the public header carries
 * no attribute of its own, so the API gets default visibility here, where
 * every definition sees its declaration. The version script keeps the rest
 * out.
 */
#pragma GCC visibility push(default)
#include <ust/ustctl.h>
#pragma GCC visibility pop

/*
 * Sets this thread's ustctl_last_error(). Outside a request (between
 * ustctl_request_begin() and _end(), which ustctl_call_longer() brackets)
 * the error counts as one in the caller's input (ustctl_last_error_is_input());
 * ustctl_set_failure() sets one that does not: relayd unreachable, no memory.
 */
void ustctl_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ustctl_set_failure(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An error in the caller's input found while a request is under way (its
 * arguments do not fit in one). */
void ustctl_set_input_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ustctl_request_begin(void);
void ustctl_request_end(void);
/* Adds a line to this thread's ustctl_take_warnings(). */
void ustctl_add_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A reply with status 0; msg points into buf. */
struct ustctl_reply {
	char *buf;
	struct ustcomm_ctl_msg msg;
};

/*
 * Sends one request to process pid and waits for its reply. Returns 0 with
 * *reply filled (free with ustctl_reply_release), or a negative errno with
 * the last error set: the process is gone, unreachable, did not answer in
 * time, or answered with an error (then its reason is the message).
 */
int ustctl_call(pid_t pid, uint16_t cmd, const char *const *args, size_t nr_args,
		struct ustctl_reply *reply);
void ustctl_reply_release(struct ustctl_reply *reply);
/* The same, waiting extra_ms more than the timeout: for requests the
 * program serves by waiting on someone else (ustd) for a bounded time. */
int ustctl_call_longer(pid_t pid, uint16_t cmd, const char *const *args, size_t nr_args,
		       int extra_ms, struct ustctl_reply *reply);

/* ustctl_call_ustd() for a reply of one string, a path: *out
 * (malloc'd) is it. */
int ustctl_call_ustd_path(uint16_t cmd, const char *const *args, size_t nr, int extra_ms,
			  char **out);

/* ustctl_call_ustd() for a reply of one number, or none when out is NULL. */
int ustctl_call_ustd_u32(uint16_t cmd, const char *const *args, size_t nr, int extra_ms,
			 uint32_t *out);

/* A session name ustd would take; -EINVAL (last error set) when not. */
int ustctl_check_session_name(const char *name);

/* The same to ustd's session socket (rundir.h), waiting extra_ms more
 * than the timeout. */
int ustctl_call_ustd(uint16_t cmd, const char *const *args, size_t nr_args, int extra_ms,
		     struct ustctl_reply *reply);

/* ustctl_call_longer(), then checks that the reply holds exactly nr
 * results (-EPROTO, last error set, when it does not). */
int ustctl_call_expect(pid_t pid, uint16_t cmd, const char *const *args, size_t nr_args,
		       int extra_ms, uint32_t nr, struct ustctl_reply *reply);

/* NULL and "" both mean the default trace, which the program names "auto";
 * -EINVAL (last error set) for a name too long to send. */
int ustctl_trace_arg(pid_t pid, const char *trace, const char **out);

/* dir as an absolute path in out: the program and ustd have working
 * directories of their own. NULL and "" stay "" (ustd's directory). what
 * names the request in the last error (pid 0: a request to ustd). */
int ustctl_absolute_dir(pid_t pid, const char *what, const char *dir, char *out, size_t size);
/* A trace's output as the program takes it (trace_output.h): a directory
 * made absolute, or a relayd URL whose ports accept connections now. */
int ustctl_output_arg(pid_t pid, const char *output, char *out, size_t size);

/* The path of process pid's control socket in dir, -ENAMETOOLONG if it
 * does not fit. */
int ustctl_socket_path(char *buf, size_t len, const char *dir, pid_t pid);

/* (TRACE, CHANNEL, VALUE) -> (): a channel's setting. */
int ustctl_channel_set(pid_t pid, uint16_t cmd, const char *trace, const char *channel,
		       const char *value);
/* (TRACE, CHANNEL) -> (VALUE): a channel's setting, copied into value. */
int ustctl_channel_get(pid_t pid, uint16_t cmd, const char *trace, const char *channel,
		       char *value, size_t len);

/* Parses a decimal reply field; -EPROTO (last error set) when it is not
 * one, or above max. */
int ustctl_parse_u32(pid_t pid, uint16_t cmd, const char *s, uint32_t max, uint32_t *out);
int ustctl_parse_u64(pid_t pid, uint16_t cmd, const char *s, uint64_t max, uint64_t *out);

/*
 * A rule as ENABLE_RULE and LOAD_SESSION carry it: checked, its filter
 * compiled and checked against markers (the program's events), its level
 * selection in level and its bytecode in hexadecimal in *hex ("" without
 * a filter; the caller frees it). Sends nothing.
 */
int ustctl_rule_prepare(pid_t pid, const struct ustctl_rule *rule,
			const struct ustctl_marker *markers, size_t nr_markers,
			char level[USTCOMM_LEVEL_SPEC_MAX], char **hex);

/* A session's channel: frees what it holds; appends a copy of context
 * (0 or -ENOMEM). */
void ustctl_channel_conf_release(struct ustctl_channel_conf *c);
int ustctl_channel_conf_add_context(struct ustctl_channel_conf *c, const char *context);

/* session_file.c's writer, with a <resume> element last when resume is
 * not NULL (ustd's own files of its sessions, session_resume.c). */
int ustctl_session_file_write_resume(const char *file, const struct ustctl_session *session,
				     const struct ustctl_session_extra *extra,
				     const struct ustctl_session_resume *resume);

#endif
