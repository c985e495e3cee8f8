/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The packets of a relayed trace that lttng-relayd has not confirmed
 * writing, kept by ustd until it does (manual 9.5).
 *
 * relayd acknowledges nothing on the data connection, and its answer to a
 * packet's SEND_INDEX only says that it took the index entry: the data may
 * still sit in a socket buffer, and dies with relayd or the connection.
 * Only DATA_PENDING answered 0 for sequence number N says that relayd has
 * written (write(2) to its stream and index files) the data and the index
 * entry of every packet of the stream up to N (lttng-relayd's
 * relay_data_pending(): the lower of its last data and last index sequence
 * numbers is at least N). A written packet survives relayd being killed;
 * only a crash of its machine before the page cache reaches the disk can
 * still take it.
 *
 * So each packet is copied as it is sent, in sending order per stream, and
 * the copy is dropped once its stream's count of confirmed packets has
 * passed it. What is kept is bounded (ustd_relay_pending_over()); past the
 * bound the owner writes the copies to the fallback directory instead of
 * keeping them. Used by the drain only (relay_tx.h sends the copies but
 * does not keep them).
 */
#ifndef USTD_RELAY_PENDING_H
#define USTD_RELAY_PENDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The bound is the total size of the rings of the trace's relayed streams
 * (one more copy of the program's own buffers), and at least min (ustd
 * --relay-backlog), by default this: what the writers of a 2-CPU machine
 * write at full speed in the 0.1 s that relayd, starved of CPU by them,
 * may take to catch up (manual 9.5). */
#define USTD_RELAY_PENDING_MIN	(64u << 20)

/* A relayed stream's output, the drain's (ustd/conn/stream.h): never
 * looked into here, only named and handed back to flush's write. */
struct ustd_stream_out;
struct ustd_pending_pkt;

/* One relayed stream's copies, oldest first. */
struct ustd_pending_stream {
	struct ustd_stream_out *out;
	const uint64_t *confirmed;	/* relayd wrote up to here: dropped */
	uint64_t ring;			/* bytes of its ring, for the bound */
	struct ustd_pending_pkt *head;
	struct ustd_pending_pkt **tail;
};

struct ustd_relay_pending {
	struct ustd_pending_stream *streams;
	size_t nr_streams;
	uint64_t bytes;			/* of packets kept */
	uint64_t min;			/* the bound's least, set by the owner */
	uint64_t max;			/* the bound */
	struct ustd_pending_pkt *free;	/* copies to reuse */
	uint64_t free_bytes;		/* their capacity; with bytes, <= max */
	uint64_t spilled;		/* packets written to the fallback while
					 * the trace stayed relayed */
};

/*
 * Keeps a copy (*kept) of packet seq (the stream's sequence number at
 * relayd) of out's stream, whose ring holds ring bytes, after dropping the
 * copies relayd confirmed since (the packets before *confirmed, the
 * stream's count of them). The copy stays valid until the next call
 * that drops or writes copies. Returns 0, or -ENOMEM with nothing kept.
 */
int ustd_relay_pending_keep(struct ustd_relay_pending *p, struct ustd_stream_out *out,
			    const uint64_t *confirmed, uint64_t ring, uint64_t seq,
			    const char *pkt, size_t len, const char **kept);

/* Drops every copy that relayd has confirmed. */
void ustd_relay_pending_drop_confirmed(struct ustd_relay_pending *p);

/* Whether more is kept than the bound allows. */
bool ustd_relay_pending_over(const struct ustd_relay_pending *p);

/* Whether copies of out's packets are kept. */
bool ustd_relay_pending_has(const struct ustd_relay_pending *p,
			    const struct ustd_stream_out *out);

/*
 * Passes out's copies, oldest first, to write (with its out), dropping
 * each one written. Stops at the first error, which it returns, keeping
 * the copies not written.
 */
int ustd_relay_pending_flush(struct ustd_relay_pending *p, struct ustd_stream_out *out,
			     int (*write)(struct ustd_stream_out *out, const char *pkt,
					  size_t len));

/* Drops every copy and forgets the streams. */
void ustd_relay_pending_free(struct ustd_relay_pending *p);

#endif
