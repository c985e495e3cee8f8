/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A session's settings read back whole (SESSION_DESCRIBE, what
 * save-session -s writes to a file) and set per channel (SESSION_CHANNEL,
 * what load-session and set-tracefile -s send), and the tracefile limits
 * ustd gives the streams of the session's programs.
 */
#ifndef USTD_SESSION_SETTINGS_H
#define USTD_SESSION_SETTINGS_H

#include <stddef.h>
#include "ustd/session/session.h"
#include "ustd/output/tracefile.h"

/* The strings of SESSION_DESCRIBE's answer, pointing into s and into
 * *text (malloc'd, for the numbers); output_default is ustd's output
 * directory, saved as "". Returns how many, or -ENOMEM; free *args and
 * *text. */
ssize_t ustd_session_describe(const struct ustd_session *s, const char *output_default,
			      const char ***args, char **text);

/* SESSION_CHANNEL's arguments after the name, checked then applied to s
 * (all or nothing). 0, or a negative errno with why filled in. */
int ustd_session_set_channel(struct ustd_session *s, const char *const *a, char *why,
			     size_t why_size);

/* The session's limits of channel (its own, else those of "*") into tf,
 * when it has some: a session's setting wins over the program's. */
void ustd_session_stream_limits(const struct ustd_session *s, const char *channel,
				struct ustd_tracefile *tf);

#endif
