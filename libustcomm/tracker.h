/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * A session's process trackers as they travel (SESSION_TRACK,
 * SESSION_TRACKERS, SESSION_STATUS): pairs of strings KIND and VALUE. ustd
 * tests a running process with what /proc says of it, libust tests its
 * own process when it reads the published file: one rule for both.
 */
#ifndef USTCOMM_TRACKER_H
#define USTCOMM_TRACKER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "libustcomm/common.h"

/* As the kernel keeps a process's name (comm): 15 characters. */
#define USTCOMM_TRACK_PROCNAME_MAX	16u

/* "pid", "procname" or "uid"; -1 for anything else. */
USTCOMM_API int ustcomm_track_kind(const char *kind);
/* The name of kind (0 to 2). */
USTCOMM_API const char *ustcomm_track_kind_name(int kind);

/* A value of kind checked and written in its one spelling into out
 * (decimal numbers; a process name cut to 15 characters, as comm is).
 * 0 or -EINVAL. */
USTCOMM_API int ustcomm_track_value(int kind, const char *value, char *out, size_t size);

/*
 * Whether a process passes the trackers given as nr strings, KIND and
 * VALUE each (values in their one spelling): for every kind present, one
 * of its values is the process's own. No pair: true.
 */
USTCOMM_API bool ustcomm_track_pass(const char *const *pairs, size_t nr, pid_t pid,
				    const char *comm, uid_t uid);

#endif
