/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * TCP connections to an lttng-relayd, with a time limit on every step:
 * ustd's control and data connections, and the check controllers make
 * before they point a trace at a relayd. Both say what failed in the same
 * words.
 */
#ifndef USTCOMM_RELAY_CONNECT_H
#define USTCOMM_RELAY_CONNECT_H

#include <stddef.h>
#include <stdint.h>
#include "libustcomm/common.h"
#include "libustcomm/relay_url.h"

/*
 * Connects to the first address of url's host that accepts on port
 * (which: "control" or "data", for the message), within timeout_ms per
 * address. The socket is blocking, close-on-exec, without Nagle, and its
 * sends and receives time out after timeout_ms too. Returns the
 * descriptor, or a negative errno with err holding "cannot reach
 * lttng-relayd at TEXT: ..." (text: the URL as the user wrote it).
 */
USTCOMM_API int ustcomm_relay_connect_port(const struct ustcomm_relay_url *url, const char *text,
					   uint16_t port, const char *which, int timeout_ms,
					   char *err, size_t err_size);

#endif
