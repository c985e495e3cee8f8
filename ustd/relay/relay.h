/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Layer: ustd/relay; may call: ustd/output, libustcomm
 *
 * ustd's way to lttng-relayd, beside its local files: the protocol
 * (relay.c, its sending thread relay_tx.c), the copies of packets relayd
 * has not confirmed (relay_pending.c), a session's shared connection
 * (relay_share.c) and a trace's sink (sink.h). It knows nothing of
 * programs or sessions: a trace's owner (ustd/conn) learns that relayd is
 * lost or behind through the sink's lost() and spill(), which it sets.
 *
 * Here: ustd as a client of an unmodified lttng-relayd: the subset of the relayd
 * protocol that lttng-consumerd speaks, at protocol version 2.10 (session
 * and stream announcement of 2.4 and 2.2, packet index 1.1 with sequence
 * numbers). One relay session per connection, on its own control and
 * data TCP connections: a traced process's, or a ustd session's, shared by
 * its processes (relay_share.h). Every integer on the wire is big-endian.
 *
 * Packets go out on a thread of their own (relay_tx.h) and confirmations
 * are asked without waiting (ustd_relay_ask_pending()); the other calls
 * block, bounded by the sockets' timeouts. A relayd that stops answering
 * breaks the connection after USTD_RELAY_TIMEOUT_MS instead of stopping
 * ustd. Once a call failed the connection is broken for good;
 * every later call returns -ENOTCONN at once, and err says what happened.
 */
#ifndef USTD_RELAY_H
#define USTD_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "libustcomm/relay_url.h"

#define USTD_RELAY_TIMEOUT_MS	5000
/* SEND_INDEX answers let wait: 4 KiB of them, which relayd's socket buffer
 * holds without blocking relayd, and one wait for them per 1024 packets
 * (256 MiB at the default size) instead of per 64, which cost a round trip
 * to a relayd starved of CPU every 16 MiB at full speed. */
#define USTD_RELAY_UNANSWERED_MAX	1024
/* relayd's limits for the 2.4 session announcement. */
#define USTD_RELAY_SESSION_NAME_MAX	255
#define USTD_RELAY_HOSTNAME_MAX		64
/* relayd refuses longer stream paths (its LTTNG_NAME_MAX). */
#define USTD_RELAY_PATH_MAX		255

/*
 * A DATA_PENDING asked without waiting for the answer
 * (ustd_relay_ask_pending()). When the answer is read, busy is cleared
 * and, if relayd has written every packet of the stream up to seq,
 * *confirmed is raised to seq + 1, or to *sent if that is lower (the
 * packets the sending thread is done with: ustd_relay_send_packet()).
 */
struct ustd_relay_query {
	bool busy;
	uint64_t seq;
	uint64_t *confirmed;
	const uint64_t *sent;
};

struct ustd_relay {
	int ctrl_fd;
	int data_fd;
	uint32_t minor;			/* protocol 2.minor agreed with relayd */
	uint64_t session_id;
	/* Answers not read yet, of SEND_INDEX (NULL) and of DATA_PENDING
	 * asked without waiting (its query), oldest at owed_head. relayd
	 * answers the control connection's commands in order, so they are
	 * read before the answer of any later command, when there are
	 * USTD_RELAY_UNANSWERED_MAX, and whenever they have come
	 * (ustd_relay_poll()): a packet costs no round trip. */
	struct ustd_relay_query *owed[USTD_RELAY_UNANSWERED_MAX];
	uint64_t owed_since[USTD_RELAY_UNANSWERED_MAX];	/* CLOCK_MONOTONIC ns */
	uint32_t owed_head;
	uint32_t unanswered;
	uint8_t partial[4];		/* an answer read in part */
	uint32_t partial_len;
	/* Stands for the questions of a stream that left a shared
	 * connection (ustd_relay_forget()): their answers are read, not
	 * kept. */
	struct ustd_relay_query forgotten;
	bool broken;
	char err[256];			/* why it broke */
	struct ustd_relay_tx *tx;	/* sends on data_fd (relay_tx.h) */
};

/*
 * Connects the control and data connections to url (text: how the user
 * wrote it, for messages) and agrees on the protocol version. Returns 0,
 * or a negative errno with r->err set ("cannot reach lttng-relayd at ...").
 */
int ustd_relay_connect(struct ustd_relay *r, const struct ustcomm_relay_url *url,
		       const char *text);

/* Creates the relay session: name and hostname are what a live viewer's
 * URL names (net://HOST:5344/host/HOSTNAME/NAME). live_timer_us 0 makes a
 * session that cannot be viewed live. */
int ustd_relay_create_session(struct ustd_relay *r, const char *name, const char *hostname,
			      uint32_t live_timer_us);

/* Announces one stream, written by relayd as <its output>/path/name;
 * "metadata" is the metadata stream. *handle names it from then on.
 * relayd cuts its file as ustd does locally (tracefile.h; 0, 0: one
 * file). */
int ustd_relay_add_stream(struct ustd_relay *r, const char *name, const char *path,
			  uint64_t tracefile_size, uint32_t tracefile_count, uint64_t *handle);

/* Makes the streams announced so far visible to live viewers. */
int ustd_relay_streams_sent(struct ustd_relay *r);

/* Appends TSDL text to the metadata stream. */
int ustd_relay_send_metadata(struct ustd_relay *r, uint64_t handle, const char *text,
			     size_t len);

/* Sends packet number seq (0, 1, ... per stream) of a stream: its len
 * bytes are queued for the data connection (pkt must stay as it is until
 * they are sent: ustd_relay_sync(), or *done passed seq; relay_tx.h), its
 * index entry goes on the control one. */
int ustd_relay_send_packet(struct ustd_relay *r, uint64_t handle, uint64_t seq,
			   const char *pkt, size_t len, uint64_t *done);

/* Waits until every packet queued is sent. */
int ustd_relay_sync(struct ustd_relay *r);
/* Tells live viewers that the stream has nothing before ts (an idle
 * stream), so that they may show other streams' events up to ts. */
int ustd_relay_send_beacon(struct ustd_relay *r, uint64_t handle, uint32_t stream_id,
			   uint64_t ts);

/* Returns 0 when relayd has written every packet up to seq of the stream
 * (data and index), 1 when some are still on their way, or an error. */
int ustd_relay_data_pending(struct ustd_relay *r, uint64_t handle, uint64_t seq);
/* The same question without waiting for the answer, unless q->busy (one
 * is on its way): q takes it when it comes. 0 or an error. */
int ustd_relay_ask_pending(struct ustd_relay *r, uint64_t handle, uint64_t seq,
			   struct ustd_relay_query *q);
/* Reads the answers that have come, without waiting. 0 or an error; one
 * that has not come within USTD_RELAY_TIMEOUT_MS breaks the connection,
 * as a blocking call's would. */
int ustd_relay_poll(struct ustd_relay *r);

/* A stream's owner is going while its questions may still be owed
 * answers: they no longer point at q. */
void ustd_relay_forget(struct ustd_relay *r, const struct ustd_relay_query *q);

/* Ends a stream after packet last_seq (UINT64_MAX: it sent none). */
int ustd_relay_close_stream(struct ustd_relay *r, uint64_t handle, uint64_t last_seq);

/* Closes both connections, after sending what is queued unless the
 * connection is broken; relayd then closes the session. */
void ustd_relay_close(struct ustd_relay *r);

#endif
