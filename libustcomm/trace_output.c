/* SPDX-License-Identifier: LGPL-2.1-only */
/* Async-signal-safe: string scanning only. */
#include <errno.h>
#include <string.h>
#include "libustcomm/trace_output.h"

int ustcomm_output_parse(const char *text, struct ustcomm_relay_url *url, const char **why)
{
	size_t len = strlen(text);

	if (!len)
		return USTCOMM_OUTPUT_DEFAULT;
	if (len >= USTCOMM_PATH_MAX) {
		*why = "it is longer than a path may be here (4095 characters)";
		return -EINVAL;
	}
	if (text[0] == '/')
		return USTCOMM_OUTPUT_DIR;
	if (strstr(text, "://"))
		return ustcomm_relay_url_parse(text, url, why) < 0 ? -EINVAL : USTCOMM_OUTPUT_RELAY;
	*why = "give an absolute directory or an lttng-relayd URL, net://HOST[:CONTROL_PORT[:DATA_PORT]]";
	return -EINVAL;
}
