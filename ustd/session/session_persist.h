/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Sessions that outlive ustd (manual 4.1, "After a restart"): each
 * session is kept in <ustd socket>.session.d/NAME.xml, a session file
 * (libustctl's, 4.4) with its state and directory, rewritten whole on
 * every change and removed when it is destroyed (session_persist.c);
 * ustd resumes them when it starts (session_resume.c).
 */
#ifndef USTD_SESSION_PERSIST_H
#define USTD_SESSION_PERSIST_H

#include <stddef.h>
#include "ustd/session/session.h"

#define USTD_SESSION_KEEP_SUFFIX	".session.d"

/* The file of session name in ss->keep_dir; -ENAMETOOLONG. */
int ustd_session_keep_path(const struct ustd_sessions *ss, const char *name, char *buf,
			   size_t size);
/* Writes the file of session name when it exists, removes it when it does
 * not (destroyed); says on stderr what failed. */
void ustd_session_keep(struct ustd_sessions *ss, const char *name);

#endif
