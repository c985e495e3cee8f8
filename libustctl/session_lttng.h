/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Session files written by LTTng's "lttng save" (lttng-tools 2.13): what
 * UST honours of them, read into the structures of its own session files
 * (session_lttng.c), for session_file.c's reader.
 */
#ifndef USTCTL_SESSION_LTTNG_H
#define USTCTL_SESSION_LTTNG_H

#include <libxml/tree.h>
#include "libustctl/internal.h"

/* Whether doc is an LTTng session file (its root is <sessions>). */
int ustctl_lttng_is_session_file(xmlDocPtr doc);
/*
 * The one session of doc into s and x, each element UST cannot honour
 * named in a warning (ustctl_add_warning) and left out. -EINVAL with the
 * last error when the file is not what lttng save writes, holds other
 * than one session, or nothing that UST can trace (no enabled event in
 * the user-space domain); -ENOMEM.
 */
int ustctl_lttng_convert(const char *file, xmlDocPtr doc, struct ustctl_session *s,
			 struct ustctl_session_extra *x);

#endif
