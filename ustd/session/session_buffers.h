/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A session's buffer type (create-session --buffers-pid, --buffers-uid):
 * its wire spelling, and the sessions it may be given to in this version.
 */
#ifndef USTD_SESSION_BUFFERS_H
#define USTD_SESSION_BUFFERS_H

#include <stdbool.h>
#include <stddef.h>

/* SESSION_CREATE's BUFFERS: NULL (absent) and "pid" per process, "uid"
 * per user. 0, or -EINVAL with why filled in. */
int ustd_session_buffers_parse(const char *text, bool *per_uid, char *why, size_t why_size);

#endif
