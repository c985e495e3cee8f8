/* SPDX-License-Identifier: GPL-2.0-only */
/* The sessions a restarted ustd finds kept (session_persist.h). */
#ifndef USTD_SESSION_RESUME_H
#define USTD_SESSION_RESUME_H

#include "ustd/session/session.h"

/* Makes again every session kept in ss->keep_dir, in its state and
 * directory, and asks the running programs to join the active ones.
 * Before the programs are adopted, so that their traces find their
 * session. A file that does not read is said on stderr and left alone. */
void ustd_sessions_resume(struct ustd_sessions *ss);

#endif
