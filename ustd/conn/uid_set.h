/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Buffers per user (a session's --buffers-uid, LTTng's per-UID buffers):
 * the processes of one uid in a session write into one set of rings per
 * channel and CPU, which ustd makes and drains as one trace, the set's
 * "sink": an application with no socket and no process, whose streams,
 * directory (uid-UID in the session's), metadata and event layouts are
 * ustd's. A member asks for a channel's rings and for an event's id
 * (protocol.h); the same event (name, level, fields, layout) gets the same
 * id in every process, and its block goes into the metadata once, before
 * any process can write it.
 *
 * A flight recorder's sets (overwrite) are written on a snapshot of the
 * session (its sink's, as a process's) and when the session ends.
 *
 * A member that dies inside an event leaves its sub-buffer's commit count
 * short: the rings of every process of the set would stop there. ustd
 * closes the packets open at the death, waits UID_STALL_GRACE_MS for the
 * live writers to finish the events they were in, then rescues each
 * sub-buffer before that point still incomplete (uid_set.c): written out
 * and handed back, or in a flight recorder, repaired where it is.
 */
#ifndef USTD_UID_SET_H
#define USTD_UID_SET_H

#include <stdbool.h>
#include <sys/types.h>
#include "libustcomm/protocol.h"
#include "ustd/conn/conn.h"

/* The set of uid for the session (held, not known) whose traces are named
 * trace_name: *sink is its trace, to be put in main()'s list of
 * applications; clock is the first member's (HELLO), which must be the
 * clock ustd reads. The owner's trace_dir() makes the sink's directory. */
int ustd_uid_set_new(struct ustd_uid_set **out, const struct ustd_ctx *ctx,
		     const char *trace_name, uid_t uid, uint32_t clock, bool overwrite,
		     struct ustd_app **sink);
uid_t ustd_uid_set_uid(const struct ustd_uid_set *set);
/* The functions below, for a member's app->uid_ops. */
extern const struct ustd_uid_member_ops ustd_uid_set_member_ops;

/* A member's requests, answered on its socket: 0, or a negative errno
 * when the answer could not be sent (the connection is then dropped). */
int ustd_uid_set_on_channel(struct ustd_uid_set *set, struct ustd_app *member,
			    const struct ustcomm_uid_channel *req);
int ustd_uid_set_on_event(struct ustd_uid_set *set, struct ustd_app *member,
			  const struct ustcomm_msg *msg);
/* A member's connection ended; flushed: it said GOODBYE, so no event of
 * it is unfinished. Otherwise the stall check above begins. */
void ustd_uid_set_member_ended(struct ustd_uid_set *set, bool flushed);
void ustd_uid_set_on_timer(struct ustd_watch *w);

/* Closes the open packets and writes everything recorded so far (a
 * session stopping); then, for end, the sink's trace is complete and
 * closed: the set serves no member any more. */
void ustd_uid_set_flush(struct ustd_uid_set *set);
void ustd_uid_set_end(struct ustd_uid_set *set);
void ustd_uid_set_free(struct ustd_uid_set *set);

#endif
