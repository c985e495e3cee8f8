/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The data connection to lttng-relayd, sent on by a thread of its own.
 *
 * relayd shares the CPUs with the traced program. With every CPU writing
 * at full speed it gets little of them, and a send on a full socket kept
 * ustd from draining until relayd read: the rings filled and the writers
 * discarded (50 k of 10 M events with 2 threads, EPYC family 25 model 17;
 * manual 9.5). The drain only queues here the copy of each packet it keeps
 * until relayd confirms writing it (relay_pending.h), and goes on; this
 * thread sends the queue in order, its sends bounded by the socket's
 * timeout like every other. The drain waits for it only where it must:
 * before it writes the copies elsewhere and before it closes a stream.
 */
#ifndef USTD_RELAY_TX_H
#define USTD_RELAY_TX_H

#include <stddef.h>
#include <stdint.h>

struct ustd_relay_tx;
struct iovec;

/* Sends every byte of iov on a socket (MSG_NOSIGNAL), or returns the
 * negative errno that stopped it (-EAGAIN: the socket's send timeout). */
int ustd_sendv_all(int fd, struct iovec *iov, int iovcnt);

/* Starts the thread sending on fd (which the caller keeps and closes
 * after ustd_relay_tx_stop()). Returns 0 or a negative errno. */
int ustd_relay_tx_start(struct ustd_relay_tx **tx, int fd);
/*
 * Queues packet seq of the relay stream handle. pkt must stay as it is
 * until the packet is sent: until ustd_relay_tx_flush() returned, or *done
 * (read with a load-acquire) passed seq; the thread stores seq + 1 there
 * (store-release) once it is done with pkt. relayd confirming the packet
 * is not enough: it may have all of it before the send returns. Returns
 * 0, -ENOMEM, or the negative errno that ended the sending.
 */
int ustd_relay_tx_queue(struct ustd_relay_tx *tx, uint64_t handle, uint64_t seq,
			const char *pkt, size_t len, uint64_t *done);
/* Waits until all that was queued is sent; 0 or the error. */
int ustd_relay_tx_flush(struct ustd_relay_tx *tx);
/* Ends the thread at once, cutting a send that is under way (the
 * connection is shut down): the caller gives up on the connection. */
void ustd_relay_tx_stop(struct ustd_relay_tx *tx);

#endif
