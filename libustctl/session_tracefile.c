/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * A process's tracefile limits in its session file: read with the trace's
 * channel settings, set before them when a file is applied (both only
 * before the trace's buffers are allocated, so a refusal of the rest puts
 * the limits back as they were).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "libustctl/internal.h"
#include "libustctl/session_file_extra.h"

int ustctl_get_session_extra(pid_t pid, const char *trace, const struct ustctl_session *session,
			     struct ustctl_session_extra **extra)
{
	struct ustctl_session_extra *x = calloc(1, sizeof(*x));
	uint64_t size;
	uint32_t count;
	size_t i;
	int ret = x ? 0 : -ENOMEM;

	*extra = NULL;
	/* The program lists every channel it holds a setting of, limits too. */
	for (i = 0; !ret && i < session->nr_channels; i++) {
		const char *channel = session->channels[i].name;

		ret = ustctl_get_tracefile(pid, trace, channel, &size, &count);
		if (!ret && size && ustctl_extra_add_tracefile(x, channel, size, count))
			ret = -ENOMEM;
	}
	if (ret == -ENOMEM)
		ustctl_set_failure("out of memory");
	if (ret)
		ustctl_session_extra_free(x);
	else
		*extra = x;
	return ret;
}

int ustctl_apply_session_extra(pid_t pid, const char *trace, const struct ustctl_session *session,
			       const struct ustctl_session_extra *extra)
{
	struct ustctl_tracefile_conf *old = NULL;
	size_t nr = extra ? extra->nr_tracefiles : 0, set = 0, i;
	int ret = 0;

	if (nr && !(old = calloc(nr, sizeof(*old)))) {
		ustctl_set_failure("out of memory");
		return -ENOMEM;
	}
	for (i = 0; !ret && i < nr; i++) {
		const struct ustctl_tracefile_conf *tf = &extra->tracefiles[i];

		ret = ustctl_get_tracefile(pid, trace, tf->channel, &old[i].size, &old[i].count);
		if (!ret)
			ret = ustctl_set_tracefile(pid, trace, tf->channel, tf->size, tf->count);
		if (!ret)
			set++;
	}
	if (!ret)
		ret = ustctl_apply_session(pid, trace, session);
	if (ret && set) {
		/* The cause stays the last error, as it was classified. */
		int input = ustctl_last_error_is_input();
		char *why = strdup(ustctl_last_error());

		while (set--)
			ustctl_set_tracefile(pid, trace, extra->tracefiles[set].channel,
					     old[set].size, old[set].count);
		if (input)
			ustctl_set_error("%s", why ? why : "out of memory");
		else
			ustctl_set_failure("%s", why ? why : "out of memory");
		free(why);
	}
	free(old);
	return ret;
}
