/* SPDX-License-Identifier: GPL-2.0-only */
/* A session's buffer type (session_buffers.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "ustd/session/session_buffers.h"

int ustd_session_buffers_parse(const char *text, bool *per_uid, char *why, size_t why_size)
{
	*per_uid = text && !strcmp(text, "uid");
	if (!text || *per_uid || !strcmp(text, "pid"))
		return 0;
	snprintf(why, why_size, "unknown buffer type '%.32s': 'pid' (each process its own buffers, the default) or 'uid' (the processes of one user share them)",
		 text);
	return -EINVAL;
}
