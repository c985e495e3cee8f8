/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sessions' socket, where ustctl asks (create-session, start-session,
 * rotate-session...), and the sessions' life: what main() starts and ends.
 */
#ifndef USTD_SESSION_CTL_H
#define USTD_SESSION_CTL_H

#include "ustd/session/session.h"

/*
 * Listens on daemon_path's session socket and removes a file of active
 * sessions left by a ustd that died (a restarted ustd holds none).
 * apps is main()'s list of applications. 0 or a negative errno, reported.
 */
int ustd_sessions_start(struct ustd_sessions **out, struct ustd_ctx *ctx,
			const char *daemon_path, struct ustd_app **apps);
/* Removes the socket and the published file; frees everything. */
void ustd_sessions_fini(struct ustd_sessions *ss);

#endif
