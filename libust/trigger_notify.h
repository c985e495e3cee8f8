/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * How a firing reaches ustd: a SOCK_SEQPACKET socket pair per connection
 * to ustd, one end handed over with USTCOMM_MSG_TRIGGER_CHANNEL after
 * HELLO (protocol.h), the other kept at one descriptor number for the
 * life of the process.
 */
#ifndef UST_TRIGGER_NOTIFY_H
#define UST_TRIGGER_NOTIFY_H

#include <stdint.h>

/* Under ust_lock, after HELLO on ust_t.sock: a new pair, its far end sent
 * to ustd. 0 or a negative errno (said with ust_trace_fail()). */
int ust_trigger_channel_open(void);

/*
 * Sends one USTCOMM_MSG_TRIGGER_FIRED datagram. Never waits: the socket is
 * non-blocking and the send says MSG_DONTWAIT; never raises SIGPIPE
 * (MSG_NOSIGNAL) when ustd is gone; a datagram goes whole or not at all,
 * so no other sender can interleave with it. Only sendmsg() and memcpy():
 * async-signal-safe. 0, or a negative errno when nothing was sent (no
 * ustd, its socket full).
 */
int ust_trigger_notify(uint32_t id, uint32_t at_most, uint64_t fired, uint64_t limited,
		       const char *dir);

#endif
