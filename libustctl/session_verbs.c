/* SPDX-License-Identifier: LGPL-2.1-only */
/* snapshot -s, clear-session, track and untrack: requests to ustd about
 * a whole session. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "libustcomm/ctl_protocol.h"
#include "libustcomm/tracker.h"
#include "libustctl/internal.h"

/* Each takes every program of the session in turn. */
#define SESSION_VERB_EXTRA_MS	20000

int ustctl_snapshot_session(const char *name, const char *dir, char **path)
{
	char out[4096];
	const char *args[2] = { name, out }, *pos = NULL, *p, *n;
	struct ustctl_reply reply = { 0 };
	uint32_t taken = 0;
	int ret = ustctl_check_session_name(name);

	*path = NULL;
	if (!ret)
		ret = ustctl_absolute_dir(0, "snapshot -s", dir, out, sizeof(out));
	if (!ret)
		ret = ustctl_call_ustd(USTCOMM_CTL_SESSION_SNAPSHOT, args, 2, SESSION_VERB_EXTRA_MS,
				       &reply);
	if (ret)
		goto end;
	p = ustcomm_ctl_next(&reply.msg, &pos);
	n = ustcomm_ctl_next(&reply.msg, &pos);
	ret = p && n ? ustctl_parse_u32(0, USTCOMM_CTL_SESSION_SNAPSHOT, n, UINT32_MAX, &taken) :
		       -EPROTO;
	if (ret == -EPROTO)
		ustctl_set_error("ustd answered snapshot -s with something malformed");
	if (!ret && !(*path = strdup(p))) {
		ret = -ENOMEM;
		ustctl_set_error("out of memory");
	}
end:
	ustctl_reply_release(&reply);
	return ret ? ret : (int)taken;
}

int ustctl_clear_session(const char *name)
{
	const char *args[1] = { name };
	uint32_t n = 0;
	int ret = ustctl_check_session_name(name);

	if (!ret)
		ret = ustctl_call_ustd_u32(USTCOMM_CTL_SESSION_CLEAR, args, 1, SESSION_VERB_EXTRA_MS,
					   &n);
	return ret ? ret : (int)n;
}

int ustctl_session_track(const char *name, int track, const char *kind,
			 const char *const *values, size_t nr)
{
	const char **args = NULL;
	char value[USTCOMM_TRACK_PROCNAME_MAX];
	int ret = ustctl_check_session_name(name), k = ustcomm_track_kind(kind);
	uint32_t now = 0;
	size_t i;

	if (ret)
		return ret;
	if (k < 0 || !nr || nr > USTCOMM_CTL_MAX_ARGS - 3) {
		ustctl_set_error("%s: a kind (pid, procname or uid) and 1 to %u values",
				 track ? "track" : "untrack", USTCOMM_CTL_MAX_ARGS - 3);
		return -EINVAL;
	}
	for (i = 0; i < nr; i++) {
		if ((strcmp(values[i], "*") || nr > 1) &&
		    ustcomm_track_value(k, values[i], value, sizeof(value)) < 0) {
			ustctl_set_error("invalid %s '%s'%s", kind, values[i],
					 k == 1 ? ": a process name has no '/'" :
					 ": a decimal number (a pid is not 0)");
			return -EINVAL;
		}
	}
	args = calloc(nr + 3, sizeof(*args));
	if (!args) {
		ustctl_set_error("out of memory");
		return -ENOMEM;
	}
	args[0] = name;
	args[1] = track ? "1" : "0";
	args[2] = kind;
	memcpy(args + 3, values, nr * sizeof(*args));
	ret = ustctl_call_ustd_u32(USTCOMM_CTL_SESSION_TRACK, args, nr + 3, SESSION_VERB_EXTRA_MS,
				   &now);
	free(args);
	return ret ? ret : (int)now;
}
