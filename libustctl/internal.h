/* SPDX-License-Identifier: LGPL-2.1-only */
/* What the parts of libustctl share; nothing here is exported. */
#ifndef USTCTL_INTERNAL_H
#define USTCTL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "libustcomm/ctl_protocol.h"

/*
 * The library is built with -fvisibility=hidden; the public header carries
 * no attribute of its own, so the API gets default visibility here, where
 * every definition sees its declaration. The version script keeps the rest
 * out.
 */
#pragma GCC visibility push(default)
#include <ust/ustctl.h>
#pragma GCC visibility pop

/* Sets this thread's ustctl_last_error(). */
void ustctl_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

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

/* The path of process pid's control socket in dir, -ENAMETOOLONG if it
 * does not fit. */
int ustctl_socket_path(char *buf, size_t len, const char *dir, pid_t pid);

/* Parses a decimal reply field; -EPROTO (last error set) when it is not
 * one, or above max. */
int ustctl_parse_u32(pid_t pid, uint16_t cmd, const char *s, uint32_t max, uint32_t *out);

#endif
