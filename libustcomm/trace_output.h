/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Where one trace goes, as create-trace, set-output and session files name
 * it: "" for wherever its ustd puts traces, an absolute directory, or an
 * lttng-relayd URL (relay_url.h). The application keeps the text and
 * hands it to ustd in HELLO; each side checks it with this one function.
 */
#ifndef USTCOMM_TRACE_OUTPUT_H
#define USTCOMM_TRACE_OUTPUT_H

#include "libustcomm/common.h"
#include "libustcomm/relay_url.h"

enum ustcomm_output_kind {
	USTCOMM_OUTPUT_DEFAULT,		/* "": ustd's output directory or --relay */
	USTCOMM_OUTPUT_DIR,		/* an absolute directory */
	USTCOMM_OUTPUT_RELAY,		/* net://... */
};

/*
 * Returns the kind of output text names (with *url filled for a relay), or
 * -EINVAL with *why the reason in words. Async-signal-safe.
 */
USTCOMM_API int ustcomm_output_parse(const char *text, struct ustcomm_relay_url *url,
				     const char **why);

#endif
