/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The process trackers of an LTTng session file's user-space domain
 * (<process_attr_trackers>, lttng-tools 2.13) as UST's own trackers, for
 * session_lttng.c.
 */
#ifndef USTCTL_SESSION_LTTNG_TRACK_H
#define USTCTL_SESSION_LTTNG_TRACK_H

#include <libxml/tree.h>
#include "libustctl/internal.h"

/* vpid and pid trackers as pid, vuid and uid (ids or user names) as uid;
 * each tracker or value UST cannot honour named in a warning and left
 * out. 0 or -ENOMEM. */
int ustctl_lttng_convert_trackers(const char *file, xmlNodePtr trackers,
				  struct ustctl_session_extra *x);

#endif
