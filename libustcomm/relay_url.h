/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Where a trace goes when it leaves the machine: an lttng-relayd named by a
 * URL in LTTng's spelling, net://HOST[:CONTROL_PORT[:DATA_PORT]], with HOST
 * a name, an IPv4 address or an IPv6 address in brackets. Parsed wherever
 * users type one (ustd, usttrace, ustctl, libust's create-trace), so that
 * all refuse the same mistakes with the same words.
 */
#ifndef USTCOMM_RELAY_URL_H
#define USTCOMM_RELAY_URL_H

#include <stdint.h>
#include "libustcomm/common.h"

#define USTCOMM_RELAY_CTRL_PORT	5342
#define USTCOMM_RELAY_DATA_PORT	5343
/* The port babeltrace2 --input-format=lttng-live reads from. */
#define USTCOMM_RELAY_LIVE_PORT	5344
#define USTCOMM_RELAY_HOST_MAX	256

struct ustcomm_relay_url {
	char host[USTCOMM_RELAY_HOST_MAX];	/* without the brackets */
	uint16_t ctrl_port;
	uint16_t data_port;
};

/*
 * Parses text. Returns 0, or -EINVAL with *why saying what is wrong in
 * words fit for a message ("a port is a number from 1 to 65535", ...).
 * Async-signal-safe: string scanning and memcpy only (libust checks a
 * trace's output in its control handler).
 */
USTCOMM_API int ustcomm_relay_url_parse(const char *text, struct ustcomm_relay_url *url,
					const char **why);

#endif
