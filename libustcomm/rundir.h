/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * The user's run directory, where the sockets live: $UST_RUNDIR, else
 * $XDG_RUNTIME_DIR/ust, else /tmp/ust-<uid>. Created 0700 when missing;
 * refused (-EPERM, with a message saying why) when it is a symlink, not a
 * directory, not owned by the caller or open to others.
 */
#ifndef USTCOMM_RUNDIR_H
#define USTCOMM_RUNDIR_H

#include <stddef.h>
#include "libustcomm/common.h"

USTCOMM_API int ustcomm_rundir(char *buf, size_t len);
/*
 * <rundir>/apps, where each traced process has its control socket named
 * after its pid; created 0700 and checked like the run directory.
 */
USTCOMM_API int ustcomm_apps_dir(char *buf, size_t len);
/* <rundir>/orphans, where a program whose ustd is gone leaves its trace
 * for the next one (orphan.h); created and checked the same way. */
USTCOMM_API int ustcomm_orphans_dir(char *buf, size_t len);
/* <rundir>/writing, where ustd marks the stream files it is writing for
 * the ustd after it (ustd/output/write_mark.h); the same. */
USTCOMM_API int ustcomm_write_marks_dir(char *buf, size_t len);
/* $UST_DAEMON_SOCKET, else <rundir>/ustd. */
USTCOMM_API int ustcomm_daemon_socket_path(char *buf, size_t len);
/*
 * What belongs to the ustd listening on the socket daemon_path: its
 * session socket (daemon_path + ".ctl": ustctl's requests about sessions)
 * and the file of its active sessions (daemon_path + ".sessions": what a
 * starting program reads). -ENAMETOOLONG when it does not fit.
 */
#define USTCOMM_SESSION_SOCKET_SUFFIX	".ctl"
#define USTCOMM_SESSION_FILE_SUFFIX	".sessions"
USTCOMM_API int ustcomm_daemon_sibling_path(char *buf, size_t len, const char *daemon_path,
					    const char *suffix);
/* Where traces go by default: $HOME/ust-traces (the password database's
 * home when HOME is unset). */
USTCOMM_API int ustcomm_default_output_dir(char *buf, size_t len);
/* Generates a random (version 4) UUID. */
USTCOMM_API int ustcomm_uuid_generate(unsigned char uuid[16]);
/* Formats as 36 characters plus NUL. */
USTCOMM_API void ustcomm_uuid_format(const unsigned char uuid[16], char out[37]);

#endif
