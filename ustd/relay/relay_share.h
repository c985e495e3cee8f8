/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A ustd session streamed to lttng-relayd (ustctl create-session -r URL):
 * one relay session, on one control and one data connection, which every
 * process of the session streams into, each under its own sub-path, so
 * that a live viewer sees one session and relayd's output holds the
 * session's directory as a local session would:
 * <relayd output>/HOSTNAME/NAME-YYYYMMDD-HHMMSS/<procname>-<pid>/.
 *
 * The ustd session holds a reference, and so does every process streaming
 * into it (its sink is a member): a process that ends closes its own
 * streams and leaves, the relay session goes on; when the last reference
 * goes (destroy-session, and the last of its traces ended), the
 * connection closes and relayd ends the session.
 *
 * A broken connection is broken for every member: the first to see it
 * closes it, and each member moves to its local fallback, under
 * fallback_dir (relay_fallback.h), beginning with the packets relayd had
 * not confirmed writing. Processes that join later go there at once.
 */
#ifndef USTD_RELAY_SHARE_H
#define USTD_RELAY_SHARE_H

#include <stddef.h>
#include <stdint.h>
#include "libustcomm/relay_url.h"
#include "ustd/relay/relay.h"

struct ustd_sink;

struct ustd_relay_share {
	struct ustd_relay relay;
	unsigned refs;
	struct ustd_sink *members;	/* the sinks streaming on relay */
	struct ustcomm_relay_url url;
	char *text;			/* the URL as the user wrote it */
	char *fallback_dir;		/* local OUTPUT/NAME-YYYYMMDD-HHMMSS */
	char name[USTD_RELAY_SESSION_NAME_MAX];	/* the relay session's */
	char path[USTD_RELAY_PATH_MAX];	/* HOSTNAME/NAME-YYYYMMDD-HHMMSS */
};

/*
 * Connects to the relayd of text and creates the relay session name,
 * filed under hostname/dir_name (dir_name: the base name of
 * fallback_dir). One reference, the caller's. Returns 0, or a negative
 * errno with why (of size why_size) saying what failed.
 */
int ustd_relay_share_open(struct ustd_relay_share **out, const char *text,
			  const char *name, const char *hostname, uint32_t live_timer_us,
			  const char *fallback_dir, char *why, size_t why_size);

/* sink streams on the shared connection from now on; one more
 * reference, which sink's owner drops when it frees sink. */
void ustd_relay_share_join(struct ustd_relay_share *sh, struct ustd_sink *sink);

/*
 * sink stops streaming on it (the caller has closed its streams at relayd,
 * or given up on them, and made the sending thread done with its packets:
 * ustd_relay_sync()). When the connection is broken, it is closed and the
 * other members are told (their lost(), which must leave).
 */
void ustd_relay_share_leave(struct ustd_relay_share *sh, struct ustd_sink *sink);

/* Drops a reference (NULL: nothing); the last closes the connection. */
void ustd_relay_share_put(struct ustd_relay_share *sh);

#endif
